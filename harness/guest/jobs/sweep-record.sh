# SPDX-License-Identifier: GPL-2.0
# What this kernel lets be probed: kpsweep -m over every function an event
# accepts, kprobes and then kretprobes, each refusal recorded with its
# errno.  Run on the base ("harness/kp sweep-record"), the records become
# harness/stress/, which the stress suite compares the project with.
. /kp/lib.sh

insmod /kp/ext/kpstress.ko || { say "# kpstress did not load"; exit 1; }
for kind in kprobe kretprobe; do
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
rmmod kpstress
