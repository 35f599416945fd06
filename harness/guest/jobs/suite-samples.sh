# SPDX-License-Identifier: GPL-2.0
# The sample modules load, report hits, and unload without leaving probes.
# kretprobe_latency, loaded with pid= of this shell, times exactly the
# forks the shell makes: its debugfs histogram's buckets add up to its
# call count, and so does the histogram it logs at unload.
. /kp/lib.sh

PRE="<kernel_clone> p->addr"
RET="kernel_clone returned"
LIST=/sys/kernel/debug/kprobes/list
FUNCS=/sys/kernel/tracing/enabled_functions
HIST=/sys/kernel/debug/kretprobe_latency/histogram

# kernel_clone's entry is an ftrace site, which the arches with kprobes on
# ftrace probe through ftrace.  The probe is listed at the function's
# start (after its ENDBR on x86 with IBT, entry_off): arm64's rides the
# site, the BL after MOV X9, X30, from the first instruction.
FLAGS=$(entry_flags_re)
ON_FTRACE=
kconfig_on KPROBES_ON_FTRACE && ON_FTRACE=1
ENTRY_OFF=$(entry_off kernel_clone)
ADDR=$(addr_re)

ftrace_hooked() {
	grep -q '^kernel_clone ' $FUNCS
}

# listed k|r: the sample's probe has its line, in the base's columns: a
# kernel symbol has a lone space where a module's name would be.  Where it
# fires through ftrace, kernel_clone's ftrace site is in use.
listed() {
	grep -qE "^$ADDR  $1  kernel_clone\+$ENTRY_OFF    $FLAGS\$" $LIST ||
		fail "no $1 line for kernel_clone: $(cat $LIST)" || return 1
	[ -z "$ON_FTRACE" ] || ftrace_hooked || fail "kernel_clone's ftrace site is not in use"
}

# After rmmod nothing of the probe is left on kernel_clone, which keeps
# running: no line in the list, its ftrace site released, no hit reported.
gone_from_kernel_clone() {	# message-of-a-hit
	! grep kernel_clone $LIST || fail "still listed" || return 1
	if [ -n "$ON_FTRACE" ] && ftrace_hooked; then
		fail "ftrace site still in use: $(grep '^kernel_clone ' $FUNCS)"
		return 1
	fi
	expect_eq "$(hits_during_forks "$1" 2)" 0 "hits after unload"
}

# The latency sample's histogram, from debugfs, into CALLS (the calls it
# timed) and SUM (what its buckets add up to).  Shell builtins only: the
# sample times this shell's forks, and reading must not add one.
latency_read() {
	CALLS=
	SUM=0
	while read -r a b c d e rest; do
		case "$a $d" in
		"kernel_clone: "*) CALLS=$b ;;
		*" ns:") SUM=$((SUM + e)) ;;
		esac
	done <$HIST
	[ -n "$CALLS" ] || fail "no 'kernel_clone: N calls' line in $HIST"
}

# Forks made while the sample times this shell are each timed once, and
# the buckets add up to the calls timed.
latency_counts_forks() {
	latency_read || return 1
	before=$CALLS
	fork_some 5
	latency_read || return 1
	expect_eq $((CALLS - before)) 5 "calls timed during 5 forks" || return 1
	expect_eq "$SUM" "$CALLS" "sum of the debugfs buckets" || return 1
	LATENCY_SEEN=$CALLS
}

# At unload the histogram goes to the log: its buckets add up to its call
# count, which is what debugfs showed plus at most rmmod's own fork.
latency_logged() {
	dmesg | sed -n 's/.*kretprobe_latency: //p' | awk -v seen="${LATENCY_SEEN:-0}" '
		/^kernel_clone: [0-9]+ calls, [0-9]+ missed$/ { calls = $2; missed = $4; sum = 0; head = 1; next }
		head && / ns: [0-9]+ \|@*$/ { sum += $5 }
		END {
			if (!head) { print "no histogram in the log"; exit 1 }
			if (sum != calls) { print "buckets add up to " sum ", header says " calls; exit 1 }
			if (calls < seen || calls > seen + 1) {
				print calls " calls logged, debugfs showed " seen " before rmmod"; exit 1
			}
			if (missed != 0) { print missed " calls missed"; exit 1 }
		}'
}

latency_gone() {
	! grep kernel_clone $LIST || fail "still listed" || return 1
	[ ! -e $HIST ] || fail "$HIST is still there"
	if [ -n "$ON_FTRACE" ] && ftrace_hooked; then
		fail "ftrace site still in use: $(grep '^kernel_clone ' $FUNCS)"
	fi
}

tap_begin samples 16
check "kprobe_example loads" modprobe kprobe_example
check "kprobe_example is listed" listed k
# Each fork runs kernel_clone once: one pre- and one post-handler line.
check "kprobe_example reports every hit" test "$(hits_during_forks "$PRE" 4)" -ge 8
check "kprobe_example unloads" rmmod kprobe_example
check "after unload: no kprobe on kernel_clone (list, ftrace site, hits)" \
	gone_from_kernel_clone "$PRE"

check "kretprobe_example loads" modprobe kretprobe_example
check "kretprobe_example is listed" listed r
check "kretprobe_example reports every return" test "$(hits_during_forks "$RET" 4)" -ge 4
check "kretprobe_example unloads" rmmod kretprobe_example
check "after unload: no kretprobe on kernel_clone (list, ftrace site, hits)" \
	gone_from_kernel_clone "$RET"

check "kretprobe_latency loads, timing this shell's calls" modprobe kretprobe_latency pid=$$
check "kretprobe_latency is listed" listed r
check "kretprobe_latency times every fork; its buckets add up (debugfs)" latency_counts_forks
check "kretprobe_latency unloads" rmmod kretprobe_latency
check "kretprobe_latency logs its histogram at unload, adding up" latency_logged
check "after unload: no kretprobe on kernel_clone, no debugfs file" latency_gone
