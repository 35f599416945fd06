# SPDX-License-Identifier: GPL-2.0
# Compatibility: upstream's lib/test_kprobes.c, built from the base tree.
. /kp/lib.sh

say "# kp-suite: kunit-upstream"
kunit_module test_kprobes_upstream insmod /kp/ext/test_kprobes_upstream.ko
