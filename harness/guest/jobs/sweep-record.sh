# SPDX-License-Identifier: GPL-2.0
# What this kernel lets be probed: kpsweep -m over every function an event
# accepts, kprobes and then kretprobes, each refusal recorded with its
# errno; then the instruction boundaries that register_kprobe() takes in
# the functions a workload runs (kpinsn).  kp.only= names the kinds wanted.
# Run on the base ("harness/kp sweep-record"), the records become
# harness/stress/, which the stress suite compares the project with.
. /kp/lib.sh

insmod /kp/ext/kpstress.ko || { say "# kpstress did not load"; exit 1; }
for kind in kprobe kretprobe; do
	suite_wanted $kind || continue
	flag=
	[ $kind = kretprobe ] && flag=-r
	/kp/bin/kpsweep -m $flag -s 1 -o 0 -b 1000 -t 1 -R /tmp/record.$kind -n /kp/records/own.txt >/tmp/sweep.out 2>&1
	rc=$?
	to_kmsg </tmp/sweep.out
	[ $rc = 0 ] || { say "# kpsweep failed ($rc)"; exit 1; }
	say "KP-RECORD-BEGIN $kind"
	to_kmsg </tmp/record.$kind
	say "KP-RECORD-END $kind"
done
# Every instruction boundary of 330 functions a checked workload runs, of
# at most 1 KB, picked by the function tracer (kpinsn -R), where the
# kernel has one: the stress suite needs 300 both kernels have alike.
# KASAN's inline checks make functions about twice as large, so that of
# what a second's trace keeps fewer than 300 are small enough: there the
# trace runs three seconds into a buffer of 8 MB per CPU.
if suite_wanted insn && grep -qw function /sys/kernel/tracing/available_tracers 2>/dev/null; then
	window="1"
	kconfig_on KASAN && window="3 8192"
	checked_workload_start /tmp/wl.fail
	# shellcheck disable=SC2086 # seconds and buffer size
	workload_functions $window >/tmp/insn.funcs
	/kp/bin/kpinsn -f /tmp/insn.funcs -R /tmp/record.insn -S 1024 -n 330 >/tmp/insn.out 2>&1
	rc=$?
	checked_workload_stop
	to_kmsg </tmp/insn.out
	[ $rc = 0 ] || { say "# kpinsn failed ($rc)"; exit 1; }
	say "KP-RECORD-BEGIN insn"
	to_kmsg </tmp/record.insn
	say "KP-RECORD-END insn"
fi
rmmod kpstress
