# SPDX-License-Identifier: GPL-2.0
# Probes on module text, through kprobe events: hits, the debugfs list and
# its flags, the global enable knob, module unload ([GONE]) and reload, an
# optimized probe's place probed again after a reload (the base WARNs),
# the debug.kprobes-optimization sysctl (values, EINVAL, switching), a
# probe on init text, and instruction slot pages in /proc/kallsyms.  The target is the
# harness module kptarget (harness/modules/kptarget).
. /kp/lib.sh

TRACING=/sys/kernel/tracing
EVENTS=$TRACING/kprobe_events
PROFILE=$TRACING/kprobe_profile
LIST=/sys/kernel/debug/kprobes/list
KNOB=/sys/kernel/debug/kprobes/enabled
OPT=/proc/sys/debug/kprobes-optimization
KO=/kp/ext/kptarget.ko
TRIGGER=/sys/module/kptarget/parameters/trigger
NAMES="func ret body opt init slot"

# A list line, as the base prints it: address (%px), type, symbol+offset,
# then the bare module name and one space, then the flags run together.
ADDR=$(addr_re)
# A line of a probe on kptarget, whatever its offset and flags.
ON_KPTARGET="^$ADDR  [kr]  [^ ]+  kptarget "
# The module is built with ftrace: its entries are ftrace sites, which the
# arches with kprobes on ftrace probe through ftrace.  The probes are
# listed at the functions' starts (after the ENDBR on x86 with IBT, at
# the ftrace site on powerpc: entry_off; arm64's ride the site, after
# MOV X9, X30, from there).
ENTRY_FLAGS=$(entry_flags_re)

# How often the probe of event kpt/NAME fired, from kprobe_profile.
hits() {
	awk -v e="$1" '$1 == e { n = $2 } END { print (n == "" ? "none" : n) }' $PROFILE
}

new_event() {
	echo "$1" >>$EVENTS
}

arm() {
	echo 1 >"$TRACING/events/kpt/$1/enable"
}

disarm() {
	echo 0 >"$TRACING/events/kpt/$1/enable"
}

drop_event() {
	disarm "$1" 2>/dev/null
	echo "-:kpt/$1" >>$EVENTS
}

trigger() {
	echo "$1" >$TRIGGER
}

# listed REGEX: some line of the probe list is exactly REGEX (extended).
listed() {
	grep -qE "^$1\$" $LIST || { echo "no line like: $1"; cat $LIST; return 1; }
}

# The list line of the probe at address $1.
line_at() {
	grep "^$1  " $LIST
}

kallsyms_pages() {
	grep -cw kprobe_insn_page /proc/kallsyms
}

load() {
	insmod $KO
}

unload() {
	rmmod kptarget
}

# Where the entry probe of a kptarget function goes: at the symbol, or
# MOD_AT bytes in, where kptarget says its functions' code begins (mips,
# past the long ftrace call that starts each function of a module).  Then
# no kretprobe can go on one (NO_MOD_KRET says why).
MOD_AT=0
NO_MOD_KRET=

at_entry() {
	if [ "$MOD_AT" = 0 ]; then echo "$1"; else echo "$1+$MOD_AT"; fi
}

# The offset the list shows for the entry probe of kptarget function $1.
mod_entry_off() {
	if [ "$MOD_AT" = 0 ]; then entry_off "$1"; else printf '0x%x\n' "$MOD_AT"; fi
}

# The events on kptarget's functions besides kpt/body: kpt/ret unless
# there is no kretprobe there.
entry_events() {
	if [ -n "$NO_MOD_KRET" ]; then echo func; else echo func ret; fi
}

# Cases.  Each runs the step it checks; later cases build on earlier ones.

loads() {
	[ -f $KO ] || fail "$KO was not built" || return 1
	load || return 1
	MOD_AT=$(cat /sys/module/kptarget/parameters/entry_off) || return 1
	[ "$MOD_AT" = 0 ] ||
		NO_MOD_KRET="on $(kp_arch) a module's function begins with its long ftrace call, where no probe may sit, and a kretprobe goes on a function's first instruction only; the base refuses it too"
}

kprobe_counts_calls() {
	new_event "p:kpt/func kptarget:$(at_entry kptarget_func)" && arm func || return 1
	trigger 5
	expect_eq "$(hits func)" 5 "hits after 5 calls"
}

kprobe_list_line() {
	listed "$ADDR  k  kptarget_func\+$(mod_entry_off kptarget_func)  kptarget $ENTRY_FLAGS"
}

kretprobe_counts_returns() {
	new_event "r:kpt/ret kptarget:kptarget_ret" && arm ret || return 1
	trigger 3
	expect_eq "$(hits ret)" 3 "returns after 3 calls"
}

kretprobe_list_line() {
	listed "$ADDR  r  kptarget_ret\+$(entry_off kptarget_ret)  kptarget $ENTRY_FLAGS"
}

# The first offset past the entry that takes a probe, as a user finds it.
BODY_OFF=
disabled_body_probe_listed() {
	off=$((MOD_AT + 1))
	while [ $off -le $((MOD_AT + 32)) ]; do
		if new_event "p:kpt/body kptarget:kptarget_func+$off" 2>/dev/null; then
			# arm64's entry is a word or two in: there it lands on
			# the ftrace site, which is not the body.
			if grep -qE "^$ADDR  k  kptarget_func\+0x$(printf '%x' $off)  kptarget \[DISABLED\]\$" $LIST; then
				BODY_OFF=$off
				break
			fi
			drop_event body
		fi
		off=$((off + 1))
	done
	[ -n "$BODY_OFF" ] ||
		fail "no offset in kptarget_func+$((MOD_AT + 1))..$((MOD_AT + 32)) takes a probe" || return 1
	BODY_HEX=$(printf '%x' "$BODY_OFF")
	# Defined but not enabled: registered disabled, never ftrace-based.
	listed "$ADDR  k  kptarget_func\+0x$BODY_HEX  kptarget \[DISABLED\]"
}

enabled_body_probe_counts() {
	[ -n "$BODY_OFF" ] || fail "no body probe" || return 1
	arm body || return 1
	# x86 may have put a jump in already
	listed "$ADDR  k  kptarget_func\+0x$BODY_HEX  kptarget (\[OPTIMIZED\])?" || return 1
	trigger 2
	expect_eq "$(hits body)" 2 "body hits after 2 calls"
}

# Leaves the body probe disabled and the other two enabled.
knob_off_stops_hits() {
	disarm body || return 1
	f=$(hits func)
	r=$(hits ret)
	echo 0 >$KNOB || return 1
	expect_eq "$(cat $KNOB)" 0 "knob after writing 0" || return 1
	trigger 4
	expect_eq "$(hits func)" "$f" "kprobe hits while off" &&
		expect_eq "$(hits ret)" "$r" "kretprobe hits while off"
}

knob_off_keeps_probe_state() {
	listed "$ADDR  k  kptarget_func\+$(mod_entry_off kptarget_func)  kptarget $ENTRY_FLAGS" &&
		{ [ -n "$NO_MOD_KRET" ] ||
			listed "$ADDR  r  kptarget_ret\+$(entry_off kptarget_ret)  kptarget $ENTRY_FLAGS"; } &&
		listed "$ADDR  k  kptarget_func\+0x$BODY_HEX  kptarget \[DISABLED\]"
}

knob_on_resumes_hits() {
	f=$(hits func)
	b=$(hits body)
	echo 1 >$KNOB || return 1
	expect_eq "$(cat $KNOB)" 1 "knob after writing 1" || return 1
	trigger 3
	expect_eq "$(hits func)" $((f + 3)) "kprobe hits after the knob is back" &&
		expect_eq "$(hits body)" "$b" "hits of the disabled probe" &&
		listed "$ADDR  k  kptarget_func\+0x$BODY_HEX  kptarget \[DISABLED\]"
}

# Unload the module; every probe that was on it must be listed [GONE].
# Its address no longer has a name, so the line shows it in %pS's stead
# (0x and the address without its leading zeros, which s390's addresses
# have), and the flags are [GONE] plus whatever of [FTRACE] the probe had:
#   ADDR  k  0xADDR [GONE][FTRACE]
MOD_ADDRS=
unload_leaves_gone() {
	before=$(grep -E "$ON_KPTARGET" $LIST)
	MOD_ADDRS=$(echo "$before" | cut -d' ' -f1)
	# shellcheck disable=SC2086
	set -- $MOD_ADDRS
	want=3
	[ -z "$NO_MOD_KRET" ] || want=2
	expect_eq $# $want "probes on kptarget" || return 1
	unload || return 1
	for a in $MOD_ADDRS; do
		was=$(echo "$before" | grep "^$a  ")
		type=$(echo "$was" | cut -d' ' -f3)
		case $was in
		*"[FTRACE]"*) want='\[GONE\]\[FTRACE\]' ;;
		*) want='\[GONE\]' ;;
		esac
		listed "$a  $type  0x${a#"${a%%[1-9a-f]*}"} $want" || return 1
	done
}

# The hits and misses of kpt/func, kpt/ret and kpt/body, from kprobe_profile.
counts() {
	awk '$1 == "func" || $1 == "ret" || $1 == "body" { print $1, $2, $3 }' $PROFILE
}

gone_lines() {
	for a in $MOD_ADDRS; do
		line_at "$a"
	done
}

# A gone probe has left the table along with its text: re-arming every
# probe with the knob must not touch it (that would patch freed text, or
# fail with -EIO), must not bring it back, and no hit or miss is counted.
unloaded_module_cannot_fire() {
	[ -n "$MOD_ADDRS" ] || fail "no probe was on kptarget" || return 1
	[ ! -e $TRIGGER ] || fail "$TRIGGER still exists" || return 1
	c=$(counts)
	g=$(gone_lines)
	echo 0 >$KNOB || fail "disarming every probe failed" || return 1
	echo 1 >$KNOB || fail "re-arming every probe failed" || return 1
	expect_eq "$(gone_lines)" "$g" "lines of the gone probes after re-arming" &&
		expect_eq "$(counts)" "$c" "hits and misses after unload"
}

# trace_kprobe re-registers a kept event when its module comes back.
kept_event_fires_after_reload() {
	f=$(hits func)
	r=$(hits ret)
	b=$(hits body)
	load || return 1
	trigger 2
	expect_eq "$(hits func)" $((f + 2)) "kprobe hits after reload" &&
		{ [ -n "$NO_MOD_KRET" ] ||
			expect_eq "$(hits ret)" $((r + 2)) "kretprobe hits after reload"; } &&
		expect_eq "$(hits body)" "$b" "hits of the disabled probe" &&
		listed "$ADDR  k  kptarget_func\+$(mod_entry_off kptarget_func)  kptarget $ENTRY_FLAGS"
}

gone_probes_unregister() {
	unload_leaves_gone || return 1
	for n in $(entry_events) body; do
		drop_event $n || fail "removing kpt/$n failed" || return 1
	done
	for a in $MOD_ADDRS; do
		[ -z "$(line_at "$a")" ] || fail "still listed: $(line_at "$a")" || return 1
	done
}

reload_and_probe_again() {
	load || return 1
	new_event "p:kpt/func kptarget:$(at_entry kptarget_func)" && arm func || return 1
	trigger 4
	expect_eq "$(hits func)" 4 "hits of the new probe" || return 1
	drop_event func
}

# Catalogue case 35: the base WARNs when a probe lands where an optimized
# probe was, in a module unloaded and loaded again meanwhile.
optimized_probe_reuse() {
	mark=$(klog_mark)
	echo 1 >$OPT || return 1
	new_event "p:kpt/opt kptarget:kptarget_func+$BODY_OFF" && arm opt || return 1
	i=0
	until grep -q "kptarget_func+0x$BODY_HEX .*\[OPTIMIZED\]" $LIST; do
		i=$((i + 1))
		[ $i -le 10 ] || fail "never optimized: $(grep kptarget_func $LIST)" || return 1
		sleep 1
	done
	drop_event opt && unload && load || return 1
	new_event "p:kpt/opt kptarget:kptarget_func+$BODY_OFF" && arm opt || return 1
	trigger 2
	expect_eq "$(hits opt)" 2 "hits at the reused place" || return 1
	drop_event opt || return 1
	expect_eq "$(klog_count_since "$mark" "WARNING:")" 0 "kernel warnings"
}

# wait_optimized YES|NO: the body probe's line gets (or loses) [OPTIMIZED]
# within ten seconds.
wait_optimized() {
	i=0
	while :; do
		if grep -q "kptarget_func+0x$BODY_HEX .*\[OPTIMIZED\]" $LIST; then
			[ "$1" = YES ] && return 0
		else
			[ "$1" = NO ] && return 0
		fi
		i=$((i + 1))
		[ $i -le 10 ] || fail "optimized should be $1: $(grep kptarget_func $LIST)" || return 1
		sleep 1
	done
}

# debug.kprobes-optimization reads 0 or 1 and refuses any other value.
sysctl_values() {
	expect_eq "$(cat $OPT)" 1 "default value" || return 1
	echo 0 >$OPT && expect_eq "$(cat $OPT)" 0 "after writing 0" || return 1
	echo 1 >$OPT && expect_eq "$(cat $OPT)" 1 "after writing 1" || return 1
	for v in 2 -1 x; do
		err=$( (echo "$v" >$OPT) 2>&1) &&
			fail "writing $v was accepted" && return 1
		case $err in
		*"Invalid argument"*) ;;
		*) fail "writing $v: $err (want EINVAL)"; return 1 ;;
		esac
		expect_eq "$(cat $OPT)" 1 "after refusing $v" || return 1
	done
}

# 0 takes [OPTIMIZED] away at once and keeps a probe added meanwhile a
# breakpoint; 1 optimizes it. It fires throughout.
sysctl_switch() {
	new_event "p:kpt/opt kptarget:kptarget_func+$BODY_OFF" && arm opt || return 1
	wait_optimized YES || return 1
	echo 0 >$OPT
	grep -q "kptarget_func+0x$BODY_HEX .*\[OPTIMIZED\]" $LIST &&
		fail "still [OPTIMIZED] after writing 0" && return 1
	trigger 3
	expect_eq "$(hits opt)" 3 "hits with optimization off" || return 1
	drop_event opt
	new_event "p:kpt/opt kptarget:kptarget_func+$BODY_OFF" && arm opt || return 1
	sleep 2
	grep -q "kptarget_func+0x$BODY_HEX .*\[OPTIMIZED\]" $LIST &&
		fail "a probe added while 0 was optimized" && return 1
	echo 1 >$OPT
	wait_optimized YES || return 1
	trigger 2
	expect_eq "$(hits opt)" 2 "hits once optimized again" || return 1
	drop_event opt
}

# Set before insmod: trace_kprobe arms it when the module comes.
init_probe_fires_once() {
	unload || return 1
	new_event "p:kpt/init kptarget:$(at_entry kptarget_init_fn)" && arm init || return 1
	load || return 1
	expect_eq "$(hits init)" 1 "hits on the __init function"
}

# Its text is freed after init: nothing live may be left there.  It is
# the only probe at this point, so every line must be [GONE].
init_probe_dropped() {
	expect_eq "$(hits init)" 1 "hits on the __init function" || return 1
	live=$(probe_list | grep -vF '[GONE]')
	[ -z "$live" ] || fail "live after init: $live"
}

# powerpc64 lays a module's init code out with its core text (its
# module_init_section() claims no section) and never frees it: the
# function stays in kallsyms, and its probe must stay live and fire.
init_probe_kept() {
	expect_eq "$(hits init)" 1 "hits on the __init function" || return 1
	probe_list | grep -F kptarget_init_fn | grep -qvF '[GONE]' ||
		fail "the kept init function's probe is not live: $(probe_list)"
}

# Whether the arch keeps a module's init code: powerpc64's module loader
# claims no section as init text.  kallsyms cannot tell: ftrace keeps the
# names of init functions with ftrace sites once their text is freed.
init_text_kept() {
	case $(kp_arch) in
	ppc64le | powerpc64le) return 0 ;;
	esac
	return 1
}

init_event_removed() {
	drop_event init || return 1
	[ -z "$(probe_list)" ] || fail "left in the list: $(probe_list)"
}

# powerpc optimizes a probe only within a branch's 32 MB of its detour
# buffer, which is in the kernel's own text: module text never is.
module_text_optimizable() {
	case $(kp_arch) in
	ppc64le | powerpc64le) return 1 ;;
	esac
	return 0
}

# Catalogue case 47: a probe's instruction copy lives in a slot page,
# which /proc/kallsyms names.  The last empty page is kept, so adding and
# removing a lone probe in a loop takes the same page every time and never
# frees it.
slot_page_addr() {
	grep -w kprobe_insn_page /proc/kallsyms | cut -d' ' -f1
}

slot_page_reused() {
	# Slots the earlier checks freed come back after a tasks-RCU grace
	# period, in a worker: give it up to 20 s (riscv64 under TCG is slow).
	i=0
	while [ "$(kallsyms_pages)" -gt 1 ] && [ $i -lt 20 ]; do
		sleep 1
		i=$((i + 1))
	done
	n=$(kallsyms_pages)
	[ "$n" -le 1 ] || fail "$n slot pages with no probe registered after ${i} s" || return 1
	page=$(slot_page_addr)
	for round in 1 2 3 4 5; do
		new_event "p:kpt/slot kptarget:kptarget_func+$BODY_OFF" && arm slot || return 1
		expect_eq "$(kallsyms_pages)" 1 "slot pages with the probe, round $round" ||
			return 1
		[ -n "$page" ] || page=$(slot_page_addr)
		expect_eq "$(slot_page_addr)" "$page" "slot page, round $round" || return 1
		drop_event slot || return 1
		expect_eq "$(kallsyms_pages)" 1 "slot pages after removal, round $round" &&
			expect_eq "$(slot_page_addr)" "$page" "kept page, round $round" ||
			return 1
	done
}

cleanup() {
	for n in $NAMES; do
		[ -d "$TRACING/events/kpt/$n" ] && drop_event "$n"
	done
	echo 1 >$KNOB
	[ -w $OPT ] && echo 1 >$OPT
	grep -q '^kptarget ' /proc/modules && unload
	[ -z "$(probe_list)" ] || fail "left in the list: $(probe_list)"
}

# perf probe reads "0xSTART-0xEND<TAB>symbol"; with root's view the
# addresses are real.  get_kprobe and kprobes_inc_nmissed_count are kprobes' own
# code that runs in probe context (NOKPROBE), and the entry code is the
# architecture's.  arm refuses its entry text in arch_within_kprobe_blacklist()
# alone and mips has no such text: the file names none of theirs.
blacklist_published() {
	bl=/sys/kernel/debug/kprobes/blacklist
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
		grep -qE "^0x$ADDR-0x$ADDR	$sym\$" $bl ||
			fail "$sym is not in $bl in perf's format" || return 1
	done
	! grep -qE "^0x0+-" $bl || fail "addresses hidden from root" || return 1
}

tap_begin modules 23
# Every harness kernel has kprobe events and the debugfs list: their
# absence fails every case here.
if ! need_probe_list >/tmp/modules-setup.err || [ ! -w $EVENTS ]; then
	[ -w $EVENTS ] || echo "no writable $EVENTS on a kernel built with CONFIG_KPROBE_EVENTS" >>/tmp/modules-setup.err
	sed 's/^/# /' /tmp/modules-setup.err | to_kmsg
	for i in $(seq 23); do
		tap_result not-ok "case $i: not run, the kernel lacks what every harness kernel has (above)"
	done
	exit 0
fi
check "kptarget loads" loads
check "kprobe on a module function counts every call" kprobe_counts_calls
check "list: module kprobe line" kprobe_list_line
check_unless "$NO_MOD_KRET" "kretprobe on a module function counts every return" kretprobe_counts_returns
check_unless "$NO_MOD_KRET" "list: module kretprobe line" kretprobe_list_line
check "list: a defined, disabled probe is [DISABLED]" disabled_body_probe_listed
check "enabling it: listed without [DISABLED], counts calls" enabled_body_probe_counts
check "enabled knob 0: knob reads 0, no probe fires" knob_off_stops_hits
check "enabled knob 0: each probe keeps its own [DISABLED] state" knob_off_keeps_probe_state
check "enabled knob 1: hits resume, the disabled probe stays off" knob_on_resumes_hits
check "rmmod: every probe on the module is [GONE]" unload_leaves_gone
check "rmmod: gone probes stay gone when all are re-armed, no hit or miss" unloaded_module_cannot_fire
check "insmod again: kept events fire again" kept_event_fires_after_reload
check "gone probes are unregistered with their events" gone_probes_unregister
check "reload, probe again: hits counted" reload_and_probe_again
if [ -e $OPT ] || arch_optimizes; then
	far=
	module_text_optimizable ||
		far="$(kp_arch) cannot optimize module text (its detour is out of branch range)"
	check_unless "$far" "optimized probe, reload, probe the same place: no warning" optimized_probe_reuse
	check "debug.kprobes-optimization reads 0/1, refuses other values" sysctl_values
	check_unless "$far" "debug.kprobes-optimization 0 and 1: unoptimize, keep new probes, optimize" sysctl_switch
else
	for c in "optimized probe, reload, probe the same place: no warning" \
		 "debug.kprobes-optimization reads 0/1, refuses other values" \
		 "debug.kprobes-optimization 0 and 1: unoptimize, keep new probes, optimize"; do
		skip "$c" "no jump optimization on $(kp_arch) (no HAVE_OPTPROBES)"
	done
fi
check "probe on __init text set before insmod fires once" init_probe_fires_once
if init_text_kept; then
	check "init text kept by the arch: the init probe stays live" init_probe_kept
else
	check "init text freed: the init probe is no longer live" init_probe_dropped
fi
check "the init probe's event is removed, the list is empty" init_event_removed
# riscv's backend (the base's arch/riscv/kernel/probes/kprobes.c) never
# gives a slot back: its arch_remove_kprobe() is empty, so every probe
# that single-steps leaks its slot and pages fill up and stay.
if [ "$(kp_arch)" = riscv64 ]; then
	skip "a lone probe added and removed in a loop reuses one kept slot page" \
		"riscv64's kprobes backend never frees a slot (empty arch_remove_kprobe)"
else
	check "a lone probe added and removed in a loop reuses one kept slot page" slot_page_reused
fi
check "blacklist file: NOKPROBE, kprobes' own and entry code, perf's format" blacklist_published
cleanup >/dev/null 2>&1
