# SPDX-License-Identifier: GPL-2.0
# The in-tree KUnit suites, built as modules: the core's (lib/test_kprobes.c;
# some cases are x86_64's or arm64's only and compiled out elsewhere, so
# the count differs per arch), and on x86 the jump optimization cases
# (arch/x86/kernel/kprobes/kprobes_opt_kunit.c), on arm64 the instruction
# class cases (arch/arm64/kernel/probes/kprobes_arm64_kunit.c).  Each arch's
# own module is required there: a missing one fails.
. /kp/lib.sh

OPT=/proc/sys/debug/kprobes-optimization

# missing_suite NAME WHY: a suite whose module was not built, as a failed case.
missing_suite() {
	say "KTAP version 1"
	say "1..1"
	say "# $2"
	say "not ok 1 $1"
}

# Whether the kernel built the suite's module.
built() {
	[ -n "$(find /lib/modules -name "$1.ko")" ]
}

say "# kp-suite: kunit"
if built test_kprobes; then
	kunit_module test_kprobes modprobe test_kprobes
else
	missing_suite test_kprobes "test_kprobes.ko was not built: CONFIG_KPROBES_SANITY_TEST=m is in harness/config/common.config"
fi
if built kprobes_opt_kunit; then
	kunit_module kprobes_opt_kunit modprobe kprobes_opt_kunit
elif arch_optimizes; then
	missing_suite kprobes_opt_kunit "kprobes_opt_kunit.ko was not built on $(kp_arch), which optimizes by design: it is built with CONFIG_KPROBES_SANITY_TEST and CONFIG_OPTPROBES by arch/x86/kernel/kprobes/Makefile"
elif [ -e $OPT ]; then
	# The sysctl exists exactly when the kernel has CONFIG_OPTPROBES: a
	# kernel that optimizes must also have built the suite for it.
	missing_suite kprobes_opt_kunit "$OPT exists, but kprobes_opt_kunit.ko was not built"
else
	say "KTAP version 1"
	say "1..1"
	say "ok 1 kprobes_opt_kunit # SKIP no jump optimization in this kernel (CONFIG_OPTPROBES=n)"
fi
if [ "$(kp_arch)" = aarch64 ]; then
	if built kprobes_arm64_kunit; then
		kunit_module kprobes_arm64_kunit modprobe kprobes_arm64_kunit
	else
		missing_suite kprobes_arm64_kunit "kprobes_arm64_kunit.ko was not built: it is built with CONFIG_KPROBES_SANITY_TEST by arch/arm64/kernel/probes/Makefile (harness/patches/20-arm64-probes-makefile-kunit.patch)"
	fi
fi
