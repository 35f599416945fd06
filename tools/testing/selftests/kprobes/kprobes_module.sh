#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes on a module's text across unload and reload: kprobe events follow
# the module, a kretprobe and a disabled probe with them; every probe on it
# is [GONE] once it leaves, stays so when all probes are armed again, and
# unregisters cleanly; an optimized probe's place takes a new probe after a
# reload; and a probe set before loading catches the module's init
# function.
KST_DIR=$(dirname "$0")
. "$KST_DIR/kprobes_lib.sh"

MOD=kprobes_st_target
FUNC=kst_target_func
# An entry probe may sit on the function's ftrace site, a few bytes in.
OFF='0x[0-9a-f]+'
# Where a probe on a function of the module goes: at the symbol, or where
# the module says the function's code begins (after mips's long ftrace
# call).  Known once the module is loaded; kept for its init function.
AT=
AT_INIT=

# at_entry FUNC N: FUNC, or FUNC+N when the function begins N bytes in.
at_entry() {
	case $2 in
	'' | 0) echo "$1" ;;
	*) echo "$1+$2" ;;
	esac
}

calls_hit() {
	before=$(kst_event_hits "$1")
	kst_trigger 7
	after=$(kst_event_hits "$1")
	kst_expect $((before + 1)) "$after" "hits of kst/$1 after one call"
}

event_on_module() {
	kst_load_target || return 1
	AT=$(kst_param $MOD entry_off)
	AT_INIT=$(kst_param $MOD init_entry_off)
	ev="p:kst/mfunc $MOD:$(at_entry $FUNC "$AT")"
	kst_expect OK "$(kst_event "$ev")" "$ev" &&
		kst_event_enable kst/mfunc 1 &&
		kst_listed "$ADDR  k  $FUNC\+$OFF  $MOD $(kst_entry_flags $FUNC)" &&
		calls_hit mfunc
}

second_probe_aggregates() {
	kst_expect OK "$(kst_reg symbol=$FUNC offset="${AT:-0}")" \
		"registering a kprobe on $FUNC" || return 1
	n=$(grep -cE "  $FUNC\+$OFF  $MOD " $LIST)
	kst_expect 2 "$n" "lines for $FUNC in the list" || return 1
	# Where the function's entry probes are, for when the module is gone.
	FADDR=$(grep -E "  $FUNC\+$OFF  $MOD " $LIST | head -n 1 | cut -d' ' -f1)
	h=$(kst_param kprobes_st_reg hits)
	kst_trigger 1
	kst_expect $((h + 1)) "$(kst_param kprobes_st_reg hits)" "hits of the registered kprobe" &&
		calls_hit mfunc
}

# [GONE] lines at the address the function had.  With the module gone
# they show the bare address; a reload may put the function back there.
gone_lines() {
	grep -cE "^$FADDR  k  .*\[GONE\]" $LIST
}

# A kretprobe goes on a function's first instruction only; where the
# module's functions begin with mips's long ftrace call, none can go.
no_kretprobe_here() {
	[ "${AT:-0}" != 0 ]
}

kretprobe_on_module() {
	ev="r:kst/mret $MOD:$FUNC"
	kst_expect OK "$(kst_event "$ev")" "$ev" &&
		kst_event_enable kst/mret 1 &&
		kst_listed "$ADDR  r  $FUNC\+$OFF  $MOD $(kst_entry_flags $FUNC)" &&
		calls_hit mret
}

# Whether the defined event at $FUNC+$1 is a breakpoint ([DISABLED]
# alone): on arm64 the entry is a word or two in, on the ftrace site,
# which is not the body.
moff_is_breakpoint() {
	grep -qE "^$ADDR  k  $FUNC\+0x$(printf %x "$1")  $MOD \[DISABLED\]\$" $LIST
}

# kst/moff at the first offset past the entry where it is a breakpoint.
disabled_probe_on_module() {
	if ! off=$(kst_first_probe kst/moff "$MOD:$FUNC" $((${AT:-0} + 1)) moff_is_breakpoint); then
		kst_log "no offset of $FUNC past its entry takes a breakpoint"
		return 1
	fi
	MOFF_HEX=$(printf %x "$off")
	h=$(kst_event_hits moff)
	kst_trigger 3
	kst_expect "$h" "$(kst_event_hits moff)" "hits of the disabled kst/moff"
}

# The lines of every probe on the module, by address, before it goes.
MOD_LINES=
# With the module gone, a line names no symbol: %pS prints the address
# (without its leading zeros, which s390's addresses have), and the flags
# are [GONE] and the [FTRACE] the probe had; [DISABLED] and [OPTIMIZED]
# are dropped.
gone_line_of() {
	a=${1%% *}
	type=$(echo "$1" | cut -d' ' -f3)
	flags='\[GONE\]'
	case $1 in
	*'[FTRACE]'*) flags='\[GONE\]\[FTRACE\]' ;;
	esac
	echo "$a  $type  0x${a#"${a%%[1-9a-f]*}"} $flags"
}

unload_marks_gone() {
	MOD_LINES=$(grep -E "^$ADDR  [kr]  [^ ]+  $MOD " $LIST)
	rmmod $MOD || return 1
	kst_expect 2 "$(gone_lines)" "[GONE] lines at $FADDR, where $FUNC was" ||
		{ sed 's/^/#   /' $LIST; return 1; }
	echo "$MOD_LINES" | while read -r line; do
		kst_listed "$(gone_line_of "$line")" || exit 1
	done || return 1
	if ! grep -q "kst/mfunc" "$EVENTS"; then
		kst_log "the event went away with the module"
		return 1
	fi
}

# The [GONE] lines, and the hits and misses of the events.
gone_state() {
	grep -F '[GONE]' $LIST | sort
	awk '$1 == "mfunc" || $1 == "mret" || $1 == "moff" { print $1, $2, $3 }' \
		"$TRACING/kprobe_profile"
}

# Arming every probe again must leave the gone ones alone: their text is
# freed, so patching it, or failing the write, would be a bug.
gone_stay_gone_when_all_rearmed() {
	before=$(gone_state)
	r=$(kst_try write $KNOB 0)
	kst_expect OK "$r" "writing 0 to $KNOB with probes [GONE]" || return 1
	r=$(kst_try write $KNOB 1)
	kst_expect OK "$r" "writing 1 to $KNOB with probes [GONE]" || return 1
	[ "$(gone_state)" = "$before" ] && return 0
	kst_log "the gone probes' lines or counts changed:"
	gone_state | sed 's/^/#   /'
	return 1
}

reload_rearms_event() {
	kst_load_target || return 1
	kst_listed "$ADDR  k  $FUNC\+$OFF  $MOD $(kst_entry_flags $FUNC)" || return 1
	kst_expect 1 "$(gone_lines)" "[GONE] lines at $FADDR after the reload" || return 1
	calls_hit mfunc || return 1
	if grep -q 'kst/mret' "$EVENTS"; then
		calls_hit mret || return 1
	fi
	kst_listed "$ADDR  k  $FUNC\+0x$MOFF_HEX  $MOD \[DISABLED\]" || return 1
	kst_expect 0 "$(kst_event_hits moff)" "hits of the disabled kst/moff"
}

gone_probe_unregisters() {
	rmmod kprobes_st_reg || return 1
	kst_not_listed "$MOD \[GONE\]"
}

# Whether hex address $1 lies less than 32 bytes past hex address $2,
# where an entry probe goes (past an ENDBR or a BTI landing pad, or mips's
# ftrace call, if any).
# The shell's arithmetic is signed: compare the top half as text.
near() {
	[ "${1%????????}" = "${2%????????}" ] || return 1
	d=$((0x${1#"${1%????????}"} - 0x${2#"${2%????????}"}))
	[ $d -ge 0 ] && [ $d -lt 32 ]
}

# The list lines of probes on the function the module's init was.
# Addresses are as wide as the list prints them: 16 digits, or 8 on a
# 32-bit kernel.
init_probe_lines() {
	addr=$(kst_param kprobes_st_target init_addr)
	while read -r a rest; do
		near "$a" "$(printf "%0${#a}x" "$addr")" && echo "$a $rest"
	done <$LIST
}

init_text_probe() {
	rmmod $MOD || return 1
	ev="p:kst/minit $MOD:$(at_entry kst_target_init "$AT_INIT")"
	kst_expect OK "$(kst_event "$ev")" "$ev" &&
		kst_event_enable kst/minit 1 &&
		kst_load_target || return 1
	kst_expect 1 "$(kst_event_hits minit)" "hits of the probe on the init function" || return 1
	# The init text is freed once the module is live: the probe is still
	# listed where the function was, [GONE].  It is found by address, since
	# the line names the function only until the module's symbols drop it.
	# An arch that lays init code out with the core text (powerpc64) keeps
	# the function, and the probe on it stays live.
	lines=$(init_probe_lines)
	kst_expect 1 "$(printf '%s' "$lines" | grep -c .)" \
		"list lines at the init function's address" || return 1
	if kst_keeps_module_init; then
		kst_log "this arch keeps the module's init code: its probe must stay live"
		case $lines in
		*'[GONE]'*) kst_log "the kept init function's probe is gone: $lines"; return 1 ;;
		esac
		return 0
	fi
	case $lines in
	*'[GONE]'*) return 0 ;;
	esac
	kst_log "the init function's probe is still live: $lines"
	return 1
}

optimized() {
	grep -qE "^$ADDR  k  $FUNC\+0x$OPT_HEX  $MOD .*\[OPTIMIZED\]" $LIST
}

# kst/mopt at $FUNC+$1, enabled; [OPTIMIZED] shows once it is queued.
add_mopt() {
	kst_event "p:kst/mopt $MOD:$FUNC+$1" >/dev/null &&
		kst_event_enable kst/mopt 1
}

# Whether kst/mopt, defined at $FUNC+$1, is [OPTIMIZED] once enabled.
mopt_optimized() {
	kst_event_enable kst/mopt 1 && OPT_HEX=$(printf %x "$1") && optimized
}

# An optimized body probe on the module: the sysctl takes it back to a
# breakpoint and optimizes it again, a probe added while it is 0 stays a
# breakpoint, and it fires in every state.  Then its place, once the
# module is reloaded, takes a new probe with no warning (the base WARNs).
optimized_probe_on_module() {
	echo 1 >$SYSCTL || return 1
	if ! off=$(kst_first_probe kst/mopt "$MOD:$FUNC" $((${AT:-0} + 1)) mopt_optimized); then
		kst_log "no probe on $FUNC past its entry was optimized"
		return 1
	fi
	OPT_HEX=$(printf %x "$off")
	kst_log "$FUNC+$off optimized"
	# Let the optimizer put the jump in.
	sleep 1
	calls_hit mopt || return 1
	echo 0 >$SYSCTL
	! optimized || { kst_log "still [OPTIMIZED] with $SYSCTL at 0"; return 1; }
	calls_hit mopt || return 1
	kst_event_drop kst/mopt && add_mopt $off || return 1
	sleep 2
	! optimized || { kst_log "a probe added while $SYSCTL is 0 was optimized"; return 1; }
	calls_hit mopt || return 1
	echo 1 >$SYSCTL
	optimized || { kst_log "not [OPTIMIZED] with $SYSCTL back at 1"; return 1; }
	sleep 1
	calls_hit mopt || return 1

	warnings=$(dmesg | grep -c 'WARNING:')
	kst_event_drop kst/mopt && rmmod $MOD && kst_load_target || return 1
	add_mopt $off || return 1
	calls_hit mopt || return 1
	kst_expect "$warnings" "$(dmesg | grep -c 'WARNING:')" "kernel warnings in dmesg"
}

all_gone_at_the_end() {
	for ev in mopt moff mret; do
		grep -q "kst/$ev " "$EVENTS" && kst_event_drop kst/$ev
	done
	kst_event_drop kst/minit && kst_event_drop kst/mfunc && rmmod $MOD || return 1
	kst_expect "$KST_BEFORE" "$(kst_list_snapshot | md5sum)" \
		"the list, compared with before the test"
}

kst_begin events
KST_BEFORE=$(kst_list_snapshot | md5sum)
ktap_set_plan 11
kst_check "a kprobe event on a module function is listed with the module and hits" event_on_module
kst_check "a second probe on it aggregates and both run" second_probe_aggregates
if no_kretprobe_here; then
	ktap_test_skip "kretprobe on module text: its entry is not its first instruction"
else
	kst_check "a kretprobe event on a module function is listed 'r' and counts returns" \
		kretprobe_on_module
fi
kst_check "a defined probe on a module function is [DISABLED] and never hits" \
	disabled_probe_on_module
kst_check "unloading the module marks every probe on it [GONE]" unload_marks_gone
kst_check "arming every probe again leaves the [GONE] ones alone" \
	gone_stay_gone_when_all_rearmed
kst_check "reloading re-arms the events, but the disabled one; the other stays [GONE]" \
	reload_rearms_event
kst_check "a [GONE] probe unregisters cleanly" gone_probe_unregisters
kst_check "a probe set before loading catches the init function once" init_text_probe
if [ ! -f $SYSCTL ]; then
	ktap_test_skip "optimized probe on module text: kernel without CONFIG_OPTPROBES"
elif ! kst_module_text_optimizable; then
	ktap_test_skip "optimized probe on module text: this arch optimizes none there"
else
	kst_check "an optimized probe on module text follows the sysctl, and again after a reload" \
		optimized_probe_on_module
fi
kst_check "everything is gone at the end" all_gone_at_the_end
ktap_finished
