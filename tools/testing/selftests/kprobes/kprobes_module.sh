#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes on a module's text across unload and reload: kprobe events follow
# the module, a probe registered by another module is [GONE] once its
# target leaves and unregisters cleanly, and a probe set before loading
# catches the module's init function.
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
		kst_listed "$ADDR  k  $FUNC\+$OFF  $MOD $ENTRY_FLAG" &&
		calls_hit mfunc
}

second_probe_aggregates() {
	kst_expect OK "$(kst_reg symbol=$FUNC offset="${AT:-0}")" \
		"registering a kprobe on $FUNC" || return 1
	n=$(grep -cE "  $FUNC\+$OFF  $MOD " $LIST)
	kst_expect 2 "$n" "lines for $FUNC in the list" || return 1
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

unload_marks_gone() {
	FADDR=$(grep -E "  $FUNC\+$OFF  $MOD " $LIST | head -n 1 | cut -d' ' -f1)
	rmmod $MOD || return 1
	kst_expect 2 "$(gone_lines)" "[GONE] lines at $FADDR, where $FUNC was" ||
		{ sed 's/^/#   /' $LIST; return 1; }
	if ! grep -q "kst/mfunc" "$EVENTS"; then
		kst_log "the event went away with the module"
		return 1
	fi
}

reload_rearms_event() {
	kst_load_target || return 1
	kst_listed "$ADDR  k  $FUNC\+$OFF  $MOD $ENTRY_FLAG" || return 1
	kst_expect 1 "$(gone_lines)" "[GONE] lines at $FADDR after the reload" || return 1
	calls_hit mfunc
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

all_gone_at_the_end() {
	kst_event_drop kst/minit && kst_event_drop kst/mfunc && rmmod $MOD || return 1
	kst_expect "$KST_BEFORE" "$(kst_list_snapshot | md5sum)" \
		"the list, compared with before the test"
}

kst_begin events
KST_BEFORE=$(kst_list_snapshot | md5sum)
ktap_set_plan 7
kst_check "a kprobe event on a module function is listed with the module and hits" event_on_module
kst_check "a second probe on it aggregates and both run" second_probe_aggregates
kst_check "unloading the module marks both [GONE], the event stays defined" unload_marks_gone
kst_check "reloading re-arms the event, the other probe stays [GONE]" reload_rearms_event
kst_check "a [GONE] probe unregisters cleanly" gone_probe_unregisters
kst_check "a probe set before loading catches the init function once" init_text_probe
kst_check "everything is gone at the end" all_gone_at_the_end
ktap_finished
