# SPDX-License-Identifier: GPL-2.0
# Stress: every step runs while a workload keeps every vCPU busy (fork and
# exec, file and pipe I/O, kptarget loaded and unloaded in a loop), and at
# the end no probe is left and, on debug kernels, kmemleak finds nothing.
#
# 1. Event sweep (kpsweep, harness/guest-progs/kpsweep.c): kprobe events,
#    then kretprobe events, on about 200 functions (another sample each
#    boot), enabled 3 s; each is listed while it exists and gone after.
#    kpsweep prints how many were taken, fired and refused, by errno.
# 2. Batch sweep (kpsweep -m): the kpstress module registers kprobes, then
#    kretprobes, in register_kprobes()/register_kretprobes() batches of
#    500 over about 2000 of the functions an event accepts.  Each must be
#    taken, or refused with the errno the base's record says
#    (harness/stress/base-sweep-*), except the differences kprobes.rst
#    documents (harness/stress/differences.txt); the two kernels' own
#    kprobes functions are compared only where both have them.  Probes on
#    kernel_clone, vfs_read, vfs_write and do_sys_openat2 must fire.  Per
#    batch the log gets a "kpstress: sweep" line: the time of the
#    register and unregister calls and the longest that another thread's
#    register_kprobe() waited for kprobe_mutex meanwhile (what a module
#    load would wait).
# 3. Instruction sweep (kpinsn, harness/guest-progs/kpinsn.c), on the
#    distro and debug kernels and in "harness/kp stress": the 330
#    functions of at most 1 KB that the base's record names (picked by the
#    function tracer, evenly spread, from what a checked workload runs
#    outside the idle tasks).
#    - Check round, no workload: every byte (every 4th on arm64) tried as
#      a disabled kprobe, which patches nothing.  The offsets taken must
#      be the base's in every function both kernels have at the same
#      size, at least 300 of them.  Rules kprobes.rst documents are not
#      differences: an ENDBR that is not a symbol's start (x86_64, only we
#      refuse); an indirect call or jmp through memory (x86, only we
#      take); on arm64 the ftrace ops pointer and zero words (only we
#      refuse) and one-instruction atomics and what follows them, hints
#      and instructions with a fixup (only we take).  A function whose
#      code is not the base's (it calls into kprobes) is not compared: the
#      record keeps the base's bytes.
#    - Then, while a workload checks its own results (a file read back,
#      pipe data, a checksum, exit statuses), kprobes in
#      register_kprobes() batches of up to 4096 on every boundary taken
#      (in the post round, and on the debug kernel in the pre and
#      sparse rounds too, a function that registering a probe runs
#      often, as the function tracer counted it, goes in a batch of its
#      own: each later registration of the batch would hit its probes,
#      each hit two exceptions and a handler, or lockdep's checks): a
#      pre_handler only; with a post_handler; sparse (at least 16 bytes
#      apart, 2 s, then up to 30 s more while the list shows more
#      [OPTIMIZED]; none optimized on x86_64 fails); a kretprobe on each
#      function.  Every probe registers, each function's first probe
#      fires (a kretprobe's entry handler, as some never return; up to
#      20 s more for functions run now and then), the list is as before,
#      and the workload sees no wrong result.  With kp.insn=all (the
#      second boot of "harness/kp stress") the sweep runs alone and adds
#      every other function of at most 1 KB its workload runs.
# 4. Races (harness/modules/kpstress), 10 s: a caller thread per CPU
#    through three functions with stable probes (entry, body, kretprobe)
#    while two threads register, unregister, disable and enable probes on
#    the same addresses, in batches, and probe kernel_clone; every stable
#    probe sees every call.  Again with the enabled knob and the sysctl
#    flipping.
# 5. Sleepers: a kretprobe event with the default maxactive on
#    do_nanosleep under 256 overlapping sleeps misses no return.
# 6. Faults, 4 s without and 4 s with post_handlers: a caller thread per
#    CPU, in the address space of the shell that started the run
#    (kthread_use_mm(), so user reads really fault), calls a function
#    whose handlers read bad and good user and kernel addresses (a
#    vmalloc guard page) with the *_nofault() helpers, while a kprobe
#    event fetches the same bad addresses as ustring and string (each
#    record says "(fault)", hits equal calls).  Then a kprobe on each of
#    two loads with an exception-table entry (__get_kernel_nofault(),
#    unsafe_get_user()) and on the instruction before the kernel one:
#    the load faults out of line, the fixup still runs (the caller sees
#    -EFAULT), every pre_handler runs, a post_handler only when the load
#    did not fault.
# 7. With CONFIG_DEBUG_ATOMIC_SLEEP (--debug), a pre_handler that calls
#    might_sleep() must be reported, inside an expected-splat window.
#
# kp.stress=MINUTES on the command line is the long form ("harness/kp
# stress"): the event sweep takes a share of about 700 functions
# (another on every boot), the batch sweep every function an event
# would accept, and races run in rounds for what is left of the time.
# Without it, the bounded form that "harness/kp test" runs.
# kp.insn=all runs the instruction sweep alone, over every function of
# at most 1 KB the workload runs ("harness/kp stress" does so on the
# distro kernel: harness/lib/run.sh says why).
. /kp/lib.sh

LIST=/sys/kernel/debug/kprobes/list
KNOB=/sys/kernel/debug/kprobes/enabled
OPT=/proc/sys/debug/kprobes-optimization
TRACING=/sys/kernel/tracing
KPS=/sys/module/kpstress/parameters
MINUTES=$(cmdline_arg kp.stress)
INSN_ALL=$(cmdline_arg kp.insn)
NCPU=$(grep -c ^processor /proc/cpuinfo)
T0=$(date +%s)

workload_start() {
	i=0
	while [ $i -lt "$NCPU" ]; do
		sh -c "while :; do /bin/true; echo \$\$ >/tmp/wl.$i; cat /tmp/wl.$i | wc -c >/dev/null; ls /proc >/dev/null 2>&1; done" &
		WL="$WL $!"
		i=$((i + 1))
	done
	sh -c 'while :; do insmod /kp/ext/kptarget.ko && echo 3 >/sys/module/kptarget/parameters/trigger; rmmod kptarget; done' >/dev/null 2>&1 &
	WL="$WL $!"
}

workload_stop() {
	kill $WL 2>/dev/null
	wait 2>/dev/null
	rmmod kptarget 2>/dev/null
	return 0
}

# sweep NAME ARGS: one kpsweep pass; its summary goes to the log.
sweep() {
	/kp/bin/kpsweep "$@" >/tmp/sweep.out 2>&1
	rc=$?
	to_kmsg </tmp/sweep.out
	return $rc
}

race() {	# seconds exact
	echo "$2" >/sys/module/kpstress/parameters/exact &&
		echo "$1" >/sys/module/kpstress/parameters/run || return 1
	p=/sys/module/kpstress/parameters
	say "# race ${1}s exact=$2: calls $(cat $p/calls_a)/$(cat $p/calls_b), hits entry $(cat $p/hits_entry)" \
		"body $(cat $p/hits_body) return $(cat $p/hits_ret) missed $(cat $p/missed_ret)," \
		"churn $(cat $p/churn_ops) ops $(cat $p/churn_errors) errors"
	expect_eq "$(cat $p/failures)" 0 "broken rules (see the kernel log)"
}

flipper() {
	while :; do
		echo 0 >$KNOB; sleep 0.3; echo 1 >$KNOB
		[ -f $OPT ] && { echo 0 >$OPT; sleep 0.2; echo 1 >$OPT; }
		sleep 0.5
	done
}

race_flipping() {	# seconds
	flipper &
	fp=$!
	race "$1" 0
	rc=$?
	kill $fp
	wait $fp 2>/dev/null
	echo 1 >$KNOB
	[ -f $OPT ] && echo 1 >$OPT
	return $rc
}

# A kretprobe event left at the default maxactive, on a function 256 tasks
# sleep in at once while the workload runs: every return is seen and none
# is missed (the instances grow).  The base misses most of them.
SLEEPERS=256

sleepers_miss_nothing() {
	ev=kps_sleep
	echo "r:kpstress/$ev do_nanosleep" >>$TRACING/kprobe_events ||
		fail "defining r:kpstress/$ev do_nanosleep failed" || return 1
	echo >$TRACING/trace
	echo 1 >$TRACING/events/kpstress/$ev/enable || return 1
	i=0
	pids=
	while [ $i -lt $SLEEPERS ]; do
		sleep 6 &
		pids="$pids $!"
		i=$((i + 1))
	done
	wait $pids
	echo 0 >$TRACING/events/kpstress/$ev/enable
	hits=$(awk -v e=$ev '$1 == e { print $2 }' $TRACING/kprobe_profile)
	missed=$(awk -v e=$ev '$1 == e { print $3 }' $TRACING/kprobe_profile)
	rets=$(grep -c " $ev: (" $TRACING/trace)
	echo "-:kpstress/$ev" >>$TRACING/kprobe_events
	say "# sleepers: $SLEEPERS tasks, $hits calls, $rets return events, $missed missed"
	expect_eq "$missed" 0 "returns missed" &&
		expect_eq "$rets" "$hits" "return events against calls" &&
		{ [ "$hits" -ge $SLEEPERS ] || fail "only $hits calls of do_nanosleep for $SLEEPERS sleeps"; }
}

# Kprobe handlers run in NMI context on a breakpoint trap, and the ring
# buffer drops NMI writes where the arch has no NMI-safe cmpxchg (riscv in
# 6.12, the base too): events fire and count, but are never recorded.
ring_buffer_takes_nmi_events() {
	[ -r /proc/config.gz ] || return 0
	zcat /proc/config.gz | grep -qx 'CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG=y'
}

# faults SECONDS POST: the fault race of kpstress, with a kprobe event on
# the same function whose fetch args read the same bad addresses as
# strings (strncpy_from_user_nofault, strncpy_from_kernel_nofault): every
# hit is counted and every string is "(fault)".
faults() {
	# $argN needs the arch's function argument access; without it (arm)
	# the probe is on the entry, where the arguments are in registers.
	a1='$arg1' a2='$arg2'
	if ! kconfig_on HAVE_FUNCTION_ARG_ACCESS_API; then
		case $(kp_arch) in
		arm*) a1=%r0 a2=%r1 ;;
		esac
	fi
	echo "$2" >$KPS/fault_post || return 1
	echo "p:kps/kpsfault kps_target_f ustr=+0($a1):ustring kstr=+0($a2):string" \
		>>$TRACING/kprobe_events || fail "the kprobe event on kps_target_f was refused"
	echo >$TRACING/trace
	echo 1 >$TRACING/events/kps/kpsfault/enable
	echo "$1" >$KPS/faults
	rc=$?
	echo 0 >$TRACING/events/kps/kpsfault/enable
	ev=$(awk '$1 == "kpsfault" { print $2, $3 }' $TRACING/kprobe_profile)
	grep -F 'kps_target_f' $TRACING/trace >/tmp/faults.trace
	echo '-:kps/kpsfault' >>$TRACING/kprobe_events
	[ $rc = 0 ] || fail "the fault race did not run (see the kernel log)" || return 1
	say "# faults ${1}s post=$2: $(cat $KPS/fault_calls) calls, handlers" \
		"$(cat $KPS/fault_hits_entry) $(cat $KPS/fault_hits_body) $(cat $KPS/fault_hits_post)" \
		"$(cat $KPS/fault_hits_ret_entry) $(cat $KPS/fault_hits_ret), $(cat $KPS/fault_reads) nofault reads," \
		"$(cat $KPS/fault_wrong) wrong; $(cat $KPS/ext_calls) load rounds, $(cat $KPS/ext_sites) probes on" \
		"loads (before: -$(cat $KPS/ext_before)), pre $(cat $KPS/ext_hits_pre) post $(cat $KPS/ext_hits_post);" \
		"event hits/missed $ev, $(wc -l </tmp/faults.trace) in the trace"
	expect_eq "$(cat $KPS/fault_failures)" 0 "broken rules (see the kernel log)" || return 1
	expect_eq "$ev" "$(cat $KPS/fault_calls) 0" "kprobe event hits and misses" || return 1
	if ! ring_buffer_takes_nmi_events; then
		# The probes fired and were counted above; their records cannot
		# be read back on this arch (see ring_buffer_takes_nmi_events).
		say "# faults: the event's records are not checked: the ring buffer refuses NMI writes here"
		return 0
	fi
	[ -s /tmp/faults.trace ] || fail "the kprobe event recorded nothing" || return 1
	! grep -v 'ustr=(fault) kstr=(fault)' /tmp/faults.trace | head -n 3 | grep . ||
		fail "the event read something at the bad addresses (lines above)"
}

faults_both() {	# seconds
	faults "$1" 0 && faults "$1" 1
}

# The deliberate splat: a pre_handler that calls might_sleep(), armed for
# one call.  The report must appear inside the window, and the kernel go on.
sleeper() {
	pat="BUG: sleeping function called from invalid context"
	mark=$(klog_mark)
	expect_splat sleep-in-atomic sh -c "echo 1 >$KPS/sleeper" ||
		fail "the sleeping pre_handler could not be armed" || return 1
	expect_eq "$(cat $KPS/sleeper_hits)" 1 "calls through the sleeping pre_handler" || return 1
	n=$(klog_count_since "$mark" "$pat")
	[ "$n" != lost ] && [ "$n" -gt 0 ] ||
		fail "no \"$pat\" report from the debug config (count: $n)"
}

nothing_left() {
	sort $LIST >/tmp/list.after
	cmp -s /tmp/list.before /tmp/list.after && return 0
	echo "probes left behind:"
	diff /tmp/list.before /tmp/list.after
	return 1
}

kmemleak_clean() {
	ml=/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >$ml && echo scan >$ml || return 1
	grep -qE 'kprobe|kretprobe|rethook|kps_' $ml || return 0
	echo "kmemleak reports objects allocated by kprobes:"
	cat $ml
	return 1
}

NFUNCS=$(awk '($2 == "t" || $2 == "T") && NF == 3' /proc/kallsyms | wc -l)
if [ -n "$MINUTES" ]; then
	# About 700 functions per pass, a different share on every boot.
	# Every function would take hours under TCG: enabling a probe on an
	# ftrace site is a whole ftrace update, for the base as for us, and
	# the batch sweeps below already reach every function.  kpsweep
	# enables each event on its own, so event_mutex (which the
	# workload's insmod waits for) is held for one probe at a time.
	STRIDE=$((NFUNCS / 700 + 1)) BATCH=100 DWELL=2 RACE=60 FAULTS=20
	# A batch of probes registered by one call takes one ftrace update,
	# so the module's sweep covers every function.
	MSTRIDE=1 MBATCH=1000
else
	# About 200 functions, a different sample on every boot.
	STRIDE=$((NFUNCS / 200 + 1)) BATCH=200 DWELL=3 RACE=10 FAULTS=4
	MSTRIDE=$((NFUNCS / 2000 + 1)) MBATCH=500
fi
FIRST=$(($(date +%s) % STRIDE))
sort $LIST >/tmp/list.before
insmod /kp/ext/kpstress.ko || say "# kpstress did not load"

# Every instruction boundary of real functions (kpinsn): the 300 and more
# functions of the base's record of this config, picked from those its
# workload ran.  The boundaries taken must be the base's; then kprobes on
# all of them, with and without a post_handler, sparse ones for the
# optimizer, and a kretprobe on each function, while a workload that
# checks its own results runs.  With kp.insn=all, every other function
# the workload runs too, compared with the record where it names them.
insn_sweep() {
	# Its own workload only: the other one would double the probe hits
	# that every registration and grace period waits behind under TCG.
	# Trying every address needs no workload, and runs faster without:
	# kpinsn says when it has done that (-G), and the rounds need one.
	# The other workload comes back afterwards if it ran.
	had_wl=$WL
	workload_stop
	WL=
	if [ "$INSN_ALL" = all ]; then
		checked_workload_start /tmp/wl.fail
		workload_functions >/tmp/insn.funcs
		checked_workload_stop
		set -- -f /tmp/insn.funcs
	fi
	rm -f /tmp/insn.go /tmp/insn.go.ready /tmp/insn.rc
	# Its lines go to the kernel log as they come: a long form's batches
	# are its progress.
	{
		/kp/bin/kpinsn -x /kp/records/insn.txt "$@" -t 2 -W /tmp/wl.fail -N 300 \
			-D /kp/records/kretprobe.differences.txt -G /tmp/insn.go 2>&1
		echo $? >/tmp/insn.rc
	} | to_kmsg &
	pid=$!
	while [ ! -e /tmp/insn.go.ready ] && kill -0 $pid 2>/dev/null; do
		sleep 1
	done
	checked_workload_start /tmp/wl.fail
	touch /tmp/insn.go
	wait $pid
	rc=$(cat /tmp/insn.rc 2>/dev/null || echo 2)
	checked_workload_stop
	[ -z "$had_wl" ] || workload_start
	[ -f /tmp/wl.fail ] && to_kmsg </tmp/wl.fail
	return $rc
}
# kp.insn=all: the boot of "harness/kp stress" on the distro kernel
# (harness/lib/run.sh) runs the instruction sweep alone, over every
# function of at most 1 KB its workload runs.
if [ "$INSN_ALL" = all ]; then
	tap_begin stress 2
	say "# stress: $NCPU vCPUs, the instruction sweep over every function the workload runs"
	check "a kprobe on every instruction boundary of every function of at most 1 KB the workload runs: the base's boundaries taken where the record names the function, every function's probes fire, the workload's results stay right" \
		insn_sweep
	rmmod kpstress
	check "no probe is left at the end" nothing_left
	say "# stress: $(($(date +%s) - T0)) s of guest time"
	exit 0
fi

PLAN=11
[ -n "$MINUTES" ] && PLAN=$((PLAN + 1))
# The instruction sweep runs where the harness gave it the base's record
# (harness/lib/guest.sh: the distro kernels, the long forms).
[ -f /kp/records/insn.txt ] && PLAN=$((PLAN + 1))
tap_begin stress $PLAN
say "# stress: $NCPU vCPUs, $NFUNCS functions, every $STRIDE-th from $FIRST, races ${RACE}s${MINUTES:+, $MINUTES minutes in all}"
workload_start
check "kprobe events swept over the kernel: all listed, all removed" \
	sweep -s $STRIDE -o $FIRST -b $BATCH -t $DWELL
check "kretprobe events swept over the kernel: all listed, all removed" \
	sweep -r -s $STRIDE -o $FIRST -b $BATCH -t $DWELL
# What can be probed is an interface: each function the module's sweeps
# try must be taken, or refused with the errno, as the base's record says
# (harness/stress/, "harness/kp sweep-record"), but for the differences
# kprobes.rst documents (harness/stress/differences.txt); and probes on
# functions the workload runs must fire.
# A debug kernel without a record of its own is compared with the default
# config's record, where it names a function (kpsweep -p).
WORKLOAD_FUNCS=kernel_clone,vfs_read,vfs_write,do_sys_openat2
record_args() {	# kind
	if [ -f /kp/records/$1.partial.txt ] && [ ! -f /kp/records/$1.txt ]; then
		echo "-p -x /kp/records/$1.partial.txt"
	else
		echo "-x /kp/records/$1.txt"
	fi
}
check "kprobes swept over the kernel in register_kprobes() batches: all listed, all removed, as the base takes them" \
	sweep -m -s $MSTRIDE -o $((FIRST % MSTRIDE)) -b $MBATCH -t $DWELL \
	$(record_args kprobe) -n /kp/records/own.txt -D /kp/records/kprobe.differences.txt \
	-w $WORKLOAD_FUNCS
check "kretprobes swept over the kernel in register_kretprobes() batches: all listed, all removed, as the base takes them" \
	sweep -m -r -s $MSTRIDE -o $((FIRST % MSTRIDE)) -b $MBATCH -t $DWELL \
	$(record_args kretprobe) -n /kp/records/own.txt -D /kp/records/kretprobe.differences.txt \
	-w $WORKLOAD_FUNCS
if [ -f /kp/records/insn.txt ]; then
	check "a kprobe on every instruction boundary of 300 functions the workload runs: the base's boundaries taken, every function's probes fire, the workload's results stay right" \
		insn_sweep
fi
check "races: every call seen by every stable probe while others churn" race $RACE 1
check "races: with the enabled knob and the sysctl flipping" race_flipping $RACE
check "kretprobe, default maxactive, $SLEEPERS tasks asleep in it: nothing missed" \
	sleepers_miss_nothing
check "faults: handlers read bad user and kernel addresses, probes on faulting loads" \
	faults_both $FAULTS
if [ "$(cat $KPS/atomic_sleep_check 2>/dev/null)" = Y ]; then
	check "a handler that sleeps in atomic context is caught by the debug config" sleeper
else
	skip "a handler that sleeps in atomic context is caught by the debug config" \
		"kernel without CONFIG_DEBUG_ATOMIC_SLEEP"
fi
# The long form: race and fault rounds until the time is up.
rounds() {
	n=0
	while [ $(($(date +%s) - T0)) -lt $((MINUTES * 60 - 2 * RACE - 2 * FAULTS)) ]; do
		race $RACE 1 && race_flipping $RACE && faults_both $FAULTS ||
			{ echo "round $n failed"; return 1; }
		n=$((n + 1))
	done
	say "# stress: $n more race and fault rounds"
}
[ -n "$MINUTES" ] && check "race and fault rounds until the time is up break no rule" rounds
workload_stop
rmmod kpstress
check "no probe is left at the end" nothing_left
if [ -f /sys/kernel/debug/kmemleak ]; then
	check "kmemleak finds nothing kprobes allocated" kmemleak_clean
else
	skip "kmemleak finds nothing kprobes allocated" "kernel without CONFIG_DEBUG_KMEMLEAK"
fi
say "# stress: $(($(date +%s) - T0)) s of guest time"
