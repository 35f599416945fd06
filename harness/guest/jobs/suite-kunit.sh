# SPDX-License-Identifier: GPL-2.0
# The in-tree KUnit suites, built as modules: the core's, and on x86 the
# jump optimization cases (arch/x86/kernel/kprobes/kprobes_opt_kunit.c), on
# arm64 the instruction class cases (arch/arm64/kernel/probes/kprobes_arm64_kunit.c).
. /kp/lib.sh

OPT=/proc/sys/debug/kprobes-optimization

say "# kp-suite: kunit"
kunit_module test_kprobes modprobe test_kprobes
if [ -n "$(find /lib/modules -name kprobes_opt_kunit.ko)" ]; then
	kunit_module kprobes_opt_kunit modprobe kprobes_opt_kunit
else
	# The sysctl exists exactly when the kernel has CONFIG_OPTPROBES: a
	# kernel that optimizes must also have built the suite for it.
	say "KTAP version 1"
	say "1..1"
	if [ -e $OPT ]; then
		say "# $OPT exists, but kprobes_opt_kunit.ko was not built"
		say "not ok 1 kprobes_opt_kunit"
	else
		say "ok 1 kprobes_opt_kunit # SKIP no jump optimization in this kernel (CONFIG_OPTPROBES=n)"
	fi
fi
if [ -n "$(find /lib/modules -name kprobes_arm64_kunit.ko)" ]; then
	kunit_module kprobes_arm64_kunit modprobe kprobes_arm64_kunit
fi
