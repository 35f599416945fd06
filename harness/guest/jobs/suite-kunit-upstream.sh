# SPDX-License-Identifier: GPL-2.0
# Compatibility: upstream's lib/test_kprobes.c, built from the base tree.
. /kp/lib.sh

say "# kp-suite: kunit-upstream"
if ! insmod /kp/ext/test_kprobes_upstream.ko 2>/tmp/insmod.err; then
	say "KTAP version 1"
	say "1..1"
	sed 's/^/# /' /tmp/insmod.err | to_kmsg
	say "not ok 1 test_kprobes_upstream # module did not load"
	exit 0
fi
rmmod test_kprobes_upstream
