# SPDX-License-Identifier: GPL-2.0
# The sample modules load, report hits, and unload without leaving probes.
. /kp/lib.sh

PRE="<kernel_clone> p->addr"
RET="kernel_clone returned"
LIST=/sys/kernel/debug/kprobes/list
FUNCS=/sys/kernel/tracing/enabled_functions

# kernel_clone's entry is an ftrace site, which x86 and arm64 probe through
# ftrace.  On arm64 the site is the BL after MOV X9, X30 (and a BTI, where
# the kernel has them), so the probe sits a word or two into the function.
case $(uname -m) in
x86_64) FLAGS='\[FTRACE\]' ENTRY_OFF=0x0 ;;
aarch64) FLAGS='\[FTRACE\]' ENTRY_OFF='0x[48]' ;;
*) FLAGS= ENTRY_OFF=0x0 ;;
esac

ftrace_hooked() {
	grep -q '^kernel_clone ' $FUNCS
}

# listed k|r: the sample's probe has its line, in the base's columns: a
# kernel symbol has a lone space where a module's name would be.  Where it
# fires through ftrace, kernel_clone's ftrace site is in use.
listed() {
	grep -qE "^[0-9a-f]{16}  $1  kernel_clone\+$ENTRY_OFF    $FLAGS\$" $LIST ||
		fail "no $1 line for kernel_clone: $(cat $LIST)" || return 1
	[ -z "$FLAGS" ] || ftrace_hooked || fail "kernel_clone's ftrace site is not in use"
}

# After rmmod nothing of the probe is left on kernel_clone, which keeps
# running: no line in the list, its ftrace site released, no hit reported.
gone_from_kernel_clone() {	# message-of-a-hit
	! grep kernel_clone $LIST || fail "still listed" || return 1
	if [ -n "$FLAGS" ] && ftrace_hooked; then
		fail "ftrace site still in use: $(grep '^kernel_clone ' $FUNCS)"
		return 1
	fi
	expect_eq "$(hits_during_forks "$1" 2)" 0 "hits after unload"
}

tap_begin samples 10
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
