#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Shared by the kprobes selftests; sourced, with KST_DIR set to the
# directory of the test.  POSIX sh (busybox ash is enough).

. "$KST_DIR/../kselftest/ktap_helpers.sh"

KST_DEBUGFS=/sys/kernel/debug
LIST=$KST_DEBUGFS/kprobes/list
KNOB=$KST_DEBUGFS/kprobes/enabled
BLACKLIST=$KST_DEBUGFS/kprobes/blacklist
SYSCTL=/proc/sys/debug/kprobes-optimization
TRY=$KST_DIR/kprobes_try
MODS=$KST_DIR/test_modules
ADDR='[0-9a-f]{8,16}'
# The flag an entry probe of a function built with ftrace may show: on
# ftrace, or a breakpoint the arch's optimizer jump-optimized (arm).
ENTRY_FLAG='(\[FTRACE\]|\[OPTIMIZED\])?'

# kst_entry_flags FUNC: the flags of a probe at FUNC's entry, where FUNC
# is an ftrace site: x86 puts it on ftrace ([FTRACE]); others may, or
# optimize the breakpoint (arm).  A function without an ftrace site (or a
# kernel without the function tracer) shows no flag.
kst_entry_flags() {
	awk -v f="$1" '$1 == f { found = 1 } END { exit !found }' \
		"$TRACING/available_filter_functions" 2>/dev/null || return 0
	case $(uname -m) in
	x86_64 | i?86) echo '\[FTRACE\]' ;;
	*) echo "$ENTRY_FLAG" ;;
	esac
}

kst_log() {
	echo "# $*"
}

# Everything the tests need, or a "1..0 # SKIP" that says what is missing.
kst_setup() {
	[ "$(id -u)" = 0 ] || { ktap_skip_all "must be run as root"; exit "$KSFT_SKIP"; }
	[ -d $KST_DEBUGFS/kprobes ] || mount -t debugfs none $KST_DEBUGFS 2>/dev/null
	if [ ! -f $LIST ]; then
		ktap_skip_all "no $LIST: kernel without CONFIG_KPROBES or CONFIG_DEBUG_FS"
		exit "$KSFT_SKIP"
	fi
	TRACING=/sys/kernel/tracing
	[ -f $TRACING/kprobe_events ] || mount -t tracefs none $TRACING 2>/dev/null
	[ -f $TRACING/kprobe_events ] || TRACING=$KST_DEBUGFS/tracing
	EVENTS=$TRACING/kprobe_events
	if [ ! -x "$TRY" ]; then
		ktap_skip_all "$TRY is not built: run make in $KST_DIR"
		exit "$KSFT_SKIP"
	fi
	KST_ORIG_KNOB=$(cat $KNOB)
	KST_ORIG_SYSCTL=
	[ -f $SYSCTL ] && KST_ORIG_SYSCTL=$(cat $SYSCTL)
	trap kst_cleanup EXIT
}

# The start of a test that uses the test modules, and kprobe events when
# given "events": the header, a skip naming what is missing, and no test
# module left loaded by an earlier run.
kst_begin() {
	kst_setup
	ktap_print_header
	if [ "$1" = events ] && ! kst_have_events; then
		ktap_skip_all "no kprobe_events: kernel without CONFIG_KPROBE_EVENTS"
		exit "$KSFT_SKIP"
	fi
	if ! kst_have_modules; then
		ktap_skip_all "test modules not built (no KDIR when building the selftest)"
		exit "$KSFT_SKIP"
	fi
	for m in kprobes_st_reg kprobes_st_target; do
		lsmod | grep -q "^$m " && rmmod $m
	done
	return 0
}

kst_have_events() {
	[ -f "$EVENTS" ]
}

kst_have_modules() {
	[ -f "$MODS/kprobes_st_target.ko" ] && [ -f "$MODS/kprobes_st_reg.ko" ]
}

# Leave the machine as it was: our events, modules, knob and sysctl.
kst_cleanup() {
	if kst_have_events; then
		grep -o '^[pr][0-9]*:kst/[^ ]*' "$EVENTS" 2>/dev/null | while read -r ev; do
			ev=${ev#*:}
			echo 0 >"$TRACING/events/$ev/enable" 2>/dev/null
			echo "-:$ev" >>"$EVENTS" 2>/dev/null
		done
	fi
	rmmod kprobes_st_reg 2>/dev/null
	rmmod kprobes_st_target 2>/dev/null
	echo "$KST_ORIG_KNOB" >$KNOB 2>/dev/null
	[ -n "$KST_ORIG_SYSCTL" ] && echo "$KST_ORIG_SYSCTL" >$SYSCTL 2>/dev/null
	return 0
}

# kst_check DESCRIPTION FUNCTION [ARGS]: one test point.
kst_check() {
	desc=$1
	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# The errno name what kprobes_try did got, or OK.
kst_try() {
	"$TRY" "$@" 2>&1
}

# kst_expect WANT GOT WHAT: compare, saying what differed.
kst_expect() {
	[ "$1" = "$2" ] && return 0
	kst_log "$3: expected $1, got $2"
	return 1
}

# kst_listed REGEX: some line of the list is exactly REGEX (extended).
kst_listed() {
	grep -qE "^$1\$" $LIST && return 0
	kst_log "no line of $LIST is like: $1"
	sed 's/^/#   /' $LIST
	return 1
}

kst_not_listed() {
	grep -qE "$1" $LIST || return 0
	kst_log "$LIST still has a line like: $1"
	grep -E "$1" $LIST | sed 's/^/#   /'
	return 1
}

kst_list_snapshot() {
	sort $LIST
}

# Whether the arch lays a module's init code out with its core text and
# never frees it: powerpc64's module_init_section() claims no section.
# (kallsyms cannot tell: ftrace keeps the init functions' names once their
# text is freed.)
kst_keeps_module_init() {
	case $(uname -m) in
	ppc64*) return 0 ;;
	esac
	return 1
}

# powerpc optimizes a probe only within a branch's 32 MB of its detour
# buffer, which is in the kernel's own text: module text never is.
kst_module_text_optimizable() {
	case $(uname -m) in
	ppc64*) return 1 ;;
	esac
	return 0
}

# kst_sym ADDR-or-NAME: the first kallsyms address of a symbol.
kst_sym() {
	awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms
}

kst_load_target() {
	r=$(kst_try load "$MODS/kprobes_st_target.ko")
	[ "$r" = OK ] || kst_log "loading kprobes_st_target: $r"
	[ "$r" = OK ]
}

# kst_reg PARAMS: load kprobes_st_reg with PARAMS; prints OK or the errno.
kst_reg() {
	kst_try load "$MODS/kprobes_st_reg.ko" "$*"
}

kst_param() {
	cat "/sys/module/$1/parameters/$2"
}

kst_trigger() {
	echo "$1" >/sys/module/kprobes_st_target/parameters/trigger
}

# kst_event DEF: add a kprobe event; prints OK or the errno.
kst_event() {
	kst_try write "$EVENTS" "$1"
}

kst_event_drop() {
	echo 0 >"$TRACING/events/$1/enable" 2>/dev/null
	echo "-:$1" >>"$EVENTS"
}

kst_event_enable() {
	echo "$2" >"$TRACING/events/$1/enable"
}

# Hits of event NAME (without group) from kprobe_profile.
kst_event_hits() {
	awk -v e="$1" '$1 == e { print $2 }' "$TRACING/kprobe_profile"
}

# The instruction boundaries of a function, as offsets: those a probe
# registers at.  Offsets the kernel refuses with EILSEQ are skipped.
kst_body_offset() {
	off=$2
	while [ "$off" -lt 64 ]; do
		r=$(kst_event "p:kst/probe_body $1+$off")
		if [ "$r" = OK ]; then
			kst_event_drop kst/probe_body
			echo "$off"
			return 0
		fi
		off=$((off + 1))
	done
	return 1
}

# kst_first_probe EVENT AT FROM CHECK: add "p:EVENT AT+OFF" at each
# instruction boundary OFF of AT from FROM on until CHECK OFF holds (it
# prints nothing); print that OFF and keep the event.  Fails, with no
# event left, when no boundary below 64 passes.
kst_first_probe() {
	off=$3
	while off=$(kst_body_offset "$2" "$off"); do
		kst_event "p:$1 $2+$off" >/dev/null
		if "$4" "$off"; then
			echo "$off"
			return 0
		fi
		kst_event_drop "$1"
		off=$((off + 1))
	done
	return 1
}
