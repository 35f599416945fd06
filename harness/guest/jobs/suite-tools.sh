# SPDX-License-Identifier: GPL-2.0
# The real tools on the kernel: Debian 12's perf and bpftrace, from the
# root file system harness/lib/tools.sh packs under /tools, run in a chroot
# there.  perf probe puts a kprobe and a kretprobe on ksys_sync() (sync(2)
# calls it once) and on kptarget's functions (harness/modules/kptarget:
# writing N to its trigger calls kptarget_func(i) and kptarget_ret(i), which
# returns 2i+1, for i < N), perf stat counts them over a workload, and
# bpftrace counts the same calls and draws kptarget_ret()'s return values.
# Every count is exact, and every probe is listed in the debugfs list while
# it is in use and gone after.  Then many probes, as the tools make them:
# perf probe adding and deleting 500 functions, bpftrace attaching 200
# single kprobes, each step timed for the log.
. /kp/lib.sh

T=/tools
LIST=/sys/kernel/debug/kprobes/list
KO=/kp/ext/kptarget.ko
TRIGGER=/sys/module/kptarget/parameters/trigger
SYNCS=10
CALLS=8
# Seconds bpftrace may take to compile and attach (LLVM under TCG).
BT_START=300

# A command in the tools' root.
tools() {
	chroot $T /kp-bin/busybox env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin:/kp-bin HOME=/root "$@"
}

mounted_here=
setup() {
	[ -x $T/usr/bin/perf ] && [ -x $T/usr/bin/bpftrace ] ||
		fail "no perf or bpftrace under $T: the guest was booted without the tools rootfs" ||
		return 1
	mkdir -p $T/proc $T/sys $T/dev $T/tmp $T/kp $T/root || return 1
	mount -t proc proc $T/proc && mount -o rbind /sys $T/sys &&
		mount -o bind /dev $T/dev && mount -t tmpfs tmpfs $T/tmp &&
		mount -o bind /kp $T/kp || fail "mounting /proc, /sys, /dev, /tmp, /kp under $T failed" ||
		return 1
	mounted_here=1
	# The workloads run in the chroot too (perf stat starts them), so
	# busybox has the same path in and out of it.
	mkdir -p $T/kp-bin /kp-bin && cp /bin/busybox $T/kp-bin/busybox &&
		ln -sf /bin/busybox /kp-bin/busybox &&
		chroot $T /kp-bin/busybox --install -s /kp-bin || return 1
	if ! grep -q '^kptarget ' /proc/modules; then
		insmod $KO || fail "insmod $KO failed" || return 1
	fi
	tools perf --version && tools bpftrace --version
}

teardown() {
	rmmod kptarget
	[ -n "$mounted_here" ] || return 0
	umount $T/kp $T/tmp $T/dev
	umount -l $T/sys
	umount $T/proc
}

# The debugfs list's lines for FUNC: "k" or "r", FUNC+offset, the module
# name where it has one, and the flags.
list_lines() {	# func
	grep -E "^[0-9a-f]+  [kr]  $1\+0x[0-9a-f]+( |\$)" $LIST
}

# listed FUNC TYPES STATE: one line per type (k, r) for FUNC, all in STATE
# (disabled: "[DISABLED]" among the flags; enabled: not).
listed() {
	lines=$(list_lines "$1")
	for t in $2; do
		l=$(echo "$lines" | grep -E "^[0-9a-f]+  $t  ")
		[ "$(echo "$l" | grep -c .)" = 1 ] ||
			fail "want one '$t' line for $1, the list has: $(cat $LIST)" || return 1
		case "$3:$l" in
		disabled:*"[DISABLED]"*) ;;
		disabled:*) fail "not disabled: $l" || return 1 ;;
		enabled:*"[DISABLED]"*) fail "disabled while in use: $l" || return 1 ;;
		esac
	done
	expect_eq "$(echo "$lines" | grep -c .)" "$(echo "$2" | wc -w)" "lines for $1 in the list"
}

not_listed() {	# func...
	for f in "$@"; do
		if list_lines "$f"; then
			fail "$f is still listed"
			return 1
		fi
	done
}

perf_probes() {
	tools perf probe --list 2>&1 | grep -o 'probe:[a-z_]*'
}

perf_add() {	# perf probe arguments
	tools perf probe -q "$@" || fail "perf probe $* failed"
}

perf_listed() {	# event...
	got=$(perf_probes)
	for e in "$@"; do
		echo "$got" | grep -qx "$e" || fail "perf probe --list lacks $e: $got" || return 1
	done
}

perf_del() {	# event...
	for e in "$@"; do
		tools perf probe -q --del "$e" || fail "perf probe --del $e failed" || return 1
	done
	got=$(perf_probes)
	for e in "$@"; do
		! echo "$got" | grep -qx "$e" || fail "perf probe --list still has $e" || return 1
	done
}

# perf_stat EVENTS WORKLOAD: run "perf stat -x," on the workload (a
# busybox sh script in the chroot), which touches /tmp/ready when its calls
# are done and waits for /tmp/done; meanwhile the list is checked, by
# perf_stat_while, for each FUNC:TYPES given in PERF_WHILE.  The counts go
# to /tmp/perf-stat.out, the state seen to /tmp/perf-while.out.
perf_stat() {
	events=$1
	work="$2; touch /tmp/ready; while [ ! -e /tmp/done ]; do sleep 1; done"
	rm -f $T/tmp/ready $T/tmp/done /tmp/perf-while.out
	ev=
	for e in $events; do ev="$ev -e $e"; done
	# shellcheck disable=SC2086
	tools perf stat -x, -o /tmp/perf-stat.out $ev -- /kp-bin/busybox sh -c "$work" &
	pid=$!
	i=0
	while [ ! -e $T/tmp/ready ] && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	for fl in $PERF_WHILE; do
		listed "${fl%%:*}" "$(echo "${fl#*:}" | sed 's/./& /g')" enabled >>/tmp/perf-while.out 2>&1 ||
			echo "FAILED" >>/tmp/perf-while.out
	done
	touch $T/tmp/done
	wait $pid || fail "perf stat failed: $(cat $T/tmp/perf-stat.out)"
}

# perf stat's CSV: count,unit,event,...
perf_count() {	# event
	sed -n "s/^\([0-9]*\),[^,]*,$1,.*/\1/p" $T/tmp/perf-stat.out
}

perf_counts() {	# want event...
	want=$1
	shift
	for e in "$@"; do
		expect_eq "$(perf_count "$e")" "$want" "perf stat's count of $e" ||
			{ cat $T/tmp/perf-stat.out; return 1; }
	done
}

listed_during_stat() {
	[ -f /tmp/perf-while.out ] || fail "perf stat did not run" || return 1
	cat /tmp/perf-while.out
	! grep -q FAILED /tmp/perf-while.out
}

syncs() {
	echo "i=0; while [ \$i -lt $SYNCS ]; do /kp-bin/busybox sync; i=\$((i + 1)); done"
}

# bpftrace runs the workload itself (-c), as users do: it starts the
# command once its probes are attached, and prints its maps and exits when
# the command ends, so no signal is needed.  The command says when it has
# started (/tmp/bt-attached) and waits for /tmp/bt-go, so the list can be
# read while every probe is in place, then makes its calls.
BT_PROG='kprobe:ksys_sync { @sync = count(); }
kprobe:kptarget_func { @func = count(); }
kretprobe:kptarget_ret { @ret = hist(retval); }'
BT_OUT=/tmp/bpftrace.out
bt_pid=

bt_start() {
	rm -f $T/tmp/bt-attached $T/tmp/bt-go
	{
		echo "touch /tmp/bt-attached"
		echo "while [ ! -e /tmp/bt-go ]; do sleep 1; done"
		syncs
		echo "echo $CALLS >$TRIGGER"
	} >$T/tmp/bt-work.sh
	tools bpftrace -e "$BT_PROG" -c "/kp-bin/busybox sh /tmp/bt-work.sh" >$BT_OUT 2>&1 &
	bt_pid=$!
	t0=$(date +%s)
	while [ ! -e $T/tmp/bt-attached ]; do
		kill -0 $bt_pid 2>/dev/null || fail "bpftrace exited: $(cat $BT_OUT)" || return 1
		[ $(($(date +%s) - t0)) -lt $BT_START ] ||
			fail "bpftrace did not attach in ${BT_START}s: $(cat $BT_OUT)" || return 1
		sleep 1
	done
	say "# bpftrace attached and started the workload in $(($(date +%s) - t0))s"
	grep -q '^Attaching 3 probes' $BT_OUT || fail "bpftrace said: $(cat $BT_OUT)"
}

bt_listed() {
	listed ksys_sync k enabled && listed kptarget_func k enabled &&
		listed kptarget_ret r enabled
}

# bt_exits PID OUT: bpftrace, its command let go, exits within 120 s and
# with status 0; OUT, its output, says why not.
bt_exits() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 1200 ]; do
		usleep 100000
		i=$((i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		fail "bpftrace still running 120s after its command was let go: $(cat "$2")"
		return 1
	fi
	wait "$1" || fail "bpftrace exited with status $?: $(cat "$2")"
}

# Let the workload go; bpftrace ends with it.
bt_stop() {
	touch $T/tmp/bt-go
	bt_exits $bt_pid $BT_OUT || return 1
	bt_pid=
	cat $BT_OUT
}

bt_scalar() {	# map
	sed -n "s/^@$1: \([0-9]*\)$/\1/p" $BT_OUT
}

# The histogram's buckets as "range count" lines, e.g. "[4, 8) 2".
bt_hist() {
	sed -n '/^@ret:/,/^$/p' $BT_OUT | sed -n 's/^\(\[[^]]*[])]\) *\([0-9]*\) |.*/\1 \2/p'
}

# kptarget_ret(i) returns 2i+1 for i < CALLS (8): 1 | 3 | 5 7 | 9 11 13 15.
bt_hist_exact() {
	want="[1] 1
[2, 4) 1
[4, 8) 2
[8, 16) 4"
	expect_eq "$(bt_hist)" "$want" "@ret's buckets"
}

# Many probes, made as the tools make them, one at a time: perf probe
# adding MANY_PERF function entries in five commands (a kprobe_events
# write each) and deleting them in one command; bpftrace attaching single
# kprobes (a perf_event_open() each, not kprobe_multi: the attach points
# are named, not a wildcard) to MANY_BT functions and detaching them when
# it exits.  Each step's time goes to the log ("# tools-time:"), for the
# note, beside the base's run of the same suite (harness/kp test --base
# --only tools): wall time under TCG, not the benchmark's instructions.
MANY_PERF=500
MANY_BT=200

# Seconds since boot, to the hundredth.
now() {
	cut -d' ' -f1 /proc/uptime
}

took() {	# what start
	say "# tools-time: $1: $(awk -v a="$2" -v b="$(now)" 'BEGIN { printf "%.2f s", b - a }')"
}

# The lines of standard input that FILE has too.
in_file() {
	awk 'NR == FNR { a[$0]; next } $0 in a' "$1" -
}

# MANY_PERF + MANY_BT functions for the many-probe rounds: entries ftrace
# lists, each once by name in kallsyms (perf and bpftrace refuse or
# multiply the others), spread over the list, that a kprobe event takes.
many_pick() {
	awk '$2 ~ /^[tT]$/ && NF == 3 { n[$3]++ } END { for (s in n) if (n[s] == 1) print s }' \
		/proc/kallsyms | sort >/tmp/many-unique
	grep -v ' \[' /sys/kernel/tracing/available_filter_functions | grep -v '\.' |
		sort -u | in_file /tmp/many-unique >/tmp/many-all
	want=$((MANY_PERF + MANY_BT))
	step=$(($(wc -l </tmp/many-all) / (want * 2)))
	[ "$step" -ge 1 ] || step=1
	: >/tmp/many
	awk -v s="$step" 'NR % s == 0' /tmp/many-all | while read -r f; do
		echo "p:kpmany/v $f" >>/sys/kernel/tracing/kprobe_events 2>/dev/null || continue
		echo "-:kpmany/v" >>/sys/kernel/tracing/kprobe_events
		echo "$f" >>/tmp/many
		[ "$(wc -l </tmp/many)" -lt "$want" ] || break
	done
	expect_eq "$(wc -l </tmp/many)" "$want" "functions picked for the many-probe rounds" || return 1
	head -n $MANY_PERF /tmp/many >/tmp/many-perf
	tail -n $MANY_BT /tmp/many >/tmp/many-bt
}

# count_listed TYPE FILE: lines of the debugfs list of TYPE (k or r) at
# the entry of a function named in FILE.
count_listed() {
	sed -n "s/^[0-9a-f]*  $1  \([^+]*\)+0x[0-9a-f]*.*/\1/p" $LIST | sort -u |
		in_file "$2" | wc -l
}

# perf probe takes at most 128 probes per command: 100 each.
perf_many_add() {
	t=$(now)
	for i in 1 2 3 4 5; do
		args=$(sed -n "$(((i - 1) * 100 + 1)),$((i * 100))s/^/-a /p" /tmp/many-perf | tr '\n' ' ')
		# shellcheck disable=SC2086
		tools perf probe -q $args || fail "perf probe -a of functions $(((i - 1) * 100 + 1))-$((i * 100)) failed" ||
			return 1
	done
	took "perf probe -a, $MANY_PERF functions in 5 commands" "$t"
	expect_eq "$(count_listed k /tmp/many-perf)" $MANY_PERF "kprobes listed on those functions"
}

perf_many_del() {
	t=$(now)
	tools perf probe -q -d 'probe:*' || fail "perf probe -d 'probe:*' failed" || return 1
	took "perf probe -d, the $MANY_PERF" "$t"
	expect_eq "$(count_listed k /tmp/many-perf)" 0 "kprobes listed on those functions"
}

BT_MANY_OUT=/tmp/bpftrace-many.out
bt_many() {
	prog="$(sed 's/^/kprobe:/' /tmp/many-bt | tr '\n' ',' | sed 's/,$//') { @n = count(); }"
	rm -f $T/tmp/bt-attached $T/tmp/bt-go
	echo "touch /tmp/bt-attached; while [ ! -e /tmp/bt-go ]; do sleep 1; done" >$T/tmp/bt-many.sh
	tools bpftrace -e "$prog" -c "/kp-bin/busybox sh /tmp/bt-many.sh" >$BT_MANY_OUT 2>&1 &
	pid=$!
	t0=$(now)
	# bpftrace prints its "Attaching" line once compiled, then attaches.
	while ! grep -q '^Attaching' $BT_MANY_OUT && kill -0 $pid 2>/dev/null; do
		usleep 100000
	done
	t=$(now)
	took "bpftrace, compiling $MANY_BT kprobe attach points" "$t0"
	while [ ! -e $T/tmp/bt-attached ] && kill -0 $pid 2>/dev/null &&
		[ "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print int(b - a) }')" -lt $BT_START ]; do
		usleep 100000
	done
	[ -e $T/tmp/bt-attached ] || { kill -9 $pid; fail "bpftrace did not attach: $(cat $BT_MANY_OUT)"; return 1; }
	took "bpftrace attaching $MANY_BT single kprobes" "$t"
	ok=1
	expect_eq "$(count_listed k /tmp/many-bt)" $MANY_BT "kprobes listed on those functions while bpftrace runs" ||
		ok=
	t=$(now)
	touch $T/tmp/bt-go
	bt_exits $pid $BT_MANY_OUT || return 1
	took "bpftrace detaching $MANY_BT single kprobes and exiting" "$t"
	grep -q "^Attaching $MANY_BT probes" $BT_MANY_OUT || fail "bpftrace said: $(cat $BT_MANY_OUT)" || return 1
	expect_eq "$(count_listed k /tmp/many-bt)" 0 "kprobes listed on those functions after bpftrace" && [ -n "$ok" ]
}

LIST_BEFORE=
list_as_before() {
	expect_eq "$(cat $LIST)" "$LIST_BEFORE" "the list after the tools ran"
}

tap_begin tools 24
check "perf and bpftrace run from the Debian rootfs" setup
LIST_BEFORE=$(cat $LIST)
check "perf probe --add ksys_sync" perf_add --add ksys_sync
check "perf probe --add ksys_sync%return" perf_add --add 'ksys_sync%return'
check "perf probe --list shows probe:ksys_sync and probe:ksys_sync__return" \
	perf_listed probe:ksys_sync probe:ksys_sync__return
check "kprobes/list: a kprobe and a kretprobe on ksys_sync, disabled" listed ksys_sync "k r" disabled
PERF_WHILE="ksys_sync:kr"
perf_stat "probe:ksys_sync probe:ksys_sync__return" "$(syncs)"
check "kprobes/list: both enabled while perf stat runs" listed_during_stat
check "perf stat: probe:ksys_sync counts the $SYNCS syncs" perf_counts $SYNCS probe:ksys_sync
check "perf stat: probe:ksys_sync__return counts their $SYNCS returns" \
	perf_counts $SYNCS probe:ksys_sync__return
check "perf probe --del removes both" perf_del probe:ksys_sync probe:ksys_sync__return
check "kprobes/list: nothing on ksys_sync after --del" not_listed ksys_sync

check "perf probe -m kptarget.ko --add kptarget_func and kptarget_ret%return" \
	perf_add -m $KO --add kptarget_func --add 'kptarget_ret%return'
PERF_WHILE="kptarget_func:k kptarget_ret:r"
perf_stat "probe:kptarget_func probe:kptarget_ret__return" "echo $CALLS >$TRIGGER"
check "kprobes/list: both module probes enabled while perf stat runs" listed_during_stat
check "perf stat: $CALLS calls of kptarget_func and $CALLS returns of kptarget_ret" \
	perf_counts $CALLS probe:kptarget_func probe:kptarget_ret__return
check "perf probe --del of the module probes; none listed" \
	eval 'perf_del probe:kptarget_func probe:kptarget_ret__return && not_listed kptarget_func kptarget_ret'

check "bpftrace: kprobe and kretprobe one-liners attach" bt_start
check "kprobes/list: bpftrace's three probes, enabled, while it runs" bt_listed
check "bpftrace: its command (-c) ends, it prints its maps and exits" bt_stop
check "bpftrace: count maps: $SYNCS ksys_sync, $CALLS kptarget_func" \
	eval 'expect_eq "$(bt_scalar sync)" $SYNCS @sync && expect_eq "$(bt_scalar func)" $CALLS @func'
check "bpftrace: kretprobe retval histogram of kptarget_ret is exact" bt_hist_exact
check "$((MANY_PERF + MANY_BT)) functions picked that a kprobe event takes" many_pick
check "perf probe -a of $MANY_PERF functions, 100 per command: each listed" perf_many_add
check "perf probe -d of them: none listed" perf_many_del
check "bpftrace: $MANY_BT single kprobes attached, listed, and gone after it exits" bt_many
check "kprobes/list: as it was before the tools ran" list_as_before

# For the record: what the tools printed.
for f in $T/tmp/perf-stat.out $BT_OUT; do
	[ -f $f ] && grep . $f | sed 's/^/# /' | to_kmsg
done

[ -n "$bt_pid" ] && kill -9 $bt_pid 2>/dev/null
teardown >/dev/null 2>&1
