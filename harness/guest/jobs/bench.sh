# SPDX-License-Identifier: GPL-2.0
# One kpbench load per measurement; the host builds the table from the
# "kpbench:" lines.  Meant for a guest booted with -icount shift=0.
. /kp/lib.sh

OPT=/proc/sys/debug/kprobes-optimization

set_optimization() {
	if [ -w $OPT ]; then echo "$1" >$OPT; fi
}

measure() {	# kind optimization(0|1)
	set_optimization "$2"
	say "KP-STAGE bench $1"
	if insmod /kp/ext/kpbench.ko kind="$1" 2>/tmp/insmod.err; then
		rmmod kpbench
	else
		say "kpbench: kind=$1 failed: $(cat /tmp/insmod.err)"
	fi
}

# What an ftrace direct call to a trampoline that only counts costs, and
# one that saves and restores a pt_regs around a C call.
measure floor 1
measure floorregs 1
measure entry 1
measure int3 0
measure int3post 0
measure branch 0
measure load 0
measure kretprobe 1
# A kprobe joining a kretprobe on the same entry, as the sample's "kr".
measure kr 1
measure crowd 0
measure spread 0
measure spread16k 0
measure entries 0
# One probe per call, as the tools register and unregister them.
measure lone 0
measure loneret 0
measure crowd1k 1
measure optpost 1
measure optret 1
# The tracing tools' ways of making probes: kprobe events through tracefs
# and the perf kprobe PMU (harness/guest-progs/kpevents.c).
say "KP-STAGE bench events"
/kp/bin/kpevents events 2000 2>&1 | to_kmsg
say "KP-STAGE bench pmu"
/kp/bin/kpevents pmu 1000 2>&1 | to_kmsg
# Last: on the base, registering again at the address of an optimized probe
# whose module was reloaded meanwhile trips a WARN in reuse_unused_kprobe()
# (notes/design-core.md, "Found in the base").
measure opt 1
set_optimization 1
