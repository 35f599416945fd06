#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The files under /sys/kernel/debug/kprobes/ and the optimization sysctl:
# the "list" line of a kprobe and a kretprobe in each state, the "stats"
# lines beside them, the "enabled" knob, the "blacklist" file and
# debug.kprobes-optimization.
KST_DIR=$(dirname "$0")
. "$KST_DIR/kprobes_lib.sh"

# kernel_clone is called by every fork, so the tests can make it hit.
TARGET=kernel_clone
# Where an entry probe lands: some arches move it to the function's
# ftrace call site, a few bytes in.
OFF='0x[0-9a-f]+'
FTRACE_ENABLED=/proc/sys/kernel/ftrace_enabled

entry_flags() {
	kst_entry_flags $TARGET
}

forks() {
	i=0
	while [ $i -lt "$1" ]; do
		/bin/true
		i=$((i + 1))
	done
}

kprobe_listed_disabled() {
	kst_expect OK "$(kst_event "p:kst/entry $TARGET")" "adding p:kst/entry $TARGET" &&
		kst_listed "$ADDR  k  $TARGET\+$OFF    \[DISABLED\]$(entry_flags)"
}

kprobe_listed_enabled() {
	kst_event_enable kst/entry 1 &&
		kst_listed "$ADDR  k  $TARGET\+$OFF    $(entry_flags)"
}

# An [FTRACE] probe is on a site ftrace patches, or (arm64) on the first
# instruction of a function whose site follows it.
ftrace_flag_only_on_ftrace_sites() {
	addrs=$TRACING/available_filter_functions_addrs
	[ -f $addrs ] || return 0
	bad=$(grep -E '\[FTRACE\]$' $LIST | while read -r a _ at rest; do
		# That file prints addresses without leading zeros (s390's
		# kernel addresses have some); the list pads them.
		grep -qi "^${a#"${a%%[1-9a-f]*}"} " $addrs && continue
		if [ "$(uname -m)" = aarch64 ] && [ "${at%+0x0}" != "$at" ] &&
			awk -v f="${at%+0x0}" '$2 == f { ok = 1 } END { exit !ok }' $addrs; then
			continue
		fi
		echo "$a $at $rest"
	done)
	[ -z "$bad" ] && return 0
	kst_log "[FTRACE] on an address ftrace does not patch: $bad"
	return 1
}

# How many more hits kst/entry counted over N forks.
entry_hits_over_forks() {
	before=$(kst_event_hits entry)
	forks "$1"
	after=$(kst_event_hits entry)
	echo $((after - before))
}

kprobe_counts_hits() {
	d=$(entry_hits_over_forks 10)
	[ "$d" -ge 10 ] && return 0
	kst_log "10 forks, kprobe_profile counted $d more hits"
	return 1
}

kretprobe_listed() {
	kst_expect OK "$(kst_event "r:kst/ret $TARGET")" "adding r:kst/ret $TARGET" &&
		kst_event_enable kst/ret 1 &&
		kst_listed "$ADDR  r  $TARGET\+$OFF    $(entry_flags)"
}

STATS=$KST_DEBUGFS/kprobes/stats

# "stats" has a line for each line of the list, in its order and with its
# columns up to the flags; then missed=N, which its causes add up to, and
# for a kretprobe no_instance=N.
stats_follow_list() {
	list_where=$(sed -E 's/(\[[A-Z]+\])*$//' $LIST)
	stats_where=$(sed -E 's/missed=.*$//' $STATS)
	if [ "$list_where" != "$stats_where" ]; then
		kst_log "the stats lines do not follow the list's:"
		sed 's/^/# list: /' $LIST
		sed 's/^/# stats: /' $STATS
		return 1
	fi
	counts='missed=0 recursion=0 busy=0 site_taken=0 no_instance=[0-9]+'
	if ! grep -qE "^$ADDR  r  $TARGET\+$OFF    $counts\$" $STATS; then
		kst_log "no kretprobe line for $TARGET in stats:"
		sed 's/^/# stats: /' $STATS
		return 1
	fi
	awk -v causes="recursion busy site_taken" '
		BEGIN { n = split(causes, want, " ") }
		{
			ok = $0 ~ / missed=[0-9]+ / && ($2 == "k") == ($0 !~ / no_instance=[0-9]+$/)
			missed = -1
			sum = 0
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "missed")
					missed = kv[2]
				for (c = 1; c <= n; c++)
					if (kv[1] == want[c]) {
						sum += kv[2]
						seen[NR, c] = 1
					}
			}
			for (c = 1; c <= n; c++)
				ok = ok && seen[NR, c]
			if (!ok || missed != sum) {
				print "# bad stats line: " $0
				bad = 1
			}
		}
		END { exit bad }' $STATS
}

knob_reads_1() {
	kst_expect 1 "$(cat $KNOB)" "reading $KNOB"
}

# Each probe's own state, as the list shows it: kst/entry enabled, and
# kst/off, defined on the same function and never enabled, [DISABLED].
own_states_listed() {
	kst_listed "$ADDR  k  $TARGET\+$OFF    $(entry_flags)" &&
		kst_listed "$ADDR  k  $TARGET\+$OFF    \[DISABLED\]$(entry_flags)"
}

knob_off_stops_hits() {
	kst_expect OK "$(kst_event "p:kst/off $TARGET")" "adding p:kst/off $TARGET" || return 1
	echo 0 >$KNOB || return 1
	kst_expect 0 "$(cat $KNOB)" "reading $KNOB after writing 0" || return 1
	kst_expect 0 "$(entry_hits_over_forks 5)" "new hits of kst/entry with probes disabled" &&
		own_states_listed
}

# The knob arms what was armed: a disabled probe stays disabled.
knob_on_restores_hits() {
	echo 1 >$KNOB || return 1
	kst_expect 1 "$(cat $KNOB)" "reading $KNOB after writing 1" || return 1
	d=$(entry_hits_over_forks 5)
	if [ "$d" -lt 5 ]; then
		kst_log "5 forks after re-enabling, kprobe_profile counted $d more hits"
		return 1
	fi
	kst_expect 0 "$(kst_event_hits off)" "hits of the disabled kst/off" &&
		own_states_listed
}

# kernel.ftrace_enabled=0 switches ftrace's calls off.  An entry probe on
# ftrace ([FTRACE]) rides them and stops with them, as in the base; on
# arm64 it becomes a BRK on the function's first instruction and keeps
# firing, as the base's BRK does there, and so does a breakpoint probe
# (no [FTRACE]) on any arch.  All fire once the calls are back on.
entry_probe_and_ftrace_enabled() {
	want=stops
	[ "$(uname -m)" = aarch64 ] && want=keeps
	grep -qE "  $TARGET\+$OFF .*\[FTRACE\]$" $LIST || want=keeps
	if [ ! -f $FTRACE_ENABLED ]; then
		kst_log "no $FTRACE_ENABLED"
		return 1
	fi
	echo 0 >$FTRACE_ENABLED || return 1
	off=$(entry_hits_over_forks 5)
	echo 1 >$FTRACE_ENABLED || return 1
	on=$(entry_hits_over_forks 5)
	kst_log "hits over 5 forks: $off with ftrace_enabled=0, $on with 1"
	if [ $want = stops ]; then
		kst_expect 0 "$off" "hits with ftrace_enabled=0" || return 1
	elif [ "$off" -lt 5 ]; then
		kst_log "the probe stopped firing with ftrace_enabled=0"
		return 1
	fi
	[ "$on" -ge 5 ] || { kst_log "not firing again with ftrace_enabled=1"; return 1; }
}

knob_refuses_garbage() {
	kst_expect EINVAL "$(kst_try write $KNOB maybe)" "writing 'maybe' to $KNOB" &&
		kst_expect 1 "$(cat $KNOB)" "$KNOB after a refused write"
}

events_gone_from_list() {
	kst_event_drop kst/entry && kst_event_drop kst/ret && kst_event_drop kst/off &&
		[ "$(grep -cE "  $TARGET\+$OFF " $LIST)" = "$KST_OTHERS" ] ||
		{
			kst_log "probes on $TARGET left:"
			grep "  $TARGET+" $LIST | sed 's/^/#   /'
			return 1
		}
}

blacklist_format() {
	bad=$(grep -cvE '^0x[0-9a-f]{8,16}-0x[0-9a-f]{8,16}	[^ ]+$' $BLACKLIST)
	if [ "$bad" != 0 ]; then
		kst_log "$bad lines of $BLACKLIST are not 0xSTART-0xEND<tab>SYMBOL"
		return 1
	fi
	# As strings: awk may read 0x... as a number, and lose its low bits.
	awk -F'[-\t]' '{ a = $1 ""; b = $2 "" }
		length(a) != length(b) || !(a < b) { print; n++ }
		END { exit n > 0 }' $BLACKLIST >/tmp/kst-bl.$$ ||
		{
			kst_log "ranges that do not start below their end:"
			sed 's/^/#   /' /tmp/kst-bl.$$
			rm -f /tmp/kst-bl.$$
			return 1
		}
	rm -f /tmp/kst-bl.$$
}

# get_kprobe() and kprobes_inc_nmissed_count() run in hits, so they carry
# NOKPROBE_SYMBOL(); so does the arch's exception or system call entry,
# where it has one of its own in the file (arm refuses its entry text in
# arch_within_kprobe_blacklist() alone, and mips has none).
blacklist_names_nokprobe_functions() {
	case $(uname -m) in
	x86_64) entry=entry_SYSCALL_64 ;;
	i?86) entry=entry_INT80_32 ;;
	riscv64) entry=handle_exception ;;
	aarch64) entry=el0t_64_sync ;;
	ppc64le) entry=system_call_common ;;
	s390x) entry=system_call ;;
	*) entry= ;;
	esac
	for sym in get_kprobe kprobes_inc_nmissed_count $entry; do
		grep -qE "	$sym\$" $BLACKLIST && continue
		kst_log "$sym is not in $BLACKLIST"
		return 1
	done
}

blacklisted_function_refused() {
	kst_expect EINVAL "$(kst_event "p:kst/black get_kprobe")" "p:kst/black get_kprobe"
}

sysctl_values() {
	v=$(cat $SYSCTL)
	case $v in
	0 | 1) ;;
	*) kst_log "$SYSCTL reads '$v'"; return 1 ;;
	esac
	for w in 0 1 "$v"; do
		echo "$w" >$SYSCTL &&
			kst_expect "$w" "$(cat $SYSCTL)" "$SYSCTL after writing $w" || return 1
	done
	for w in 2 -1 x; do
		kst_expect EINVAL "$(kst_try write $SYSCTL "$w")" "writing $w to $SYSCTL" &&
			kst_expect "$v" "$(cat $SYSCTL)" "$SYSCTL after a refused write" || return 1
	done
}

# A probe in the body of the function, jump-optimized while the sysctl is
# 1 and back to a breakpoint at 0.  The list marks it [OPTIMIZED] from the
# moment it is queued for the optimizer, before the jump is in, as the
# base does: so at once, with no wait.
# The list's address of the probe at $TARGET+$1.
body_addr() {
	grep "  $TARGET+0x$(printf %x "$1") " $LIST | cut -d' ' -f1
}

# Whether kst/body, defined at $TARGET+$1, is [OPTIMIZED] once enabled.
body_optimized() {
	kst_event_enable kst/body 1 &&
		grep -q "^$(body_addr "$1") .*\[OPTIMIZED\]" $LIST
}

optimized_flag_follows_sysctl() {
	echo 1 >$SYSCTL || return 1
	if ! off=$(kst_first_probe kst/body $TARGET 5 body_optimized); then
		kst_log "no probe in the first 64 bytes of $TARGET was optimized"
		return 1
	fi
	a=$(body_addr "$off")
	kst_log "$TARGET+$off optimized"
	echo 0 >$SYSCTL
	if grep -q "^$a .*\[OPTIMIZED\]" $LIST; then
		kst_log "still [OPTIMIZED] with $SYSCTL at 0"
		return 1
	fi
	echo 1 >$SYSCTL
	if ! grep -q "^$a .*\[OPTIMIZED\]" $LIST; then
		kst_log "not [OPTIMIZED] at once with $SYSCTL back at 1"
		return 1
	fi
	kst_event_drop kst/body
}

sysctl_then_flag() {
	sysctl_values && optimized_flag_follows_sysctl
}

kst_setup
ktap_print_header
if ! kst_have_events; then
	ktap_skip_all "no kprobe_events: kernel without CONFIG_KPROBE_EVENTS"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 16
KST_OTHERS=$(grep -cE "  $TARGET\+$OFF " $LIST)

kst_check "a new kprobe event is listed 'k' and [DISABLED]" kprobe_listed_disabled
kst_check "enabled, it is listed without [DISABLED]" kprobe_listed_enabled
kst_check "it counts the hits of $TARGET" kprobe_counts_hits
kst_check "a kretprobe event is listed 'r'" kretprobe_listed
kst_check "stats: a line per listed probe, missed and its causes, no_instance for 'r'" \
	stats_follow_list
kst_check "[FTRACE] only on ftrace sites" ftrace_flag_only_on_ftrace_sites
kst_check "enabled reads 1" knob_reads_1
kst_check "enabled=0 stops every probe, each keeps its own state" knob_off_stops_hits
kst_check "enabled=1 arms them again, a disabled probe stays disabled" knob_on_restores_hits
# Without the function tracer there is no such sysctl; with an entry probe
# on ftrace ([FTRACE]) there must be one.
if [ -f $FTRACE_ENABLED ] || grep -qE "  $TARGET\+$OFF .*\[FTRACE\]$" $LIST; then
	kst_check "kernel.ftrace_enabled=0: an entry probe stops or keeps firing as the base's does" \
		entry_probe_and_ftrace_enabled
else
	ktap_test_skip "kernel.ftrace_enabled: kernel without the function tracer"
fi
kst_check "enabled refuses what is not a boolean with EINVAL" knob_refuses_garbage
kst_check "removed events leave no line in the list" events_gone_from_list
kst_check "blacklist lines are 0xSTART-0xEND<tab>SYMBOL" blacklist_format
kst_check "blacklist names the core's NOKPROBE_SYMBOL functions" blacklist_names_nokprobe_functions
kst_check "a probe on a blacklisted function is refused with EINVAL" blacklisted_function_refused
if [ -f $SYSCTL ]; then
	kst_check "debug.kprobes-optimization: 0/1, EINVAL otherwise, [OPTIMIZED] follows it" \
		sysctl_then_flag
else
	ktap_test_skip "debug.kprobes-optimization: kernel without CONFIG_OPTPROBES"
fi
ktap_finished
