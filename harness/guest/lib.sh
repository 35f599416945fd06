# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs.  Results are written to /dev/kmsg, one record per
# line, so they reach the console in order with the kernel's own messages
# and can never be torn apart by them.

cmdline_arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}

say() {
	printf '%s\n' "$*" >/dev/kmsg
}

# Every line of standard input becomes one kernel log record.
to_kmsg() {
	while IFS= read -r line; do
		printf '%s\n' "$line" >/dev/kmsg
	done
}

# Suites named by kp.only= (comma separated) run; all run when it is empty.
suite_wanted() {
	only=$(cmdline_arg kp.only)
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

# Minimal KTAP producer for shell-level tests.
tap_begin() {	# suite-name planned-count
	say "# kp-suite: $1"
	say "KTAP version 1"
	say "1..$2"
	TAP_N=0
}

tap_result() {	# ok|not-ok description [# directive]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = ok ]; then
		shift
		say "ok $TAP_N $*"
	else
		shift
		say "not ok $TAP_N $*"
	fi
}

# check DESCRIPTION COMMAND...: one result from a command's status.
check() {
	desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		tap_result ok "$desc"
	else
		sed 's/^/# /' /tmp/check.out | to_kmsg
		tap_result not-ok "$desc"
	fi
}

# For the commands check runs: say what went wrong, and fail.
fail() {
	echo "$*"
	return 1
}

expect_eq() {	# got want what
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}

# expect_splat KIND COMMAND...: run a command that makes the kernel report
# one splat on purpose.  The host's verdict (harness/lib/ktap.py) accepts
# splats of KIND, and only of KIND, between the two markers, and fails the
# run if none appears there; KIND must be one it knows (EXPECTABLE).
expect_splat() {
	kind=$1
	shift
	say "# kp-expect-splat: $kind"
	"$@"
	rc=$?
	say "# kp-expect-splat-end"
	return $rc
}

skip() {	# description reason
	tap_result ok "$1 # SKIP $2"
}

# Run a KUnit module: loading it runs its suites, which print KTAP.  A
# module that does not load is reported as a failed case of its own.
kunit_module() {	# name load-command...
	name=$1
	shift
	if ! "$@" 2>/tmp/kunit-load.err; then
		say "KTAP version 1"
		say "1..1"
		sed 's/^/# /' /tmp/kunit-load.err | to_kmsg
		say "not ok 1 $name # module did not load"
		return
	fi
	rmmod "$name"
}

# Count kernel log lines that contain a fixed string.
klog_count() {
	dmesg | grep -cF -- "$1"
}

probe_list() {
	cat /sys/kernel/debug/kprobes/list
}

# How many kernel log lines containing PATTERN appear while COUNT
# processes are forked.
hits_during_forks() {	# pattern count
	before=$(klog_count "$1")
	fork_some "$2"
	echo $(($(klog_count "$1") - before))
}

# Fork a few short-lived processes (each one passes through kernel_clone).
fork_some() {
	i=0
	while [ $i -lt "${1:-5}" ]; do
		/bin/true
		i=$((i + 1))
	done
}
