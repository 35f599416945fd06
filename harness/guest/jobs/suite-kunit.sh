# SPDX-License-Identifier: GPL-2.0
# KUnit suites built as modules; loading one runs it and prints KTAP.
. /kp/lib.sh

say "# kp-suite: kunit"
for m in test_kprobes; do
	if ! modprobe "$m" 2>/tmp/modprobe.err; then
		say "KTAP version 1"
		say "1..1"
		sed 's/^/# /' /tmp/modprobe.err | to_kmsg
		say "not ok 1 $m # module did not load"
		continue
	fi
	rmmod "$m"
done
