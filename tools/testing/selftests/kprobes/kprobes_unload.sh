#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Thousands of probes on one module: one register_kprobes() batch of 4096
# breakpoints over the test module's 32 functions of nops, each fires
# once per call, the module unloads quickly under them and leaves them
# all [GONE], and the prober then unregisters them all cleanly.
KST_DIR=$(dirname "$0")
. "$KST_DIR/kprobes_lib.sh"

MOD=kprobes_st_target
NR=4096
PER_FUNC=128
# Seconds the unload may take.  It is a few milliseconds on a real
# machine; this allows for slow emulators and debug kernels.
UNLOAD_LIMIT=20

# Centiseconds since boot.
now_cs() {
	awk '{ split($1, t, "."); print t[1] * 100 + substr(t[2] "00", 1, 2) }' /proc/uptime
}

# Jump optimization may have reached some of them ([OPTIMIZED]).
module_lines() {
	grep -cE "  kst_many_[0-9]+\+0x[0-9a-f]+  $MOD (\[OPTIMIZED\])?\$" $LIST
}

register_many() {
	kst_load_target || return 1
	addrs=$(kst_param $MOD many)
	r=$(kst_reg mode=many per_func=$PER_FUNC many=$addrs)
	kst_expect OK "$r" "loading kprobes_st_reg mode=many" || return 1
	kst_expect $NR "$(module_lines)" "list lines on the kst_many_* functions"
}

each_fires_once() {
	h=$(kst_param kprobes_st_reg hits)
	echo 1 >/sys/module/$MOD/parameters/run_many || return 1
	kst_expect $((h + NR)) "$(kst_param kprobes_st_reg hits)" \
		"hits after one call of each function"
}

unload_under_them() {
	t0=$(now_cs)
	rmmod $MOD || return 1
	t1=$(now_cs)
	kst_log "rmmod $MOD with $NR probes on it: $(((t1 - t0) * 10)) ms"
	kst_expect $NR "$(grep -c '\[GONE\]' $LIST)" "[GONE] lines after the unload" || return 1
	[ $((t1 - t0)) -le $((UNLOAD_LIMIT * 100)) ] && return 0
	kst_log "the unload took longer than $UNLOAD_LIMIT s"
	return 1
}

gone_ones_unregister() {
	rmmod kprobes_st_reg || return 1
	kst_expect "$KST_BEFORE" "$(kst_list_snapshot | md5sum)" \
		"the list, compared with before the test"
}

kst_begin
KST_BEFORE=$(kst_list_snapshot | md5sum)
ktap_set_plan 4
kst_check "$NR probes in one batch over 32 functions of a module are listed" register_many
kst_check "each of them fires once per call" each_fires_once
kst_check "the module unloads under them within $UNLOAD_LIMIT s and leaves $NR [GONE]" \
	unload_under_them
kst_check "the prober unregisters them all; the list is as before" gone_ones_unregister
ktap_finished
