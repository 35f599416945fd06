#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A group of kprobe events enabled and disabled by one write, as trace-cmd
# and users do: through the group's "enable" file and through set_event.
# The kernel arms the group's probes together when the write ends; each
# must be armed when the write returns, and fire, and each must be
# disarmed when the disabling write returns.
KST_DIR=$(dirname "$0")
. "$KST_DIR/kprobes_lib.sh"

GROUP=kst
# Functions a fork, an exec, a file read and a write run on every arch.
FUNCS="kernel_clone do_sys_openat2 vfs_read vfs_write"

group_add() {
	kst_expect OK "$(kst_event "$1")" "adding $1"
}

# The events: an entry probe on each function (on ftrace where the arch
# puts one there), a probe inside kernel_clone (a breakpoint), a kretprobe,
# and one event made of two probes.
make_group() {
	for f in $FUNCS; do
		group_add "p:$GROUP/grp_$f $f" || return 1
	done
	off=$(kst_body_offset kernel_clone 1) || {
		kst_log "no probe could be put inside kernel_clone"
		return 1
	}
	group_add "p:$GROUP/grp_body kernel_clone+$off" &&
		group_add "r:$GROUP/grp_ret kernel_clone" &&
		group_add "p:$GROUP/grp_two vfs_read" &&
		group_add "p:$GROUP/grp_two vfs_write"
}

group_made() {
	make_group &&
		kst_expect $((KST_BASE_DISABLED + NR_PROBES)) "$(disabled_lines)" "[DISABLED] lines"
}

EVENTS_MADE="grp_kernel_clone grp_do_sys_openat2 grp_vfs_read grp_vfs_write
	grp_body grp_ret grp_two"
# Probes in the list: one per event, two for grp_two.
NR_PROBES=8

disabled_lines() {
	grep -c '\[DISABLED\]' $LIST
}

# A fork and exec, a file opened and read, a write: every function runs.
workload() {
	/bin/true
	cat /proc/version >/dev/null
	echo x >/dev/null
}

# Each event's hits, those of its probes added up (grp_two has two).
hits_saved() {
	for e in $EVENTS_MADE; do
		awk -v e="$e" '$1 == e { s += $2 } END { print e, s + 0 }' \
			"$TRACING/kprobe_profile"
	done
}

# hits_all CMP: every event's hits compared (-gt or -eq) with those saved
# in $KST_HITS.

hits_all() {
	bad=$(hits_saved | while read -r e now; do
		was=$(awk -v e="$e" '$1 == e { print $2 }' "$KST_HITS")
		[ "$now" "$1" "$was" ] || echo "$e: $was then $now"
	done)
	[ -z "$bad" ] && return 0
	kst_log "hits not $1 before: $bad"
	return 1
}

# armed_by WRITE-FILE VALUE: the write arms every probe of the group at
# once (none left [DISABLED]) and each event counts hits.
armed_by() {
	echo "$2" >"$1" || { kst_log "writing $2 to $1 failed"; return 1; }
	kst_expect "$KST_BASE_DISABLED" "$(disabled_lines)" \
		"[DISABLED] lines once the group is enabled" || return 1
	hits_saved >"$KST_HITS"
	workload
	hits_all -gt
}

# disarmed_by WRITE-FILE VALUE: the write disarms every probe at once,
# and no event counts a hit afterwards.
disarmed_by() {
	echo "$2" >"$1" || { kst_log "writing $2 to $1 failed"; return 1; }
	kst_expect $((KST_BASE_DISABLED + NR_PROBES)) "$(disabled_lines)" \
		"[DISABLED] lines once the group is disabled" || return 1
	hits_saved >"$KST_HITS"
	workload
	hits_all -eq
}

events_removed() {
	for e in $EVENTS_MADE; do
		echo "-:$GROUP/$e" >>"$EVENTS" || { kst_log "removing $e failed"; return 1; }
	done
	kst_expect "$KST_BASE_LINES" "$(wc -l <$LIST)" "lines in $LIST after removal"
}

kst_setup
ktap_print_header
if ! kst_have_events; then
	ktap_skip_all "no kprobe_events: kernel without CONFIG_KPROBE_EVENTS"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 6
KST_HITS=$(mktemp)
KST_BASE_DISABLED=$(disabled_lines)
KST_BASE_LINES=$(wc -l <$LIST)

kst_check "the group's $NR_PROBES probes in 7 events made, all [DISABLED]" group_made
kst_check "1 to events/$GROUP/enable arms every probe, and each event fires" \
	armed_by "$TRACING/events/$GROUP/enable" 1
kst_check "0 to events/$GROUP/enable disarms every probe, and none fires" \
	disarmed_by "$TRACING/events/$GROUP/enable" 0
kst_check "'$GROUP:*' to set_event arms every probe, and each event fires" \
	armed_by "$TRACING/set_event" "$GROUP:*"
kst_check "an empty set_event disarms every probe, and none fires" \
	disarmed_by "$TRACING/set_event" ""
kst_check "the events removed leave no line in the list" events_removed
rm -f "$KST_HITS"
ktap_finished
