#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What kprobes answer to bad input, through register_kprobe() (a test
# module's parameters) and through kprobe events: each case must get its
# errno, and leave the probe list as it found it.
KST_DIR=$(dirname "$0")
. "$KST_DIR/kprobes_lib.sh"

FUNC=kernel_clone
MFUNC=kst_target_func

# The first function symbol at or above the address START and below END
# (both kallsyms symbols): a function inside a section.  Addresses compare
# as strings: to awk, a 32-bit one such as 80103e80 is a number.
first_text_in() {
	awk -v s="$1" -v e="$2" '
		$3 == s { lo = $1 } $3 == e { hi = $1 }
		{ a[NR] = $1; t[NR] = $2; n[NR] = $3 }
		END {
			if (lo == "" || hi == "") exit
			for (i = 1; i <= NR; i++)
				if (length(a[i]) == length(lo) &&
				    a[i] "" >= lo "" && a[i] "" < hi "" &&
				    t[i] ~ /^[tT]$/ && n[i] != s) { print a[i]; exit }
		}' /proc/kallsyms
}

# Whether the kernel put no function between the kallsyms symbols START
# and END: some arches keep their entry code elsewhere and leave the entry
# text section empty (riscv's is in the irqentry text) or have none at all
# (s390's is in the kprobes text, which no probe may use either).
section_empty() {
	awk -v s="$1" -v e="$2" '
		$3 == s { lo = $1 } $3 == e { hi = $1 }
		END { exit !(lo "" == hi "") }' /proc/kallsyms
}

# A blacklisted function of kprobes' own (not the one another case uses).
own_blacklisted() {
	awk -F'\t' '$2 ~ /^kprobe/ { print $2; exit }' $BLACKLIST
}

# What a misaligned or mid-instruction offset gets: arches with a fixed
# instruction size (and s390, whose instructions are halfword aligned)
# check the alignment first.
inside_insn_errno() {
	case $(uname -m) in
	aarch64 | arm* | mips* | ppc* | s390*) echo EINVAL ;;
	*) echo EILSEQ ;;
	esac
}

# row DESCRIPTION EXPECTED how... : one case.  "how" is "reg PARAMS" (load
# kprobes_st_reg with PARAMS) or "event DEFINITION".
row() {
	desc=$1 want=$2 how=$3
	shift 3
	case $want in
	SKIP:*)
		ktap_test_skip "$desc: ${want#SKIP:}"
		return
		;;
	"" | FAIL:*)
		kst_log "$how $*: ${want#FAIL:}"
		ktap_test_fail "$desc"
		return
		;;
	esac
	before=$(kst_list_snapshot | md5sum)
	case $how in
	reg) got=$(kst_reg "$@"); lsmod | grep -q '^kprobes_st_reg ' && rmmod kprobes_st_reg ;;
	event)
		got=$(kst_event "$*")
		grep -q '^[pr][0-9]*:kst/bad ' "$EVENTS" && kst_event_drop kst/bad
		;;
	esac
	after=$(kst_list_snapshot | md5sum)
	if [ "$got" != "$want" ]; then
		kst_log "$how $*: expected $want, got $got"
		ktap_test_fail "$desc"
	elif [ "$before" != "$after" ]; then
		kst_log "$how $*: the probe list changed"
		ktap_test_fail "$desc"
	else
		ktap_test_pass "$desc"
	fi
}

kmemleak_clean() {
	ml=$KST_DEBUGFS/kmemleak
	# Objects younger than a few seconds are not reported yet.
	sleep 6
	echo scan >$ml && echo scan >$ml || return 1
	if grep -qE 'kprobe|kretprobe|rethook|kst_' $ml; then
		kst_log "kmemleak reports objects allocated by kprobes:"
		sed 's/^/#   /' $ml
		return 1
	fi
	return 0
}

kst_begin events
kst_load_target || { ktap_exit_fail_msg "cannot load the test module kprobes_st_target"; }
[ -f $KST_DEBUGFS/kmemleak ] && echo clear >$KST_DEBUGFS/kmemleak

entry=$(first_text_in __entry_text_start __entry_text_end)
noinstr=$(first_text_in __noinstr_text_start __noinstr_text_end)
own=$(own_blacklisted)
# Past the entry probe's place: some arches move a probe asked for at the
# first bytes of a function onto its ftrace site, which is still its entry.
entry_off=$(kst_event "p:kst/entry $FUNC" >/dev/null; grep -E "  $FUNC\+0x[0-9a-f]+ " $LIST |
	head -n 1 | sed -E 's/.*\+0x([0-9a-f]+) .*/\1/'; kst_event_drop kst/entry)
# Past the first 16 bytes too: powerpc takes a kretprobe anywhere in
# them (its arch_kprobe_on_func_entry()), wherever its ftrace site is.
body_from=$((0x${entry_off:-0} + 1))
[ $body_from -ge 17 ] || body_from=17
body=$(kst_body_offset $FUNC $body_from)
data=$(kst_param kprobes_st_target data_addr)
kst_log "entry text at ${entry:-?}, noinstr text at ${noinstr:-?}," \
	"kprobes' own ${own:-?}, $FUNC+${body:-?}"
# A section with no function is the arch's layout; a function the lookup
# cannot find in a section that has some is the test's failure.
entry_want=EINVAL
if [ -z "$entry" ]; then
	if section_empty __entry_text_start __entry_text_end; then
		entry_want="SKIP:this arch puts no function in the entry text section"
	else
		entry_want="FAIL:no function found in the entry text section"
	fi
fi
noinstr_want=EINVAL
[ -n "$noinstr" ] || noinstr_want="FAIL:no function found in the noinstr text section"
kret_body_want=EINVAL
[ -n "$body" ] || kret_body_want="FAIL:no instruction boundary found in $FUNC past its entry probe"
own_want=EINVAL
[ -n "$own" ] || own_want="FAIL:no kprobes function in $BLACKLIST"

# lib/ is built without ftrace's calls, and with dynamic ftrace
# trace_kprobe refuses events on functions ftrace cannot trace, on every
# arch, as in the base; without dynamic ftrace it has no such check.
if [ -f "$TRACING/available_filter_functions" ]; then
	if grep -q '^vsnprintf$' "$TRACING/available_filter_functions"; then
		notrace_want=OK
	else
		notrace_want=EINVAL
	fi
else
	notrace_want=OK
fi

ktap_set_plan 28
row "event: a function ftrace does not trace (vsnprintf, in lib/)" \
	"$notrace_want" event "p:kst/bad vsnprintf"
row "event: unknown symbol" EINVAL event "p:kst/bad kst_no_such_function"
row "event: offset inside an instruction" "$(inside_insn_errno)" event "p:kst/bad $FUNC+1"
row "event: a NOKPROBE_SYMBOL function" EINVAL event "p:kst/bad get_kprobe"
row "event: entry text" "$entry_want" event "p:kst/bad 0x$entry"
row "event: a user address: accepted as pending, nothing registered" OK event "p:kst/bad 0x400000"
row "event: kretprobe maxactive above 4096" EINVAL event "r5000:kst/bad $FUNC"
row "event: a kretprobe off the function entry" "$kret_body_want" event "r:kst/bad $FUNC+$body"
row "event: removing an event never defined" ENOENT event "-:kst/kst_never_defined"
row "register: unknown symbol" ENOENT reg symbol=kst_no_such_function
row "register: offset inside an instruction" "$(inside_insn_errno)" reg symbol=$FUNC offset=1
row "register: offset past the end of the function" ENOENT reg symbol=$MFUNC offset=0x1000000
row "register: a NOKPROBE_SYMBOL function" EINVAL reg symbol=get_kprobe
row "register: kprobes' own code ($own)" "$own_want" reg symbol=$own
row "register: entry text" "$entry_want" reg addr=0x$entry
row "register: noinstr text" "$noinstr_want" reg addr=0x$noinstr
row "register: a module's data" EINVAL reg addr=$data
row "register: kernel data (jiffies)" EINVAL reg symbol=jiffies
row "register: a user address" ENOENT reg addr=0x400000
# By name: the freed init text's address may already hold the next
# module's text (kprobes_st_reg's own, loaded for this very row).  An
# arch that lays a module's init code out with its core text (powerpc64)
# never frees it.
init_want=ENOENT
! kst_keeps_module_init ||
	init_want="SKIP:this arch keeps a module's init code after init"
row "register: module init text after init" "$init_want" reg symbol=kst_target_init
row "register: both a symbol and an address" EINVAL reg symbol=$FUNC addr=0x$(kst_sym $FUNC)
row "register: the same kprobe twice" EINVAL reg symbol=$FUNC mode=twice
row "unregister: probes never registered" OK reg symbol=$FUNC mode=never
row "register: a kretprobe off the function entry" "$kret_body_want" \
	reg kind=kretprobe symbol=$FUNC offset=$body
row "register: a kretprobe with data_size too large" E2BIG \
	reg kind=kretprobe symbol=$FUNC data_size=8192
row "register_kprobes: a bad probe in a batch undoes the good one" ENOENT \
	reg symbol=kst_no_such_function mode=batch
# Last: the base kernel oopses here.  Its failed second registration
# frees the kretprobe's rethook, and unregistering it then crashes.
row "register: the same kretprobe twice" EINVAL reg kind=kretprobe symbol=$FUNC mode=twice
rmmod kprobes_st_target
if [ -f $KST_DEBUGFS/kmemleak ]; then
	kst_check "kmemleak finds nothing kprobes allocated" kmemleak_clean
else
	ktap_test_skip "kmemleak: kernel without CONFIG_DEBUG_KMEMLEAK"
fi
ktap_finished
