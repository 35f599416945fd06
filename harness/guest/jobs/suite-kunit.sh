# SPDX-License-Identifier: GPL-2.0
# The in-tree KUnit suite, built as a module.
. /kp/lib.sh

say "# kp-suite: kunit"
kunit_module test_kprobes modprobe test_kprobes
