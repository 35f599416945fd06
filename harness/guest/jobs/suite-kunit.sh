# SPDX-License-Identifier: GPL-2.0
# The in-tree KUnit suites, built as modules: the core's, and on x86 the
# jump optimization cases (arch/x86/kernel/kprobes/kprobes_opt_kunit.c).
. /kp/lib.sh

say "# kp-suite: kunit"
kunit_module test_kprobes modprobe test_kprobes
if [ -n "$(find /lib/modules -name kprobes_opt_kunit.ko)" ]; then
	kunit_module kprobes_opt_kunit modprobe kprobes_opt_kunit
fi
