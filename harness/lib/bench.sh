# SPDX-License-Identifier: GPL-2.0
# The bench command: base and project under icount, and the table that
# bench.py makes of their consoles.
# shellcheck shell=bash

# bench_table ARCH BASE-CONSOLE PROJECT-CONSOLE DESCRIPTION-OF-THE-PROJECT
bench_table() {
	python3 "$KP_HARNESS/lib/bench.py" "$2" "$3" \
		"# harness/kp bench --arch $1${KP_OS:+ --os}   ($(base_version); project $4)
# QEMU TCG, -icount shift=0,sleep=off, -smp ${KP_SMP:-2}; config harness/config/{common,$1${KP_OS:+,os}}.config
# per hit = (loop time with the probe - without) / 100000 calls"
}

# Base and project side by side under icount, one boot each per arch.
run_bench() {
	local a v logs out desc
	# Before any table is rewritten, which would count as a change.
	desc=$(project_describe)
	mkdir -p "$KP_HARNESS/bench"
	for a in $KP_ARCHES; do
		logs=()
		for v in base project; do
			KP_VARIANT=$v
			build "$v" "$a" 0
			KP_ICOUNT=1 guest_boot bench "$v-$a$(flavour_suffix)-bench" progress ||
				die "$v-$a: the benchmark guest did not finish"
			python3 "$KP_HARNESS/lib/ktap.py" check "$KP_CONSOLE" >/dev/null ||
				die "$v-$a: kernel splat or failure during the benchmark ($KP_CONSOLE)"
			logs+=("$KP_CONSOLE")
		done
		out=$KP_HARNESS/bench/$a$(flavour_suffix).txt
		# A failed row (bench.py prints why under the table) leaves the
		# committed table as it was; the failed one stays in out/logs.
		bench_table "$a" "${logs[0]}" "${logs[1]}" "$desc" | tee "$KP_RESULTS/bench-$a.txt" ||
			die "$a: a row of the benchmark failed (FAILED above); ${out#"$KP_ROOT"/} is left as it was, the table is in ${KP_RESULTS#"$KP_ROOT"/}/bench-$a.txt"
		cp "$KP_RESULTS/bench-$a.txt" "$out"
		stage "table written to ${out#"$KP_ROOT"/}"
	done
}
