# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the suites must fail, not skip, when something every
# harness kernel has by design is missing, and their counts must not hold
# vacuously.  Each case doctors this disposable guest (hides a module, mounts
# an empty tmpfs over a file system, edits a copy of a test), runs the real
# suite script with its results sent to a file (KP_SAY_TO), and checks that the
# script reported the failure.  The host expects every case here to pass.
. /kp/lib.sh

# The suite's results, from file $1, for the messages of a failed case.
show() {
	echo "what the suite reported:"
	sed 's/^/  /' "$1"
}

# Hide the suites' modules: every one of them must be reported as failed,
# also arm64's when the guest plays arm64.  A module left in place would
# print its KTAP on this job's console, where the host reads this job's.
# Playing arm64 on an x86_64 guest, the x86 optimizer's suite is skipped
# by name (its sysctl is there, the arch is not x86's); that skip is the
# only one allowed.
kunit_modules_missing() {
	hidden=$(find /lib/modules -name test_kprobes.ko -o -name kprobes_opt_kunit.ko \
		-o -name kprobes_x86_kunit.ko)
	[ -n "$hidden" ] || fail "no KUnit module to hide" || return 1
	for m in $hidden; do mv "$m" "$m.hidden"; done
	KP_SAY_TO=/tmp/kunit.out sh /kp/jobs/suite-kunit.sh
	KP_SAY_TO=/tmp/kunit-arm64.out KP_ARCH=aarch64 sh /kp/jobs/suite-kunit.sh
	for m in $hidden; do mv "$m.hidden" "$m"; done
	grep -qx 'not ok 1 test_kprobes' /tmp/kunit.out &&
		grep -qx 'not ok 1 kprobes_opt_kunit' /tmp/kunit.out &&
		grep -qx 'not ok 1 kprobes_x86_kunit' /tmp/kunit.out &&
		grep -qx 'not ok 1 kprobes_arm64_kunit' /tmp/kunit-arm64.out &&
		grep -qx 'not ok 1 kprobes_arm64_boost_kunit' /tmp/kunit-arm64.out &&
		grep -qx 'not ok 1 kprobes_arm64_opt_kunit' /tmp/kunit-arm64.out &&
		! grep -q SKIP /tmp/kunit.out &&
		! grep SKIP /tmp/kunit-arm64.out | grep -qv '^ok 1 kprobes_opt_kunit # SKIP' ||
		{ show /tmp/kunit.out; show /tmp/kunit-arm64.out; return 1; }
}

# An empty tmpfs over /proc/sys/debug and over debugfs: no sysctl (which
# x86_64 has by design) and no list.  The kselftest must not even start.
kselftest_without_sysctl_and_list() {
	mount -t tmpfs none /proc/sys/debug || return 1
	mount -t tmpfs none /sys/kernel/debug || return 1
	KP_SAY_TO=/tmp/kselftest.out sh /kp/jobs/suite-kselftest.sh
	umount /sys/kernel/debug
	umount /proc/sys/debug
	grep -q '^not ok 1 the sysctl debug.kprobes-optimization is there' /tmp/kselftest.out &&
		grep -q '^not ok 2 /sys/kernel/debug/kprobes/list is there' /tmp/kselftest.out &&
		! grep -q 'kp-suite: kselftest$' /tmp/kselftest.out ||
		{ show /tmp/kselftest.out; return 1; }
}

# The ring buffer's NMI limit (riscv's) played on this arch: a doctored
# config says it has no NMI-safe cmpxchg.  A case whose probe fired into an
# empty trace (tracing turned off) is that limit, and becomes a skip; a case
# failing with events in the trace (looking for one that is not there) is
# not, and stays a failure.
ftracetest_nmi_excuse() {
	rm -rf /tmp/ft
	cp -a /kp/ftrace /tmp/ft || return 1
	d=/tmp/ft/test.d/kprobe
	find $d -name '*.tc' ! -name kprobe_args.tc ! -name kprobe_args_comm.tc -exec rm {} \;
	sed -i '/^echo 1 > events\/kprobes\/testprobe\/enable/i echo 0 > tracing_on' $d/kprobe_args.tc
	grep -q '^echo 0 > tracing_on' $d/kprobe_args.tc || fail "kprobe_args.tc was not doctored" || return 1
	# The comm case looks for a record that cannot be there.
	sed -i "s/grep -q 'comm=\".\*\"'/grep -q 'comm=never-this'/" $d/kprobe_args_comm.tc
	grep -q 'comm=never-this' $d/kprobe_args_comm.tc ||
		fail "kprobe_args_comm.tc was not doctored" || return 1
	echo '# CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG is not set' | gzip >/tmp/config.gz
	KP_SAY_TO=/tmp/ftracetest.out KP_FTRACE_DIR=/tmp/ft KP_CONFIG_GZ=/tmp/config.gz \
		sh /kp/jobs/suite-ftracetest.sh
	grep -q '^ok 1 .*# SKIP kprobe events are not recorded.*fired [1-9][0-9]* times into an empty trace' \
		/tmp/ftracetest.out &&
		grep -q '^not ok 2 ' /tmp/ftracetest.out || { show /tmp/ftracetest.out; return 1; }
}

# The bad-input table with a function whose body the lookup cannot find:
# its kretprobe-off-the-entry rows must fail, not pass on a parse error.
badinput_without_body_offset() {
	k=/kp/kselftest/kprobes
	sed 's/^FUNC=kernel_clone$/FUNC=kst_no_such_function/' $k/kprobes_badinput.sh \
		>$k/kprobes_badinput_doctored.sh
	sh $k/kprobes_badinput_doctored.sh >/tmp/badinput.out 2>&1
	rm $k/kprobes_badinput_doctored.sh
	grep -q '^not ok [0-9]* event: a kretprobe off the function entry' /tmp/badinput.out &&
		grep -q '^not ok [0-9]* register: a kretprobe off the function entry' /tmp/badinput.out ||
		{ show /tmp/badinput.out; return 1; }
}

# Race and fault rounds with no caller thread: their exact checks would
# hold as 0 == 0; they must count failures instead.
kpstress_without_calls() {
	insmod /kp/ext/kpstress.ko callers=0 || return 1
	p=/sys/module/kpstress/parameters
	echo 1 >$p/run
	echo 1 >$p/faults
	race=$(cat $p/failures) faults=$(cat $p/fault_failures)
	rmmod kpstress
	[ "$race" -gt 0 ] && [ "$faults" -gt 0 ] ||
		fail "failures with no call: race $race, faults $faults"
}

# The module sweep against a record of the base that says it refused
# every function, without a record, and with a workload function that
# does not exist: each must fail.  Only a few functions, a second each.
kpsweep_differs_from_record() {
	insmod /kp/ext/kpstress.ko || return 1
	awk '$2 ~ /^[tT]$/ && NF == 3 { print $3 " EINVAL" }' /proc/kallsyms >/tmp/refuses-all.txt
	s=/kp/bin/kpsweep
	$s -m -s 2000 -b 50 -t 0 -x /tmp/refuses-all.txt >/tmp/sweep1.out 2>&1
	r1=$?
	$s -m -s 2000 -b 50 -t 0 -x /tmp/no-such-record.txt >/tmp/sweep2.out 2>&1
	r2=$?
	$s -m -s 2000 -b 50 -t 0 -w kernel_clone,kp_no_such_function >/tmp/sweep3.out 2>&1
	r3=$?
	rmmod kpstress
	[ $r1 != 0 ] && grep -q 'EINVAL in the record' /tmp/sweep1.out &&
		[ $r2 != 0 ] && grep -q "cannot read the base's record" /tmp/sweep2.out &&
		[ $r3 != 0 ] && grep -q 'kp_no_such_function: not a traceable' /tmp/sweep3.out ||
		{ show /tmp/sweep1.out; show /tmp/sweep2.out; show /tmp/sweep3.out; return 1; }
}

# Counting log records from a mark: exact, and "lost" once the ring buffer
# has overwritten records after the mark (dmesg's line counts go wrong).
klog_counts_or_reports_loss() {
	mark=$(klog_mark)
	say "kp-absence-token"
	say "kp-absence-token"
	expect_eq "$(klog_count_since "$mark" kp-absence-token)" 2 "records after the mark" ||
		return 1
	mark=$(klog_mark)
	# Debug level: kept in the buffer, off the console.  Twice the buffer.
	line=$(printf '%0100d' 0)
	i=0
	while [ $i -lt 3000 ]; do
		echo "<7>kp-flood $i $line" >/dev/kmsg
		i=$((i + 1))
	done
	expect_eq "$(klog_count_since "$mark" kp-flood)" lost "count after a wrap"
}

tap_begin absence 7
check "kunit: a suite whose module is missing fails (core, x86_64's, arm64's)" kunit_modules_missing
check "kselftest: without the sysctl (x86_64) or the list it fails, and does not run" \
	kselftest_without_sysctl_and_list
check "ftracetest: only probes that fired into an empty trace excuse a failure" ftracetest_nmi_excuse
check "kselftest bad input: no body offset fails the kretprobe rows" badinput_without_body_offset
check "kpstress: a round without calls fails its checks" kpstress_without_calls
check "log counts: exact from a mark, \"lost\" after the ring buffer wraps" \
	klog_counts_or_reports_loss
check "kpsweep: a function taken unlike the base's record, no record, a workload function missing: each fails" \
	kpsweep_differs_from_record
