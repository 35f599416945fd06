#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test: a kernel that does not build fails build(), also where build()
# runs as an "if" condition (bash's errexit is off there), and no later
# step runs on the stale output of an earlier build.  The failure names
# the step that failed: a guest program that does not compile is not a
# kernel that does not build.
# shellcheck source=harness-lib.sh
. "$(dirname "$0")/harness-lib.sh"
# shellcheck source=../lib/build.sh
. "$here/harness/lib/build.sh"

configure() { :; }
kmake() {
	echo "kmake $*" >>"$tmp/calls"
	return 2
}

if (build project x86_64 0) 2>"$tmp/err"; then
	echo "build() succeeded although the kernel build failed"
	exit 1
fi
calls=$(wc -l <"$tmp/calls")
[ "$calls" = 1 ] || { echo "build() went on after the failure:"; cat "$tmp/calls"; exit 1; }
grep -q 'failed (exit 2)' "$tmp/err" || { echo "no failure message"; cat "$tmp/err"; exit 1; }
step=$(take_failed_step "nothing recorded")
[[ $step == "building project-x86_64 failed"* ]] ||
	{ echo "kernel build failure reported as: $step"; exit 1; }

# The kernel and modules build; a guest program does not.
kmake() { mkdir -p "$KP_BUILD_OUT/modroot"; }
build_external() { :; }
gcc() { return 1; }
if (build project x86_64 0) 2>"$tmp/err"; then
	echo "build() succeeded although a guest program did not compile"
	exit 1
fi
step=$(take_failed_step "nothing recorded")
[[ $step == "building "kp*".c failed"* ]] ||
	{ echo "guest program failure reported as: $step"; exit 1; }
echo "build failure self-test: ok"
