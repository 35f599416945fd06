# SPDX-License-Identifier: GPL-2.0
# The demo: sample modules report their hits, then the probe list is shown
# with jump optimization on, off and on again.
. /kp/lib.sh

show() {
	say "\$ $*"
	sh -c "$*" 2>&1 | to_kmsg
}

PROBES=/sys/kernel/debug/kprobes
OPT=/proc/sys/debug/kprobes-optimization
EVENTS=/sys/kernel/tracing/kprobe_events

say "=== kprobe sample: pre- and post-handler on kernel_clone"
show modprobe kprobe_example
hits=$(hits_during_forks "<kernel_clone> p->addr" 3)
say "kprobe_example: $hits handler reports for 3 forks"
status=0
[ "$hits" -ge 6 ] || { say "DEMO FAILED: expected a pre- and a post-handler report per fork"; status=1; }

say "=== kretprobe sample: return handler on kernel_clone"
show modprobe kretprobe_example
hits=$(hits_during_forks "kernel_clone returned" 3)
say "kretprobe_example: $hits return reports for 3 forks"
[ "$hits" -ge 3 ] || { say "DEMO FAILED: expected a return report per fork"; status=1; }

# The samples print on every hit; from here on keep their KERN_INFO lines
# off the console (they stay in dmesg).  Our own lines are KERN_WARNING.
say "(sample handler messages now go to dmesg only)"
echo 5 >/proc/sys/kernel/printk

# An enabled kprobe event inside the function body, where a jump can
# replace the breakpoint.  The first instruction boundary wins.
off=1
while [ $off -lt 64 ]; do
	echo "p:kpdemo/inner kernel_clone+$off" >>$EVENTS 2>/dev/null && break
	off=$((off + 1))
done
echo 1 >/sys/kernel/tracing/events/kpdemo/inner/enable
say "=== kprobe event kpdemo/inner at kernel_clone+$off"
sleep 2

show cat $PROBES/list
if [ -e $OPT ]; then
	say "=== debug.kprobes-optimization=0"
	show "echo 0 > $OPT"
	show cat $PROBES/list
	say "=== debug.kprobes-optimization=1"
	show "echo 1 > $OPT"
	sleep 2
	show cat $PROBES/list
else
	say "=== $(uname -m) has no jump optimization: $OPT does not exist"
fi

fork_some 2
say "=== trace of kpdemo/inner"
grep -v '^#' /sys/kernel/tracing/trace | tail -n 4 | to_kmsg

echo 0 >/sys/kernel/tracing/events/kpdemo/inner/enable
echo "-:kpdemo/inner" >>$EVENTS
show rmmod kretprobe_example
show rmmod kprobe_example
say "=== after unloading"
show cat $PROBES/list
echo 7 >/proc/sys/kernel/printk
exit $status
