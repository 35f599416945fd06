# SPDX-License-Identifier: GPL-2.0
# Every in-guest test suite.  Each suite announces itself with
# "# kp-suite: NAME" and then prints KTAP; the host parses the console.
. /kp/lib.sh

SUITES="kunit kunit-upstream samples users kselftest ftracetest stress"
# tools needs the tools rootfs in the initramfs, which the host adds to a
# boot of its own, with kp.only=tools.
[ -n "$(cmdline_arg kp.only)" ] && SUITES="$SUITES tools"
plan=
for s in $SUITES; do suite_wanted "$s" && plan="$plan $s"; done
say "# kp-plan:$plan"

for s in $plan; do
	say "KP-STAGE suite $s"
	sh "/kp/jobs/suite-$s.sh"
done
