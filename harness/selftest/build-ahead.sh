#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the test command's build ahead (harness/lib/run.sh): the
# next kernel builds in the background at idle priority; joining it
# shows its steps and skips the build only if it succeeded and is the
# kernel asked for; any other is ended, with everything it started.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KP_WORK=$tmp/.build
# shellcheck source=../lib/common.sh
. "$here/harness/lib/common.sh"
# shellcheck source=../lib/run.sh
. "$here/harness/lib/run.sh"
KP_VARIANT=project KP_DEBUG=0 KP_DISTRO=
fail() { echo "build ahead: $*"; exit 1; }

# A build that says what it built, at what CPU policy, and fails for
# riscv64.
build() {
	stage "built $2 ${KP_DISTRO:-small}"
	echo "policy $(chrt -p "$BASHPID" | sed -n 's/.*policy: //p')"
	[ "$2" != riscv64 ]
}

build_ahead_start "arm64 distro"
KP_DISTRO=distro build_ahead_join arm64 >"$tmp/out" || fail "a good build ahead was not taken"
grep -q '(ahead) built arm64 distro$' "$tmp/out" || fail "its steps were not shown: $(cat "$tmp/out")"
grep -qx 'policy SCHED_IDLE' "$tmp/out" || fail "it did not run at idle priority: $(cat "$tmp/out")"
[ -z "$KP_AHEAD_PID" ] || fail "a joined build is still recorded"

build_ahead_start "riscv64 "
if build_ahead_join riscv64 >"$tmp/out"; then
	fail "a failed build ahead was taken"
fi
grep -q 'the build ahead failed (exit 1); building again' "$tmp/out" || fail "no word of the failure: $(cat "$tmp/out")"

# Another kernel than the one built ahead: it is not taken, and it ends,
# with what it started.
build() { sleep 300 & echo "$!" >"$tmp/child"; wait; }
build_ahead_start "arm64 "
for _ in $(seq 50); do [ -s "$tmp/child" ] && break; sleep 0.1; done
[ -s "$tmp/child" ] || fail "the build ahead did not start"
if KP_DISTRO=distro build_ahead_join arm64 >"$tmp/out"; then
	fail "the small arm64 kernel was taken for the distro one"
fi
child=$(cat "$tmp/child")
for _ in $(seq 50); do [ -d "/proc/$child" ] || break; sleep 0.1; done
[ -d "/proc/$child" ] && fail "a process of the build not taken is still running"
[ -z "$KP_AHEAD_PID" ] || fail "an ended build is still recorded"

# Off, it starts nothing.
KP_BUILD_AHEAD=0 build_ahead_start "x86_64 "
[ -z "${KP_AHEAD_PID:-}" ] || fail "KP_BUILD_AHEAD=0 started a build"
echo "build ahead self-test: ok"
