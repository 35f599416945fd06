#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of .ci/run's last line: the sum of the test command's count
# and the matrix's, "N passed, N failed, N skipped" alone on the last
# line, and a non-zero exit if either failed.  .ci/run and .ci/total run
# in a scratch copy where harness/kp is a stub that prints sample outputs:
# nothing is built.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p/.ci" "$tmp/p/harness"
cp "$here/.ci/run" "$tmp/p/.ci/"
[ ! -e "$here/.ci/total" ] || cp "$here/.ci/total" "$tmp/p/.ci/"
# The stub: "harness/kp CMD ..." prints $tmp/CMD.out and exits with the
# status in $tmp/CMD.rc.
cat >"$tmp/p/harness/kp" <<EOF
#!/bin/sh
cat "$tmp/\$1.out"
exit \$(cat "$tmp/\$1.rc")
EOF
chmod +x "$tmp/p/harness/kp"
failures=0

# The end of "harness/kp test": each boot's count, then the summary.
test_out() {	# passed failed skipped
	cat <<EOF
[0:01] harness self-tests
harness: 40 passed, 0 failed, 0 skipped
[29:10] booting project-riscv64-test (console: out/logs/project-riscv64-test.console.log, timeout 1800s)
project-riscv64-test: 200 passed, $2 failed, $3 skipped

Summary:
  SKIP project-riscv64-test:ftracetest/Kprobe dynamic event with function tracer -- no ftrace
$( (($3)) && echo "$3 skipped (named above)" || echo "0 skipped")
$1 passed, $2 failed
EOF
}

matrix_out() {	# PASS|FAIL
	cat <<EOF
[0:01] building matrix-project-powerpc64le (log: out/logs/matrix-project-powerpc64le.log)

matrix (project):
$1 powerpc64le   190s
$([ "$1" = PASS ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed")
EOF
}

# case NAME WANT-STATUS WANT-LAST-LINE: run .ci/run on the outputs set up.
case_() {
	local rc=0 last
	(cd "$tmp/p" && sh .ci/run) >"$tmp/ci.out" 2>&1 || rc=$?
	last=$(tail -n 1 "$tmp/ci.out")
	if [ "$last" != "$3" ] || { [ "$2" = 0 ] && ((rc != 0)); } ||
		{ [ "$2" != 0 ] && ((rc == 0)); }; then
		echo "FAIL $1: want exit ${2/1/non-zero} and last line \"$3\"; got exit $rc and:"
		tail -n 6 "$tmp/ci.out" | sed 's/^/    /'
		failures=$((failures + 1))
	else
		echo "ok $1"
	fi
}

test_out 590 0 2 >"$tmp/test.out"; echo 0 >"$tmp/test.rc"
matrix_out PASS >"$tmp/matrix.out"; echo 0 >"$tmp/matrix.rc"
case_ "both pass: the sum, skips included" 0 "591 passed, 0 failed, 2 skipped"

test_out 585 5 2 >"$tmp/test.out"; echo 1 >"$tmp/test.rc"
case_ "the tests fail: the matrix still runs, the sum fails" 1 "586 passed, 5 failed, 2 skipped"

test_out 590 0 0 >"$tmp/test.out"; echo 0 >"$tmp/test.rc"
matrix_out FAIL >"$tmp/matrix.out"; echo 1 >"$tmp/matrix.rc"
case_ "the matrix fails" 1 "590 passed, 1 failed, 0 skipped"

printf '[0:03] error: missing packages (flex); run as root to install them\n' >"$tmp/test.out"
echo 1 >"$tmp/test.rc"
matrix_out PASS >"$tmp/matrix.out"; echo 0 >"$tmp/matrix.rc"
case_ "the tests stop before any count: one failure" 1 "1 passed, 1 failed, 0 skipped"
grep -q 'harness/kp test: exited with status 1 and printed no' "$tmp/ci.out" ||
	{ echo "FAIL: the command without a count is not named"; failures=$((failures + 1)); }

test_out 590 0 2 >"$tmp/test.out"; echo 2 >"$tmp/test.rc"
case_ "the tests exit non-zero after a clean count: one failure" 1 \
	"591 passed, 1 failed, 2 skipped"

((failures == 0)) || { echo ".ci/run self-test: $failures failure(s)"; exit 1; }
echo ".ci/run self-test: ok"
