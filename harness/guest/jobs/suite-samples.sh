# SPDX-License-Identifier: GPL-2.0
# The sample modules load, report hits, and unload without leaving probes.
. /kp/lib.sh

PRE="<kernel_clone> p->addr"
RET="kernel_clone returned"
LIST=/sys/kernel/debug/kprobes/list

listed() { grep -q "kernel_clone" $LIST; }
not_listed() { ! listed; }
grew_by_at_least() {	# pattern before minimum
	[ $(($(klog_count "$1") - $2)) -ge "$3" ]
}
unchanged() { [ "$(klog_count "$1")" -eq "$2" ]; }

tap_begin samples 10
check "kprobe_example loads" modprobe kprobe_example
check "kprobe_example is listed" listed
n=$(klog_count "$PRE")
fork_some 4
# Each fork runs kernel_clone once: one pre- and one post-handler line.
check "kprobe_example reports every hit" grew_by_at_least "$PRE" "$n" 8
check "kprobe_example unloads" rmmod kprobe_example
n=$(klog_count "$PRE")
fork_some 2
check "no kprobe hits after unload" unchanged "$PRE" "$n"

check "kretprobe_example loads" modprobe kretprobe_example
n=$(klog_count "$RET")
fork_some 4
check "kretprobe_example reports every return" grew_by_at_least "$RET" "$n" 4
check "kretprobe_example unloads" rmmod kretprobe_example
n=$(klog_count "$RET")
fork_some 2
check "no kretprobe hits after unload" unchanged "$RET" "$n"
check "probe list empty after unload" not_listed
