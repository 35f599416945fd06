# SPDX-License-Identifier: GPL-2.0
# The in-tree KUnit suites, built as modules: the core's (test_kprobes.ko,
# lib/test_kprobes_*.c, a suite per concern; which suites and cases are
# built differs per arch, see core_suites below), and each arch's beside
# its backend: on x86_64 the instruction class and jump optimization cases
# (arch/x86/kernel/kprobes/kprobes_{x86,opt}_kunit.c), on arm64 the
# instruction class and boosting cases
# (arch/arm64/kernel/probes/kprobes_arm64{,_boost}_kunit.c).  Each arch's
# own modules are required there: a missing one fails.
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

# The suites test_kprobes.ko must hold on this arch: kprobes_ftrace needs
# CONFIG_KPROBES_ON_FTRACE (not riscv64's, arm's or mips').
core_suites() {
	echo kprobes_core kprobes_aggr kprobes_batch kprobes_kretprobe
	kconfig_on KPROBES_ON_FTRACE && echo kprobes_ftrace
}

say "# kp-suite: kunit"
if built test_kprobes; then
	mark=$(klog_mark)
	kunit_module test_kprobes modprobe test_kprobes
	for s in $(core_suites); do
		n=$(klog_count_since "$mark" "# Subtest: $s")
		[ "$n" = 1 ] ||
			missing_suite "$s" "test_kprobes.ko ran suite $s ${n} times, not once: see lib/Makefile and the suite's file, lib/test_kprobes_*.c"
	done
else
	missing_suite test_kprobes "test_kprobes.ko was not built: CONFIG_KPROBES_SANITY_TEST=m is in harness/config/common.config"
fi
if [ "$(kp_arch)" = x86_64 ]; then
	if built kprobes_x86_kunit; then
		kunit_module kprobes_x86_kunit modprobe kprobes_x86_kunit
	else
		missing_suite kprobes_x86_kunit "kprobes_x86_kunit.ko was not built: it is built with CONFIG_KPROBES_SANITY_TEST on x86_64 by arch/x86/kernel/kprobes/Makefile"
	fi
fi
if built kprobes_opt_kunit; then
	kunit_module kprobes_opt_kunit modprobe kprobes_opt_kunit
elif [ "$(kp_arch)" = x86_64 ]; then
	missing_suite kprobes_opt_kunit "kprobes_opt_kunit.ko was not built on $(kp_arch), which optimizes by design: it is built with CONFIG_KPROBES_SANITY_TEST and CONFIG_OPTPROBES by arch/x86/kernel/kprobes/Makefile"
elif [ -e $OPT ]; then
	# The sysctl exists exactly when the kernel has CONFIG_OPTPROBES.  The
	# suite is x86_64's: its cases are x86_64 assembly.  Elsewhere the
	# optimizer is tested by the kselftest, on kernel text and, where it
	# reaches it, on module text.
	say "KTAP version 1"
	say "1..1"
	if [ "$(kp_arch)" = aarch64 ]; then
		say "ok 1 kprobes_opt_kunit # SKIP its cases are x86_64 assembly; arm64's optimizer has its own suite, kprobes_arm64_opt"
	elif arch_optimizes; then
		say "ok 1 kprobes_opt_kunit # SKIP its cases are x86_64 assembly; on $(kp_arch) the x86 optimizer is tested by the kselftest"
	else
		say "ok 1 kprobes_opt_kunit # SKIP it tests the series' x86 optimizer; $(kp_arch)'s optimizer is its own backend's, tested by the kselftest"
	fi
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
	if built kprobes_arm64_boost_kunit; then
		kunit_module kprobes_arm64_boost_kunit modprobe kprobes_arm64_boost_kunit
	else
		missing_suite kprobes_arm64_boost_kunit "kprobes_arm64_boost_kunit.ko was not built: it is built with CONFIG_KPROBES_SANITY_TEST by arch/arm64/kernel/probes/Makefile (harness/patches/20-arm64-probes-makefile-kunit.patch)"
	fi
	if built kprobes_arm64_opt_kunit; then
		kunit_module kprobes_arm64_opt_kunit modprobe kprobes_arm64_opt_kunit
	else
		missing_suite kprobes_arm64_opt_kunit "kprobes_arm64_opt_kunit.ko was not built: arm64 optimizes by design, and the suite is built with CONFIG_KPROBES_SANITY_TEST and CONFIG_OPTPROBES by arch/arm64/kernel/probes/Makefile (harness/patches/24-arm64-optprobes.patch)"
	fi
fi
