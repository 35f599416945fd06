# SPDX-License-Identifier: GPL-2.0
# The host-side checks of "harness/kp test", run before the guests boot:
# kernel-doc and the trace documentation build on our sources, W=1 and
# sparse on our objects, and upstream's kunit.py over our KUnit config.
# Each writes a results file in ktap.py's JSON form, so its findings count
# (and fail) like any test case and are named with the step.
# shellcheck shell=bash

# The steps, as --only names them (the guest suites are the others).
KP_HOST_CHECKS="kernel-doc htmldocs w1-sparse kunit.py"

# The KUnit config of our suites, relative to the kernel tree.
KP_KUNITCONFIG=kernel/kprobes.kunitconfig

# host_check_wanted NAME: --only names it, or names nothing.
host_check_wanted() {
	[ -z "$KP_ONLY" ] && return 0
	case ",$KP_ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

# only_names_known: every step "test --only" names is a guest suite (a
# harness/guest/jobs/suite-NAME.sh) or a host check; an unknown one would
# run nothing, and the run would pass.
only_names_known() {
	local s suites
	for s in ${KP_ONLY//,/ }; do
		[ -f "$KP_HARNESS/guest/jobs/suite-$s.sh" ] && continue
		case " $KP_HOST_CHECKS " in *" $s "*) continue ;; esac
		suites=$(cd "$KP_HARNESS/guest/jobs" && ls suite-*.sh | sed 's/^suite-//; s/\.sh$//' | paste -sd, -)
		die "--only: no step named '$s' (guest suites: $suites; host checks: ${KP_HOST_CHECKS// /,})"
	done
}

# guest_suites_wanted: --only names a guest suite, or names nothing.
guest_suites_wanted() {
	local s
	[ -z "$KP_ONLY" ] && return 0
	for s in ${KP_ONLY//,/ }; do
		case " $KP_HOST_CHECKS " in *" $s "*) ;; *) return 0 ;; esac
	done
	return 1
}

# arch_steps_wanted: a step that needs the arch's kernel is wanted.
arch_steps_wanted() {
	guest_suites_wanted || host_check_wanted w1-sparse || host_check_wanted kunit.py
}

# check_result JSON NAME WHY: one case, passed when WHY is empty.
check_result() {
	local json=$1 name=$2 why=$3
	if [ -z "$why" ]; then
		printf '[{"name": "%s", "status": "pass", "why": ""}]\n' "$name" >"$json"
	else
		python3 "$KP_HARNESS/lib/ktap.py" failure "$name" --why "$why" --json "$json"
	fi
}

# findings LOG: the first lines of LOG, indented, for a failure message.
findings() {
	head -n 6 "$1" | sed 's/^/    /'
}

# Why a check that found no file of ours fails: a check of nothing
# must not pass.
no_files_of_ours() {
	echo "git ls-files lists no file of ours (outside harness/ and notes/) in $KP_ROOT: run it from the project's git checkout"
}

# check_build_warnings JSON: the kernel build of this run (its log, as
# build() wrote it: ccache repeats a cached compile's warnings) warned of
# nothing, in any file.  A distro config turns on what the small one does
# not (objtool's checks for IBT, return thunks and retpolines), so only
# its build finds some.  The project's builds only: the base's are
# references.
check_build_warnings() {
	local json=$1 log=$KP_BUILD_OUT/build.log why='' warnings
	warnings=$(grep ': warning: ' "$log" || true)
	if [ -n "$warnings" ]; then
		why="$(wc -l <<<"$warnings") warnings in ${log#"$KP_ROOT"/}, the first:
$(head -n 6 <<<"$warnings" | sed 's/^/    /')"
	fi
	check_result "$json" "$(run_name build):warnings" "$why"
}

# check_kerneldoc JSON: "scripts/kernel-doc -none" (what W=1 runs on every
# file it compiles) reports nothing on our C files and headers.  With
# -none it exits 0 whatever it finds: any other status is its own failure.
check_kerneldoc() {
	local json=$1 log=$KP_RESULTS/kernel-doc.log files why='' rc=0
	stage "kernel-doc -none on our sources"
	mapfile -t files < <(matrix_our_files | grep -E '\.[ch]$')
	if ((${#files[@]} == 0)); then
		why="kernel-doc: no C file or header to check; $(no_files_of_ours)"
		printf '%s\n' "$why" >&2
		check_result "$json" "host:kernel-doc" "$why"
		return 0
	fi
	(cd "$KP_SRC" && perl scripts/kernel-doc -none "${files[@]}") >"$log" 2>&1 || rc=$?
	if grep -qiE 'warning|error' "$log"; then
		why="kernel-doc -none reports $(grep -ciE 'warning|error' "$log") finding(s) in our sources (log: ${log#"$KP_ROOT"/}):
$(grep -iE 'warning|error' "$log" >"$KP_TMP/kdoc" || true; findings "$KP_TMP/kdoc")"
	elif ((rc != 0)); then
		why="kernel-doc -none on our ${#files[@]} files exited with status $rc (log: ${log#"$KP_ROOT"/}):
$(findings "$log")"
	fi
	[ -z "$why" ] || printf '%s\n' "$why" >&2
	check_result "$json" "host:kernel-doc" "$why"
}

# The strings by which Sphinx and kernel-doc name our files in a warning:
# "path:" and, for a document, its name without ".rst" (Sphinx's form).
our_file_patterns() {
	matrix_our_files | sed -e 's/$/:/' -e 'p' -e 's/\.rst:$/:/' | sort -u
}

# check_htmldocs JSON: "make SPHINXDIRS=trace htmldocs" builds, and no
# warning it prints names one of our files (the kernel-doc:: directives of
# Documentation/trace/kprobes.rst pull in our sources, so their comments
# are checked as Sphinx reads them too).
check_htmldocs() {
	local json=$1 out=$KP_OUT/htmldocs log=$KP_RESULTS/htmldocs.log why=''
	# Sphinx warns only about the documents it reads again: start afresh
	# (a few seconds) so that a warning shows on every run.
	rm -rf "$out/Documentation/output"
	mkdir -p "$out"
	: >"$log"
	if ! run_step "make SPHINXDIRS=trace htmldocs" "$log" \
		make -C "$KP_SRC" O="$out" SPHINXDIRS=trace htmldocs; then
		check_result "$json" "host:htmldocs" \
			"make SPHINXDIRS=trace htmldocs failed (log: ${log#"$KP_ROOT"/})"
		return 0
	fi
	our_file_patterns >"$KP_TMP/our-patterns"
	grep -iE 'warning|error' "$log" | grep -F -f "$KP_TMP/our-patterns" >"$KP_TMP/doc-findings" || true
	if [ ! -s "$KP_TMP/our-patterns" ]; then
		why="htmldocs: no warning could name a file of ours; $(no_files_of_ours)"
		printf '%s\n' "$why" >&2
	elif [ -s "$KP_TMP/doc-findings" ]; then
		why="htmldocs: $(wc -l <"$KP_TMP/doc-findings") warning(s) name our files (log: ${log#"$KP_ROOT"/}):
$(findings "$KP_TMP/doc-findings")"
		printf '%s\n' "$why" >&2
	fi
	check_result "$json" "host:htmldocs" "$why"
}

# check_w1_sparse JSON: our C and assembly files that the test kernel of
# $KP_ARCH builds compile with no warning at W=1, and sparse (C=1, which
# reads C only) reports nothing on them.
# They are rebuilt in a directory of their own ($KP_OUT/check-ARCH) with
# the test kernel's .config, so the test kernel is not rebuilt or relinked
# afterwards.  Our objects are deleted first: every run compiles them
# (ccache replays the compiler's warnings), so every run runs sparse.
check_w1_sparse() {
	local json=$1 main=$KP_BUILD_OUT out=$KP_OUT/check-$KP_ARCH log name why='' rc=0
	local targets=() f o scan
	name=project-$KP_ARCH:w1-sparse
	log=$KP_RESULTS/w1-sparse-$KP_ARCH.log
	mkdir -p "$out"
	: >"$log"
	matrix_our_files >"$KP_TMP/ours"
	while read -r f; do
		case $f in *.c | *.S) ;; *) continue ;; esac
		o=${f%.?}.o
		[ -f "$main/$o" ] || continue
		targets+=("$o")
		rm -f "$out/$o"
	done <"$KP_TMP/ours"
	if ((${#targets[@]} == 0)); then
		check_result "$json" "$name" "no object of ours in $main: was the kernel built?"
		return 0
	fi
	cmp -s "$main/.config" "$out/.config" || cp "$main/.config" "$out/.config"
	(
		KP_BUILD_OUT=$out
		run_step "preparing $(basename "$out")" "$log" kmake olddefconfig prepare &&
			run_step "W=1 C=1 on our ${#targets[@]} files ($KP_ARCH)" "$log" \
				kmake -k W=1 C=1 "${targets[@]}"
	) || rc=$?
	scan=$(scan_build_log "$log" --src "$KP_SRC" --out "$out" --ours "$KP_TMP/ours") || true
	grep -E '^(ours|error): ' <<<"$scan" | cut -d' ' -f2- >"$KP_TMP/w1-findings" || true
	if [ -s "$KP_TMP/scan-why" ]; then
		why="W=1/sparse on $KP_ARCH: $(cat "$KP_TMP/scan-why")"
	elif [ -s "$KP_TMP/w1-findings" ]; then
		why="W=1/sparse on $KP_ARCH: $(wc -l <"$KP_TMP/w1-findings") finding(s) (log: ${log#"$KP_ROOT"/}):
$(findings "$KP_TMP/w1-findings")"
	elif ((rc != 0)); then
		why="W=1/sparse on $KP_ARCH: make failed (log: ${log#"$KP_ROOT"/})"
	fi
	[ -z "$why" ] || printf '%s\n' "$why" >&2
	check_result "$json" "$name" "$why"
}

# check_kunit_py JSON: upstream's kunit.py builds a kernel from our KUnit
# config and runs it under QEMU, as a kernel developer would; each of its
# cases counts, and a kernel splat in its log fails the run.  Six CPUs and
# full preemption: then every case runs (on one CPU without preemption,
# kunit.py's default, one skips; with fewer than five CPUs,
# kretprobe_idle_spares_do_not_grow).  QEMU options the arch needs come
# from harness/arch/ARCH.sh (one TCG thread on x86_64, for the reason
# given there).  VARIANT "nopreempt" builds with CONFIG_PREEMPT_NONE
# instead, where boosting and the kretprobe defaults take their other
# branches (arm64's distro kernel is such a kernel), and with
# CONFIG_DEBUG_ATOMIC_SLEEP, whose CONFIG_PREEMPT_COUNT lets RCU's tick
# count an interrupted kernel context as quiescent: the waits for tasks
# to leave probed code must not trust plain RCU there.
check_kunit_py() {
	local json=$1 variant=${2:-} rc=0 sfx=${2:+-$2}
	local label=kunit.py-$KP_ARCH$sfx dir=$KP_OUT/kunit-$KP_ARCH$sfx
	local log=$KP_RESULTS/kunit-py-$KP_ARCH$sfx.log
	local args=(run --kunitconfig="$KP_SRC/$KP_KUNITCONFIG" --arch="$KP_ARCH"
		--build_dir="$dir" --jobs="$(nproc)" --timeout=900 --json="$dir/results.json"
		--make_options "CC=ccache ${KP_CROSS}gcc" --make_options "HOSTCC=ccache gcc"
		--qemu_args "-smp 6")
	if [ "$variant" = nopreempt ]; then
		args+=(--kconfig_add CONFIG_PREEMPT_DYNAMIC=n --kconfig_add CONFIG_PREEMPT_NONE=y
			--kconfig_add CONFIG_DEBUG_ATOMIC_SLEEP=y)
	else
		args+=(--kernel_args preempt=full)
	fi
	[ -n "$KP_CROSS" ] && args+=(--cross_compile="$KP_CROSS")
	((${#KP_KUNIT_QEMU_ARGS[@]} == 0)) || args+=(--qemu_args "${KP_KUNIT_QEMU_ARGS[*]}")
	mkdir -p "$dir"
	: >"$log"
	rm -f "$dir/results.json" "$dir/test.log"
	run_step "kunit.py run --kunitconfig=$KP_KUNITCONFIG --arch=$KP_ARCH${variant:+ ($variant)}" "$log" \
		python3 "$KP_SRC/tools/testing/kunit/kunit.py" "${args[@]}" || rc=$?
	# What the variant asked for must be what kunit.py's kernel got.
	if [ "$variant" = nopreempt ]; then
		for opt in CONFIG_PREEMPT_NONE CONFIG_PREEMPT_COUNT; do
			grep -qx "$opt=y" "$dir/.config" && continue
			rc=1
			echo "kunit.py's kernel came out without $opt=y, which the nopreempt variant asks for (CONFIG_PREEMPT_COUNT through CONFIG_DEBUG_ATOMIC_SLEEP)" >>"$log"
		done
	fi
	python3 "$KP_HARNESS/lib/ktap.py" kunitpy "$dir/results.json" \
		--label "$label" --log "$dir/test.log" --status "$rc" --output "$log" \
		--why "kunit.py exited with status $rc (log: ${log#"$KP_ROOT"/})" \
		--json "$json" || true
}
