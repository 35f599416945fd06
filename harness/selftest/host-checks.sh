#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test: host checks cannot pass vacuously (harness/lib/checks.sh,
# harness/lib/matrix.sh).  kernel-doc on no file, or kernel-doc that does
# not run, fails, as does htmldocs with no file of ours to look for; a
# crash of the build-log scanner (harness/lib/matrix_scan.py) after a
# good make fails the W=1/sparse check and the matrix row, naming the
# scanner.  Everything that would build is stubbed: no kernel is built.
# shellcheck source=harness-lib.sh
. "$(dirname "$0")/harness-lib.sh"
# shellcheck source=../lib/matrix.sh
. "$here/harness/lib/matrix.sh"
# shellcheck source=../lib/checks.sh
. "$here/harness/lib/checks.sh"
# Nothing of this test lands in the checkout's out/logs.
KP_RESULTS=$tmp/logs
KP_MATRIX_LOGS=$tmp/logs
KP_SRC=$tmp/src
KP_ONLY=
mkdir -p "$KP_RESULTS" "$KP_SRC/scripts"
failures=0

# verdict JSON: "STATUS WHY" of the one case in a results file.
verdict() {
	command python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))[0]
print(c["status"], c["why"])' "$1"
}

# expect NAME STATUS [TEXT]: the last check's results ($tmp/r.json) say
# STATUS, and its reason contains TEXT.
expect() {
	local got
	got=$(verdict "$tmp/r.json")
	if [[ $got != "$2"* ]] || [[ $got != *"${3:-}"* ]]; then
		echo "FAIL $1: got \"$got\", want $2${3:+ with \"$3\"}"
		failures=$((failures + 1))
	else
		echo "ok $1"
	fi
}

ours=("kernel/kprobes.c")
matrix_our_files() {
	((${#ours[@]} == 0)) || printf '%s\n' "${ours[@]}"
}

# kernel-doc, as a script that prints $KDOC_OUT and exits $KDOC_RC.
cat >"$KP_SRC/scripts/kernel-doc" <<'EOF'
print $ENV{KDOC_OUT} // "";
exit($ENV{KDOC_RC} // 0);
EOF
export KDOC_OUT='' KDOC_RC=0
check_kerneldoc "$tmp/r.json" 2>/dev/null >&2
expect "kernel-doc: clean files pass" pass
ours=()
check_kerneldoc "$tmp/r.json" 2>/dev/null >&2
expect "kernel-doc: no file to check fails" fail "no C file or header to check"
ours=("kernel/kprobes.c" "include/linux/kprobes.h")
KDOC_OUT="Can't locate Pod/Usage.pm in @INC" KDOC_RC=2 check_kerneldoc "$tmp/r.json" 2>/dev/null >&2
expect "kernel-doc: a kernel-doc that does not run fails" fail "exited with status 2"
KDOC_OUT="kernel/kprobes.c:12: warning: Function parameter 'p' not described" \
	check_kerneldoc "$tmp/r.json" 2>/dev/null >&2
expect "kernel-doc: a warning fails" fail "1 finding(s)"

# htmldocs, with "make" stubbed: it prints $DOC_OUT.
# shellcheck disable=SC2317  # run_step calls it
make() { printf '%s\n' "$DOC_OUT"; }
DOC_OUT="$KP_SRC/Documentation/trace/kprobes.rst:12: WARNING: bad"
ours=("Documentation/trace/kprobes.rst")
check_htmldocs "$tmp/r.json" >/dev/null 2>&1
expect "htmldocs: a warning naming our document fails" fail "1 warning(s)"
DOC_OUT="$KP_SRC/Documentation/trace/ftrace.rst:12: WARNING: not ours"
check_htmldocs "$tmp/r.json" >/dev/null 2>&1
expect "htmldocs: a warning naming another document passes" pass
ours=()
check_htmldocs "$tmp/r.json" >/dev/null 2>&1
expect "htmldocs: no file of ours to look for fails" fail "no warning could name a file of ours"
unset -f make

# The scanner, as a crash ($SCAN=crash: a traceback, exit 1), output cut
# short ($SCAN=short: exit 0, no last line), or itself.
python3() {
	if [[ ${1:-} == */matrix_scan.py ]]; then
		case ${SCAN:-} in
		crash)
			echo "ours: kernel/kprobes.c:1:1: warning: a line before the crash"
			printf '%s\n' 'Traceback (most recent call last):' \
				'  File "harness/lib/matrix_scan.py", line 99, in scan' \
				'KeyError: 0' >&2
			return 1
			;;
		short) return 0 ;;
		esac
	fi
	command python3 "$@"
}

# W=1/sparse: "make" (kmake) succeeds; the W=1 build prints $BUILD_OUT.
kmake() {
	[[ " $* " != *" W=1 "* ]] || printf '%s\n' "${BUILD_OUT:-}"
}
arch_vars x86_64
KP_BUILD_OUT=$tmp/main
KP_OUT=$tmp/out
ours=("kernel/kprobes.c")
mkdir -p "$KP_BUILD_OUT/kernel"
touch "$KP_BUILD_OUT/kernel/kprobes.o" "$KP_BUILD_OUT/.config"
SCAN='' check_w1_sparse "$tmp/r.json" >/dev/null 2>&1
expect "w1-sparse: a clean build passes" pass
BUILD_OUT="$KP_SRC/kernel/kprobes.c:3:5: warning: unused variable 'x'" SCAN='' \
	check_w1_sparse "$tmp/r.json" >/dev/null 2>&1
expect "w1-sparse: our warning fails" fail "1 finding(s)"
SCAN=crash check_w1_sparse "$tmp/r.json" >/dev/null 2>&1
expect "w1-sparse: a scanner crash after a good make fails" fail \
	"matrix_scan.py did not finish reading"
grep -q "KeyError: 0" <<<"$(verdict "$tmp/r.json")" || {
	echo "FAIL w1-sparse: the crash's last words are not in the reason"
	failures=$((failures + 1))
}
SCAN=short check_w1_sparse "$tmp/r.json" >/dev/null 2>&1
expect "w1-sparse: a scan cut short fails" fail "no last line"

# The matrix row: the configuration and the build succeed (stubs).
matrix_configure() { :; }
src_for() { echo "$KP_SRC"; }
KP_ARCHES=x86_64
KP_VARIANT=project
# row SCAN WANT TEXT: run_matrix's summary with the scanner as SCAN says.
row() {
	local rc=0
	SCAN=$1 run_matrix >"$tmp/matrix.out" 2>&1 || rc=$?
	if ! grep -q "^$2 x86_64" "$tmp/matrix.out" || ! grep -qF -- "$3" "$tmp/matrix.out" ||
		{ [ "$2" = PASS ] && ((rc != 0)); } || { [ "$2" = FAIL ] && ((rc == 0)); }; then
		echo "FAIL matrix: with the scanner '${1:-itself}', want $2 and \"$3\" (exit $rc):"
		sed 's/^/    /' "$tmp/matrix.out"
		failures=$((failures + 1))
	else
		echo "ok matrix: with the scanner '${1:-itself}', the row is $2"
	fi
}
row '' PASS "1 passed, 0 failed"
row crash FAIL "matrix_scan.py did not finish reading"
row short FAIL "matrix_scan.py did not finish reading"

((failures == 0)) || { echo "host checks self-test: $failures failure(s)"; exit 1; }
echo "host checks self-test: ok"
