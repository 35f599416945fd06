#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test: the matrix's arches and configuration variants
# (harness/lib/matrix.sh).  A variant's "=n" line wins over the common and
# arch fragments and is then held like any other line; an offered feature
# a variant turns off on purpose does not fail the row, one that merely
# dropped out does; an unknown variant is refused before anything builds;
# only the compilers of the arches named are installed; a build that
# failed only on errors the arch file lists as the base's passes.  make is stubbed:
# its "allnoconfig" writes the fragment's last value of each symbol as
# the .config, so no kernel is configured or built.
# shellcheck source=harness-lib.sh
. "$(dirname "$0")/harness-lib.sh"
# shellcheck source=../lib/build.sh
. "$here/harness/lib/build.sh"
# shellcheck source=../lib/matrix.sh
. "$here/harness/lib/matrix.sh"
KP_MATRIX_LOGS=$tmp/logs
mkdir -p "$KP_MATRIX_LOGS" "$tmp/src"
src_for() {
	echo "$tmp/src"
}
failures=0
fail() {
	echo "FAIL $*"
	failures=$((failures + 1))
}

# The stub: allnoconfig keeps each symbol's last line of the fragment;
# EXTRA (a file) is appended, as if Kconfig had turned something on.
kmake() {
	local a frag=
	for a in "$@"; do
		case $a in KCONFIG_ALLCONFIG=*) frag=${a#*=} ;; esac
	done
	[ -n "$frag" ] || return 0
	awk -F= '/^CONFIG_/ { v[$1] = $0; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
		END { for (i = 0; i < n; i++) { l = v[order[i]]; sub(/=n$/, "", l)
			if (l ~ /=/) print l } }' "$frag" >"$KP_BUILD_OUT/.config"
	[ -f "$tmp/extra" ] && cat "$tmp/extra" >>"$KP_BUILD_OUT/.config"
	return 0
}
run_step() {
	shift 2
	"$@"
}

# configure ARCH: matrix_configure for ARCH (or ARCH+VARIANT); its status.
configure() {
	rm -rf "$KP_OUT"
	matrix_vars project "$1"
	mkdir -p "$KP_BUILD_OUT"
	matrix_configure "$KP_MATRIX_LOGS/log" >/dev/null 2>&1
}

# A variant's "=n" wins over common.config's "=y", and comes out off.
rm -f "$tmp/extra"
configure x86_64+noftrace || fail "x86_64+noftrace did not configure: $(cat "$KP_TMP/matrix-why" 2>/dev/null)"
grep -q '^CONFIG_FUNCTION_TRACER=' "$KP_BUILD_OUT/.config" &&
	fail "x86_64+noftrace: the function tracer came out on"
grep -qx 'CONFIG_KPROBES=y' "$KP_BUILD_OUT/.config" ||
	fail "x86_64+noftrace: lost the common lines"

# The offered feature the variant turns off on purpose is not a failure;
# one that dropped out without a variant saying so is.
# (arm64's fragment does not name it: as if arm64 had begun to offer it.)
printf 'CONFIG_HAVE_KPROBES_ON_FTRACE=y\n' >"$tmp/extra"
configure arm64+noftrace || fail "arm64+noftrace failed on a feature it turns off: $(cat "$KP_TMP/matrix-why")"
configure arm64+nosmp && fail "arm64+nosmp passed without KPROBES_ON_FTRACE, which the arch offers"
grep -q 'KPROBES_ON_FTRACE is off' "$KP_TMP/matrix-why" ||
	fail "arm64+nosmp: the reason does not name KPROBES_ON_FTRACE: $(cat "$KP_TMP/matrix-why")"

# A variant line that did not come out as written fails, naming the
# variant's file.
printf 'CONFIG_SMP=y\n' >"$tmp/extra"
configure x86_64+nosmp && fail "x86_64+nosmp passed with SMP on"
grep -q 'variant-nosmp}.config' "$KP_TMP/matrix-why" ||
	fail "x86_64+nosmp: the reason does not name the variant's file: $(cat "$KP_TMP/matrix-why")"
rm -f "$tmp/extra"

# Unknown arches and variants are refused before anything builds.
for bad in x86_64+bogus m68k+nosmp arm64+nosmp; do
	if (KP_ARCHES=$bad matrix_check_arches) >/dev/null 2>&1; then
		fail "matrix_check_arches took '$bad'"
	fi
done
(KP_ARCHES="loongarch64 mips64el arm64+nopreempt" matrix_check_arches) ||
	fail "matrix_check_arches refused a good list"

# "all" is every arch and every variant of the two variant arches.
all=$(matrix_all | tr '\n' ' ')
for want in loongarch64 sparc64 x86_64+nojumplabel x86_64+nosmp arm64+kunit-builtin arm64+nokunit; do
	[[ " $all " == *" $want "* ]] || fail "matrix_all lacks $want"
done
# ... but what the arch cannot be (arm64 is always SMP).
[[ " $all " == *" arm64+nosmp "* ]] && fail "matrix_all has arm64+nosmp"

# Only the named arches' compilers: parisc64 needs both hppa compilers, a
# variant of x86_64 none, loongarch64's come from the cross tree.
pkgs=$(KP_ARCHES="parisc64 parisc x86_64+nosmp loongarch64" matrix_packages | tr '\n' ' ')
[ "$pkgs" = "gcc-hppa-linux-gnu:hppa-linux-gnu-gcc gcc-hppa64-linux-gnu:hppa64-linux-gnu-gcc " ] ||
	fail "matrix_packages gave '$pkgs'"
tree=$(KP_ARCHES="parisc64 loongarch64" matrix_packages KP_CROSS_TREE_PACKAGE)
[ "$tree" = gcc-loongarch64-linux-gnu ] || fail "matrix_packages KP_CROSS_TREE_PACKAGE gave '$tree'"

# A build that failed only on the base's own listed errors passes; one
# more error, any error in our files, or no error line at all does not.
KP_MATRIX_BASE_ERRORS=('BUILD_BUG_ON failed: 21 - 1 != HWEIGHT32')
base_err="error: ../include/linux/compiler_types.h:543:45: error: call to '__compiletime_assert_9' declared with attribute error: BUILD_BUG_ON failed: 21 - 1 != HWEIGHT32(x)"
matrix_only_base_errors "$base_err" || fail "the listed base error was not taken as the base's"
matrix_only_base_errors "$base_err"$'\n'"error: ../mm/x.c:1:1: error: something else" &&
	fail "an unlisted error passed beside the base's"
matrix_only_base_errors "$base_err"$'\n'"ours: ../kernel/kprobes.c:1:1: warning: unused" &&
	fail "a warning of ours passed beside the base's error"
matrix_only_base_errors "other-warnings: 0" && fail "a failed make without an error line passed"
KP_MATRIX_BASE_ERRORS=()
matrix_only_base_errors "$base_err" && fail "an arch without a list took a base error"

((failures == 0)) && echo "matrix variants: OK"
exit $((failures != 0))
