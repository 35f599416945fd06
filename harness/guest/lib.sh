# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs.  Results are written to /dev/kmsg, one record per
# line, so they reach the console in order with the kernel's own messages
# and can never be torn apart by them.

cmdline_arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}

# Where results go: the kernel log, or a file (KP_SAY_TO) when the harness's
# self-test runs a suite on purpose in a doctored guest (selftest-absence.sh).
KP_SAY_TO=${KP_SAY_TO:-/dev/kmsg}

# One line, one record, but /dev/kmsg refuses a record of more than about
# 1 KB (the whole write fails): a longer line goes in pieces of 900
# characters, each after the first marked as a diagnostic that goes on.
kmsg_line() {
	if [ ${#1} -le 900 ]; then
		printf '%s\n' "$1" >>"$KP_SAY_TO"
		return
	fi
	printf '%s\n' "$1" | fold -w 900 | sed '2,$s/^/# .../' |
		while IFS= read -r piece; do
			printf '%s\n' "$piece" >>"$KP_SAY_TO"
		done
}

say() {
	kmsg_line "$*"
}

# Every line of standard input becomes one kernel log record.
to_kmsg() {
	while IFS= read -r line; do
		kmsg_line "$line"
	done
}

# The series' design, per arch: its own backends optimize, x86's (on
# x86_64 and i386) and arm64's.  Where it is by design, its sysctl and its
# tests must be there; their absence is a failure, not a skip.
arch_optimizes() {
	case $(kp_arch) in
	x86_64 | i?86 | aarch64) return 0 ;;
	esac
	return 1
}

# A kernel address as %px prints it: 16 hex digits on a 64-bit kernel, 8
# on a 32-bit one.
addr_re() {
	if kconfig_on 64BIT; then
		echo '[0-9a-f]{16}'
	else
		echo '[0-9a-f]{8}'
	fi
}

# The flags of a list line of an entry probe on a function built with
# ftrace: "[FTRACE]" where the arch has kprobes on ftrace sites (x86,
# arm64, powerpc, s390); elsewhere the probe is a breakpoint, which the
# arch's optimizer (arm's) may have optimized.
entry_flags_re() {
	if kconfig_on KPROBES_ON_FTRACE; then
		echo '\[FTRACE\]'
	elif kconfig_on OPTPROBES; then
		echo '(\[OPTIMIZED\])?'
	fi
}

# kconfig_on SYM: the kernel was built with CONFIG_SYM=y (the harness puts
# its .config in the initramfs).
kconfig_on() {
	grep -qx "CONFIG_$1=y" /kp/kernel.config
}

# entry_off FUNC: the offset at which FUNC's entry probe is listed (and
# which perf and bpf_get_func_ip() report): the function's start, or on x86
# with IBT the instruction after its ENDBR, as the base does.  Every
# function the suites probe this way is global, so the compiler gave it an
# ENDBR; a CPU with IBT would seal the ENDBRs that no indirect call needs,
# which QEMU's CPUs never do.  On powerpc64 the probe sits on the function's
# ftrace site, after the TOC setup of its global entry point: a few bytes
# in, as many as the compiler put there.
entry_off() {
	case $(kp_arch) in
	x86_64)
		kconfig_on X86_KERNEL_IBT && { echo 0x4; return 0; }
		;;
	ppc64*)
		kconfig_on KPROBES_ON_FTRACE && { ftrace_site_off "$1"; return; }
		;;
	esac
	echo 0x0
}

# ftrace_site_off FUNC: how far into FUNC its ftrace site is, from kallsyms
# and the site list of tracefs.
ftrace_site_off() {
	start=$(awk -v f="$1" '$3 == f && $2 ~ /^[tT]$/ { print $1; exit }' /proc/kallsyms)
	site=$(awk -v f="$1" '$2 == f { print $1; exit }' \
		/sys/kernel/tracing/available_filter_functions_addrs)
	[ -n "$start" ] && [ -n "$site" ] ||
		fail "no start or no ftrace site for $1 in kallsyms and tracefs" || return 1
	printf '0x%x\n' $((0x$site - 0x$start))
}

# uname -m, unless the self-test plays another arch (KP_ARCH).
kp_arch() {
	echo "${KP_ARCH:-$(uname -m)}"
}

# Every kernel the harness boots has CONFIG_KPROBES and CONFIG_DEBUG_FS
# (harness/config/common.config), so a missing probe list is a defect.
# Mounts debugfs if needed; prints what is wrong and fails otherwise.
need_probe_list() {
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -r /sys/kernel/debug/kprobes/list ] && return 0
	echo "no /sys/kernel/debug/kprobes/list on a kernel built with CONFIG_KPROBES" \
		"and CONFIG_DEBUG_FS: the series lost the debugfs files; look for" \
		"debugfs_create_file() in kernel/kprobes_debugfs.c and its init call"
	return 1
}

# Suites named by kp.only= (comma separated) run; all run when it is empty.
suite_wanted() {
	only=$(cmdline_arg kp.only)
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

# The suites' result lines come from the kselftests' own KTAP helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh), which the build
# installs with the kprobes kselftest into every initramfs.  They print to
# standard output, one echo a line: each call's output is one record here.
KP_KTAP_HELPERS=/kp/kselftest/kselftest/ktap_helpers.sh
# shellcheck source=/dev/null
[ -r "$KP_KTAP_HELPERS" ] && . "$KP_KTAP_HELPERS"

# ktap_say HELPER ARGS...: a helper's line as a result record.  The helpers
# echo their words unquoted, so globbing is off meanwhile: a "[GONE]" in a
# description must not match a file name.
ktap_say() {
	case $- in
	*f*) "$@" >>"$KP_SAY_TO" ;;
	*) set -f; "$@" >>"$KP_SAY_TO"; set +f ;;
	esac
}

tap_begin() {	# suite-name planned-count
	say "# kp-suite: $1"
	if [ ! -r "$KP_KTAP_HELPERS" ]; then
		# No result line can be written: a suite that the job's
		# kp-plan names and that reports nothing fails on the host.
		say "# $KP_KTAP_HELPERS is missing: the build installs it with the kprobes kselftest (harness/lib/build.sh, build_kselftest()); rebuild the initramfs"
		return 1
	fi
	KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
	ktap_say ktap_print_header
	ktap_say ktap_set_plan "$2"
}

tap_result() {	# ok|not-ok description
	if [ "$1" = ok ]; then
		shift
		ktap_say ktap_test_pass "$*"
	else
		shift
		ktap_say ktap_test_fail "$*"
	fi
}

# check DESCRIPTION COMMAND...: one result from a command's status, which
# it returns.
check() {
	desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		tap_result ok "$desc"
	else
		sed 's/^/# /' /tmp/check.out | to_kmsg
		tap_result not-ok "$desc"
		return 1
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

# skip DESCRIPTION REASON: "ok N DESCRIPTION # SKIP REASON".  The helpers'
# own ktap_test_skip() gives no reason, so their line printer is used.
skip() {
	ktap_say __ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

# check_unless REASON DESCRIPTION COMMAND...: check, or, when REASON (a
# design fact of the arch or config) is not empty, skip with it.
check_unless() {
	reason=$1
	shift
	if [ -n "$reason" ]; then
		skip "$1" "$reason"
	else
		check "$@"
	fi
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

# The kernel log as /dev/kmsg gives it, one "PRIO,SEQ,TIME,FLAGS;TEXT"
# record a line, without waiting for more.
klog_records() {
	timeout 1 cat /dev/kmsg 2>/dev/null
}

# The sequence number of the newest record: a mark to count from.
klog_mark() {
	klog_records | awk -F, '/^[0-9]+,[0-9]+,/ { seq = $2 } END { print seq + 0 }'
}

# How many records after MARK contain STRING.  Records are counted by their
# sequence numbers, so the count stays exact when the ring buffer wraps
# (counting lines of dmesg does not); it is "lost" when records after MARK
# were already overwritten.
klog_count_since() {	# mark string
	klog_records | awk -F, -v mark="$1" -v s="$2" '
		!/^[0-9]+,[0-9]+,/ { next }
		!seen++ && $2 > mark + 1 { lost = 1 }
		$2 > mark && index($0, s) { n++ }
		END { print lost ? "lost" : n + 0 }'
}

# The probe list less what the arch keeps there for itself from boot:
# powerpc's rethook and mips's kretprobes probe their own return
# trampoline (arch_init_kprobes()), a line that stays as long as the
# kernel runs.
probe_list() {
	grep -vE ' (arch_rethook|__kretprobe)_trampoline\+0x0 ' /sys/kernel/debug/kprobes/list
}

# How many kernel log lines containing PATTERN appear while COUNT
# processes are forked.
hits_during_forks() {	# pattern count
	mark=$(klog_mark)
	fork_some "$2"
	klog_count_since "$mark" "$1"
}

# Fork a few short-lived processes (each one passes through kernel_clone).
fork_some() {
	i=0
	while [ $i -lt "${1:-5}" ]; do
		/bin/true
		i=$((i + 1))
	done
}

# A workload that checks its own results, one loop per vCPU: a file
# written and read back, data through a pipe of two cats, a checksum of
# generated text, a child's exit status.  Any mismatch is appended to
# $1, so that a probe that runs an instruction wrongly shows as data.
CHECKED_WL=
checked_workload_start() {	# failure-file
	rm -f "$1"
	sum=$(seq 1 300 | md5sum)
	n=0
	while [ $n -lt "$(grep -c ^processor /proc/cpuinfo)" ]; do
		sh -c '
		n=$1 fail=$2 sum=$3 i=0
		while :; do
			i=$((i + 1))
			want="kp $n $i $(date +%s)"
			echo "$want" >/tmp/cw.$n
			got=$(cat /tmp/cw.$n)
			[ "$got" = "$want" ] || echo "loop $n, round $i: file read back \"$got\", wrote \"$want\"" >>$fail
			got=$(echo "$want" | cat | cat)
			[ "$got" = "$want" ] || echo "loop $n, round $i: pipe gave \"$got\"" >>$fail
			got=$(seq 1 300 | md5sum)
			[ "$got" = "$sum" ] || echo "loop $n, round $i: md5sum gave $got" >>$fail
			sh -c "exit $((i % 100))"
			[ $? = $((i % 100)) ] || echo "loop $n, round $i: exit status lost" >>$fail
		done' sh $n "$1" "$sum" &
		CHECKED_WL="$CHECKED_WL $!"
		n=$((n + 1))
	done
}

checked_workload_stop() {
	# shellcheck disable=SC2086 # a list of pids
	kill $CHECKED_WL 2>/dev/null
	wait $CHECKED_WL 2>/dev/null
	CHECKED_WL=
	return 0
}

# The functions the checked workload runs, by the function tracer: those
# called at least three times in a second (or SECONDS) outside the idle
# tasks (whose functions the busy workload hardly lets run), a name a
# line, sorted.  What the trace keeps is its buffer's worth, the last of
# the window: BUFFER_KB per CPU makes it more, for that trace only.
workload_functions() {
	t=/sys/kernel/tracing
	# "7 (expanded: 1408)" until the buffer is first used.
	kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $t/buffer_size_kb)
	echo 0 >$t/tracing_on
	echo >$t/trace
	[ -z "$2" ] || echo "$2" >$t/buffer_size_kb
	echo function >$t/current_tracer || return 1
	echo 1 >$t/tracing_on
	sleep "${1:-1}"
	echo 0 >$t/tracing_on
	awk '$1 !~ /^<idle>/ { for (i = 2; i <= NF; i++) if ($i ~ /^<-/) { n[$(i - 1)]++; break } }
	     END { for (f in n) if (n[f] >= 3) print f }' $t/trace | sort
	echo nop >$t/current_tracer
	echo >$t/trace
	[ -z "$2" ] || echo "$kb" >$t/buffer_size_kb
	echo 1 >$t/tracing_on
}
