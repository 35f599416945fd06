#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the test command's builds ahead (harness/lib/run.sh): the
# kernels build in the background, in order, at idle priority; joining
# one shows its steps and skips its build only if it succeeded and is the
# kernel asked for; stopping ends them with everything they started.
# shellcheck source=harness-lib.sh
. "$(dirname "$0")/harness-lib.sh"
# shellcheck source=../lib/run.sh
. "$here/harness/lib/run.sh"
KP_VARIANT=project KP_DEBUG=0 KP_DISTRO=
fail() { echo "build ahead: $*"; exit 1; }

# A build that says what it built, in what order and at what CPU policy,
# and that fails for riscv64.
build() {
	stage "built $2 ${KP_DISTRO:-small}"
	echo "$2 ${KP_DISTRO:-small}" >>"$tmp/order"
	echo "policy $(chrt -p "$BASHPID" | sed -n 's/.*policy: //p')"
	[ "$2" != riscv64 ]
}

build_ahead_start "arm64 distro" "riscv64 " "arm64 " >/dev/null
KP_DISTRO=distro build_ahead_join arm64 >"$tmp/out" || fail "a good build ahead was not taken"
grep -q '(ahead) built arm64 distro$' "$tmp/out" || fail "its steps were not shown: $(cat "$tmp/out")"
grep -qx 'policy SCHED_IDLE' "$tmp/out" || fail "it did not run at idle priority: $(cat "$tmp/out")"
if build_ahead_join riscv64 >"$tmp/out"; then
	fail "a failed build ahead was taken"
fi
grep -q 'the build ahead failed (exit 1); building again' "$tmp/out" ||
	fail "no word of the failure: $(cat "$tmp/out")"
build_ahead_join arm64 >"$tmp/out" || fail "the build after a failed one was not taken"
if build_ahead_join x86_64 >"$tmp/out"; then
	fail "a kernel that was not built ahead was taken"
fi
[ "$(paste -sd, "$tmp/order")" = "arm64 distro,riscv64 small,arm64 small" ] ||
	fail "built out of order: $(paste -sd, "$tmp/order")"

# Stopped, the builds end, with what they started.
build() { sleep 300 & echo "$!" >"$tmp/child"; wait; }
build_ahead_start "arm64 " "x86_64 " >/dev/null
for _ in $(seq 50); do [ -s "$tmp/child" ] && break; sleep 0.1; done
[ -s "$tmp/child" ] || fail "the build ahead did not start"
build_ahead_stop
child=$(cat "$tmp/child")
for _ in $(seq 50); do [ -d "/proc/$child" ] || break; sleep 0.1; done
[ -d "/proc/$child" ] && fail "a process of a stopped build is still running"
if build_ahead_join arm64 >"$tmp/out"; then
	fail "a stopped build was taken"
fi

# Off, it starts nothing.
KP_BUILD_AHEAD=0 build_ahead_start "x86_64 "
[ -z "${KP_AHEAD_PID:-}" ] || fail "KP_BUILD_AHEAD=0 started a build"
echo "build ahead self-test: ok"
