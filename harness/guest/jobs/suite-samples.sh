# SPDX-License-Identifier: GPL-2.0
# The sample modules load, report hits, and unload without leaving probes.
. /kp/lib.sh

PRE="<kernel_clone> p->addr"
RET="kernel_clone returned"
LIST=/sys/kernel/debug/kprobes/list

listed() { grep -q "kernel_clone" $LIST; }
not_listed() { ! listed; }

tap_begin samples 10
check "kprobe_example loads" modprobe kprobe_example
check "kprobe_example is listed" listed
# Each fork runs kernel_clone once: one pre- and one post-handler line.
check "kprobe_example reports every hit" test "$(hits_during_forks "$PRE" 4)" -ge 8
check "kprobe_example unloads" rmmod kprobe_example
check "no kprobe hits after unload" test "$(hits_during_forks "$PRE" 2)" -eq 0

check "kretprobe_example loads" modprobe kretprobe_example
check "kretprobe_example reports every return" test "$(hits_during_forks "$RET" 4)" -ge 4
check "kretprobe_example unloads" rmmod kretprobe_example
check "no kretprobe hits after unload" test "$(hits_during_forks "$RET" 2)" -eq 0
check "probe list empty after unload" not_listed
