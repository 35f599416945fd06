#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of --os (harness/kp): its kernels are built apart from the
# others, with harness/config/os.config last but for debug's, and the
# bench's table goes to a file of its own.
# shellcheck source=harness-lib.sh
. "$(dirname "$0")/harness-lib.sh"
# shellcheck source=../lib/build.sh
. "$here/harness/lib/build.sh"
# shellcheck source=../lib/distro.sh
. "$here/harness/lib/distro.sh"
src_for() { echo "$tmp/src-$1"; }
fail() { echo "--os: $*"; exit 1; }
KP_OUT=$tmp/out KP_DISTRO=

KP_OS= build_vars project arm64 0
[ "$KP_BUILD_OUT" = "$tmp/out/project-arm64" ] || fail "without it: $KP_BUILD_OUT"
KP_OS=1 build_vars project arm64 0
[ "$KP_BUILD_OUT" = "$tmp/out/project-arm64-os" ] || fail "its build: $KP_BUILD_OUT"
KP_OS=1 KP_DISTRO=distro build_vars base arm64 1
[ "$KP_BUILD_OUT" = "$tmp/out/base-arm64-distro-os-debug" ] ||
	fail "with --distro and --debug: $KP_BUILD_OUT"

KP_OS=1 build_vars project arm64 0
frags=$(KP_OS=1 config_fragments 0 | xargs -n1 basename | paste -sd' ')
[ "$frags" = "common.config arm64.config os.config" ] || fail "its fragments: $frags"
frags=$(KP_OS=1 config_fragments 1 | xargs -n1 basename | paste -sd' ')
[ "$frags" = "common.config arm64.config os.config debug.config" ] ||
	fail "its fragments with --debug: $frags"
frags=$(KP_OS= config_fragments 0 | xargs -n1 basename | paste -sd' ')
[ "$frags" = "common.config arm64.config" ] || fail "fragments without it: $frags"
grep -qx 'CONFIG_CC_OPTIMIZE_FOR_SIZE=y' "$here/harness/config/os.config" ||
	fail "os.config does not ask for -Os"
echo "--os self-test: ok"
