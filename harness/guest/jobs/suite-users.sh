# SPDX-License-Identifier: GPL-2.0
# The kernel's own users of kprobes keep working: perf's kprobe PMU (kprobe
# and kretprobe), a BPF kprobe program attached through perf, and
# fail_function fault injection on kptarget_may_fail() in the harness
# module kptarget (harness/modules/kptarget), and uprobe events on a user
# program (the uprobe side of the arch backend: on arm64 it shares our
# decoder and simulation).  The perf and BPF cases run
# /kp/bin/kpusers (harness/guest-progs/kpusers.c).
. /kp/lib.sh

KPUSERS=/kp/bin/kpusers
LIST=/sys/kernel/debug/kprobes/list
FF=/sys/kernel/debug/fail_function
KO=/kp/ext/kptarget.ko
PARAMS=/sys/module/kptarget/parameters
FN=kptarget_may_fail
# -EIO as the unsigned long the retval file takes (it does not parse "-5").
if kconfig_on 64BIT; then
	EIO_ULONG=fffffffffffffffb
else
	EIO_ULONG=fffffffb
fi
FORKS=20

kpusers() {
	[ -x $KPUSERS ] || fail "$KPUSERS was not built into the initramfs" || return 1
	$KPUSERS "$@"
}

clone_probes() {
	grep -c '  kernel_clone+0x' $LIST
}

# The perf and BPF probes are local to their events: closing them must
# unregister every one.
CLONE_BEFORE=
users_leave_no_probe() {
	[ -r $LIST ] || fail "$LIST not readable" || return 1
	i=0
	while [ "$(clone_probes)" != "$CLONE_BEFORE" ] && [ $i -lt 5 ]; do
		sleep 1
		i=$((i + 1))
	done
	expect_eq "$(clone_probes)" "$CLONE_BEFORE" "probes on kernel_clone after the users closed" ||
		{ grep kernel_clone $LIST; return 1; }
}

loaded_here=
load_target() {
	[ -f $KO ] || fail "$KO was not built" || return 1
	if ! grep -q '^kptarget ' /proc/modules; then
		insmod $KO || return 1
		loaded_here=1
	fi
	[ -w $PARAMS/may_fail ] ||
		fail "kptarget has no may_fail parameter (kptarget_may_fail missing)" || return 1
	grep -q "^$FN" $FF/injectable ||
		fail "$FN is not in $FF/injectable: $(cat $FF/injectable)"
}

# call_target: call kptarget_may_fail() once; its return value is the
# write's status, and is kept in may_fail_ret.
call_target() {
	echo 1 >$PARAMS/may_fail
}

# The entry probe is listed at the function's start (after its ENDBR on
# x86 with IBT, at the ftrace site on powerpc: entry_off): on x86 it is
# the ftrace site, on arm64 it rides the site from the first instruction.
# kpusers reads kernel_clone's.
KP_ENTRY_OFF=$(entry_off kernel_clone)
export KP_ENTRY_OFF

fn_listed() {
	grep -qE "^$(addr_re)  k  $FN\+$(entry_off $FN)  kptarget " $LIST
}

injected_error_returned() {
	echo 0 >$FF/verbose && echo 1 >$FF/interval && echo -1 >$FF/times &&
		echo 100 >$FF/probability || fail "setting the fault attributes failed" || return 1
	echo $FN >$FF/inject || fail "echo $FN > inject failed" || return 1
	echo 0x$EIO_ULONG >$FF/$FN/retval || fail "writing 0x$EIO_ULONG to $FN/retval failed" || return 1
	expect_eq "$(cat $FF/$FN/retval)" $EIO_ULONG "retval read back" || return 1
	case $(cat $FF/inject) in
	"$FN"*) ;;
	*) fail "inject lists '$(cat $FF/inject)', want $FN" || return 1 ;;
	esac
	if call_target 2>/dev/null; then
		fail "the write succeeded while -EIO was injected"
		return 1
	fi
	expect_eq "$(cat $PARAMS/may_fail_ret)" -5 "kptarget_may_fail() returned"
}

listed_while_injecting() {
	fn_listed || fail "no kprobe on $FN+$(entry_off $FN) in the list: $(cat $LIST)"
}

cleared_call_succeeds() {
	echo >$FF/inject || fail "echo > inject failed" || return 1
	expect_eq "$(cat $FF/inject)" "" "inject after clearing" || return 1
	[ ! -e $FF/$FN ] || fail "$FF/$FN still exists" || return 1
	call_target || fail "the write failed with nothing injected" || return 1
	expect_eq "$(cat $PARAMS/may_fail_ret)" 0 "kptarget_may_fail() returned"
}

gone_after_clearing() {
	if fn_listed; then
		fail "still listed: $(grep $FN $LIST)"
		return 1
	fi
}

# uprobe events on a user program: its target function's entry and return
# (harness/guest-progs/kpusers.c), each call checked by the program itself.
TR=/sys/kernel/tracing
UPROBE_CALLS=50
UPROBE_X=5

uprobe_hits() {
	awk -v e="$1" '$2 == e { print $3 }' $TR/uprobe_profile
}

uprobe_events_count_calls() {
	[ -w $TR/uprobe_events ] || fail "no $TR/uprobe_events (CONFIG_UPROBE_EVENTS)" || return 1
	off=$(kpusers uprobe-offset) || return 1
	echo >$TR/trace
	echo "p:kpu/ent $KPUSERS:$off" >>$TR/uprobe_events &&
		echo "r:kpu/ret $KPUSERS:$off ret=\$retval" >>$TR/uprobe_events ||
		fail "defining the uprobe events at $KPUSERS:$off failed" || return 1
	echo 1 >$TR/events/kpu/enable || return 1
	out=$(kpusers uprobe-run $UPROBE_CALLS $UPROBE_X)
	rc=$?
	echo 0 >$TR/events/kpu/enable
	[ $rc = 0 ] || fail "the program's own results were wrong under the uprobes" || return 1
	expect_eq "$(uprobe_hits ent)" $UPROBE_CALLS "hits of the entry uprobe" &&
		expect_eq "$(uprobe_hits ret)" $UPROBE_CALLS "hits of the return uprobe" &&
		expect_eq "$(grep -cE " ret: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\) ret=${out#retval }\$" $TR/trace)" $UPROBE_CALLS \
			"return events with ret=${out#retval }"
}

uprobe_events_removed() {
	echo "-:kpu/ent" >>$TR/uprobe_events && echo "-:kpu/ret" >>$TR/uprobe_events ||
		fail "removing the uprobe events failed" || return 1
	expect_eq "$(grep -c kpu/ $TR/uprobe_events)" 0 "kpu events left"
}

cleanup() {
	echo >$FF/inject
	[ -n "$loaded_here" ] && rmmod kptarget
}

tap_begin users 11
CLONE_BEFORE=$(clone_probes)
check "perf kprobe PMU: kernel_clone counted on each of $FORKS forks" \
	kpusers perf-kprobe kernel_clone $FORKS
check "perf kprobe PMU (retprobe bit): each of $FORKS kernel_clone returns counted" \
	kpusers perf-kretprobe kernel_clone $FORKS
check "BPF kprobe program: runs once per kernel_clone hit ($FORKS forks)" \
	kpusers bpf-kprobe kernel_clone $FORKS
check "perf and BPF users leave no probe on kernel_clone" users_leave_no_probe
# fail_function exists where the arch can override a function's return
# (HAVE_FUNCTION_ERROR_INJECTION), which every harness config asks for.
noff=
kconfig_on FAIL_FUNCTION ||
	noff="no fail_function on $(kp_arch) (no HAVE_FUNCTION_ERROR_INJECTION)"
check_unless "$noff" "kptarget loads; $FN is injectable" load_target
check_unless "$noff" "fail_function: the injected -EIO is what the call returns" injected_error_returned
check_unless "$noff" "fail_function: its kprobe is listed while injecting" listed_while_injecting
check_unless "$noff" "fail_function: inject cleared, the call succeeds again" cleared_call_succeeds
check_unless "$noff" "fail_function: its kprobe is gone after clearing" gone_after_clearing
check "uprobe events: entry and return of a user function, $UPROBE_CALLS calls, each result right" \
	uprobe_events_count_calls
check "uprobe events: removed cleanly" uprobe_events_removed
cleanup >/dev/null 2>&1
