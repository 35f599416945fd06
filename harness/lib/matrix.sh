# SPDX-License-Identifier: GPL-2.0
# harness/kp matrix: a small kernel for every architecture with kprobes
# that Debian can cross-compile (Debian 13's compiler for loongarch64),
# and x86_64 and arm64 in the configurations a build bot would try, built
# over the project (or the base).  The kernels are not booted: the matrix
# shows that the core, the KUnit suite and the samples build everywhere,
# with every kprobes feature the architecture offers, and that none of our
# files warns at W=1.
# shellcheck shell=bash

KP_MATRIX_ARCHES="x86_64 i386 arm64 arm riscv64 powerpc64le s390x arc mips mipsel mips64 mips64el"
KP_MATRIX_ARCHES+=" parisc parisc64 sh sparc64 loongarch64"
# Configuration variants, as a build bot would try them: "ARCH+NAME" is the
# arch's kernel with harness/config/matrix/variant-NAME.config on top.  The
# whole matrix ("all", or no --arch) builds each on these arches.
KP_MATRIX_VARIANTS="nojumplabel noftrace nomodules kunit-builtin nokunit nosmp nopreempt nokprobes"
KP_MATRIX_VARIANT_ARCHES="x86_64 arm64"
KP_MATRIX_LOGS=$KP_ROOT/out/logs

# matrix_packages [NAME]: the compilers of the arches this run builds
# ($KP_ARCHES), one a line, each once: NAME is KP_CROSS_PACKAGE (the
# default: Debian 12's, in KP_PACKAGES's "package:command" form; the host
# gcc builds x86_64) or KP_CROSS_TREE_PACKAGE (Debian 13's, for
# harness/lib/crosstree.sh's tree).
matrix_packages() {
	local a p
	for a in $KP_ARCHES; do
		p=$(arch_fact "${a%%+*}" "${1:-KP_CROSS_PACKAGE}")
		# shellcheck disable=SC2086 # one word per package
		[ -z "$p" ] || printf '%s\n' $p
	done | sort -u
}

# What an arch offers (a HAVE_ symbol set by its Kconfig) and the option
# that must then be on.  OPTPROBES and KPROBES_ON_FTRACE have no prompt
# and quietly stay off when a dependency is missing; this catches that
# even where an arch fragment forgot to name them.
KP_MATRIX_OFFERS=(
	"HAVE_KPROBES:KPROBES"
	"HAVE_KRETPROBES:KRETPROBES"
	"HAVE_RETHOOK:KRETPROBES"
	"HAVE_OPTPROBES:OPTPROBES"
	"HAVE_KPROBES_ON_FTRACE:KPROBES_ON_FTRACE"
	"HAVE_REGS_AND_STACK_ACCESS_API:KPROBE_EVENTS"
)

# Every arch and every variant of the matrix, as --arch names them.
matrix_all() {
	local a v
	echo "$KP_MATRIX_ARCHES"
	for a in $KP_MATRIX_VARIANT_ARCHES; do
		for v in $KP_MATRIX_VARIANTS; do
			matrix_variant_exists "$a" "$v" && echo "$a+$v"
		done
	done
}

# matrix_variant_exists ARCH NAME: can ARCH be configured as the variant?
# Not when its arch file lists it in KP_MATRIX_NO_VARIANTS (arm64 is
# always SMP).
matrix_variant_exists() {
	local no
	no=$(arch_fact "$1" KP_MATRIX_NO_VARIANTS)
	[[ " $no " != *" $2 "* ]]
}

matrix_check_arches() {
	local a
	for a in $KP_ARCHES; do
		case " $KP_MATRIX_ARCHES " in
		*" ${a%%+*} "*) ;;
		*) die "unknown arch '${a%%+*}' for matrix (one or more of: ${KP_MATRIX_ARCHES// /, }, or all)" ;;
		esac
		[ "$a" = "${a%%+*}" ] && continue
		[ -f "$KP_HARNESS/config/matrix/variant-${a#*+}.config" ] ||
			die "unknown matrix variant '${a#*+}' in '$a' (one of: ${KP_MATRIX_VARIANTS// /, })"
		matrix_variant_exists "${a%%+*}" "${a#*+}" ||
			die "'$a': ${a%%+*} cannot be configured that way (see KP_MATRIX_NO_VARIANTS in harness/arch/${a%%+*}.sh)"
	done
}

# matrix_vars VARIANT ARCH[+CONFIG]: the build variables for one matrix
# kernel; KP_MATRIX_CONFIG is the configuration variant's name, if any.
matrix_vars() {
	arch_vars "${2%%+*}"
	KP_MATRIX_CONFIG=
	[ "$2" = "${2%%+*}" ] || KP_MATRIX_CONFIG=${2#*+}
	KP_BUILD_SRC=$(src_for "$1")
	KP_BUILD_OUT=$KP_OUT/matrix-$1-$2
	KP_MATRIX_LOG=$KP_MATRIX_LOGS/matrix-$1-$2.log
}

# Every option an offered feature needs that did not come out on.
# A variant that turns a feature off on purpose names it "=n".
matrix_check_offers() {
	local cfg=$1 ours=$2 bad=0 entry have sym
	for entry in "${KP_MATRIX_OFFERS[@]}"; do
		have=CONFIG_${entry%%:*}
		sym=CONFIG_${entry#*:}
		grep -qx "$have=y" "$cfg" || continue
		grep -qx "$sym=n" "$ours" && continue
		grep -qE "^$sym=[ym]$" "$cfg" && continue
		echo "  $sym is off although the arch offers it ($have=y)"
		bad=1
	done
	return $bad
}

# The base's tinyconfig (its fragments over allnoconfig, as "make
# tinyconfig" does) with the matrix fragments on top, in one allnoconfig
# pass so that later lines win; olddefconfig then settles it.  Configures
# again only when the fragments changed.  Writes what did not come out as
# written to $KP_TMP/matrix-why and fails.
matrix_configure() {
	local log=$1 frag=$KP_BUILD_OUT/kp.fragment ours=$KP_BUILD_OUT/kp.matrix.config f sum
	local layers=("$KP_HARNESS/config/matrix/common.config" "$KP_HARNESS/config/matrix/$KP_ARCH.config")
	[ -z "$KP_MATRIX_CONFIG" ] ||
		layers+=("$KP_HARNESS/config/matrix/variant-$KP_MATRIX_CONFIG.config")
	# A later fragment may override a line of an earlier one (riscv's
	# function tracer needs a kernel that is not preemptible; a variant
	# turns a feature off): drop the earlier lines it sets, so that every
	# line left must come out as written.
	: >"$ours"
	for f in "${layers[@]}"; do
		awk -F= 'FNR == NR { if (/^CONFIG_/) set[$1] = 1; next } !($1 in set)' \
			"$f" "$ours" >"$ours.new"
		cat "$f" >>"$ours.new"
		mv "$ours.new" "$ours"
	done
	{
		for f in kernel/configs/tiny-base.config kernel/configs/tiny.config \
			"arch/$KP_SRCARCH/configs/tiny.config"; do
			[ -f "$KP_BUILD_SRC/$f" ] && cat "$KP_BUILD_SRC/$f"
		done
		cat "$ours"
	} >"$frag.new"
	sum=$(sha1sum "$frag.new" | cut -c1-40)
	if [ -f "$KP_BUILD_OUT/.config" ] && [ "$(cat "$frag.sum" 2>/dev/null)" = "$sum" ]; then
		rm -f "$frag.new"
	else
		mv "$frag.new" "$frag"
		rm -f "$frag.sum"
		run_step "configuring $(basename "$KP_BUILD_OUT")" "$log" \
			kmake KCONFIG_ALLCONFIG="$frag" allnoconfig || return
		run_step "olddefconfig" "$log" kmake olddefconfig || return
		echo "$sum" >"$frag.sum"
	fi
	# Checked on every run, not only after configuring: a config that
	# failed the check stays failed until the fragments change.
	# With --base, options only the project has are left out: said, not
	# failing.
	local bad=0
	{
		check_config "$ours" "$KP_BUILD_OUT/.config" || bad=1
		matrix_check_offers "$KP_BUILD_OUT/.config" "$ours" || bad=1
	} >"$KP_TMP/matrix-config.txt"
	if ((bad == 0)); then
		cat "$KP_TMP/matrix-config.txt" >>"$log"
	else
		{
			echo "  the config is not what harness/config/matrix/{common,$KP_ARCH${KP_MATRIX_CONFIG:+,variant-$KP_MATRIX_CONFIG}}.config asks for:"
			cat "$KP_TMP/matrix-config.txt"
		} | tee -a "$log" >"$KP_TMP/matrix-why"
		return 1
	fi
}

# The project's files (git ls-files outside harness/ and notes/), relative
# to the kernel tree; for --base too, so both are held to the same files.
matrix_our_files() {
	git -C "$KP_ROOT" ls-files -- . ':!harness' ':!notes'
}

# Our C files that this config builds, as single targets to rebuild with
# W=1: the module itself for a module, so modpost checks it at W=1 too.
matrix_w1_targets() {
	local f o
	while read -r f; do
		case $f in *.c) ;; *) continue ;; esac
		o=${f%.c}.o
		[ -f "$KP_BUILD_OUT/$o" ] || continue
		if [ -f "$KP_BUILD_OUT/${f%.c}.ko" ]; then
			echo "${f%.c}.ko"
		else
			echo "$o"
		fi
	done <"$KP_TMP/matrix-ours"
}

# The functions our objects define, for warnings that name a function
# rather than a file.
matrix_our_symbols() {
	local f
	while read -r f; do
		case $f in *.c | *.S) ;; *) continue ;; esac
		f=$KP_BUILD_OUT/${f%.*}.o
		[ -f "$f" ] || continue
		kcross nm --defined-only "$f" 2>/dev/null | awk '$2 ~ /^[TtWw]$/ { print $3 }'
	done <"$KP_TMP/matrix-ours" | sed 's/\..*//' | sort -u
}

# scan_build_log LOG ARGS...: harness/lib/matrix_scan.py on a build log,
# its lines on stdout.  Returns 0 for a clean log and 1 for findings, as
# the scanner does; 2 when the scan did not finish (it crashed, or its
# output lacks its last line, "other-warnings: N"): then what it printed
# is no verdict, and $KP_TMP/scan-why says what happened.  A crash must
# never read as a clean log.
scan_build_log() {
	local out rc=0
	rm -f "$KP_TMP/scan-why"
	out=$(python3 "$KP_HARNESS/lib/matrix_scan.py" "$@" 2>"$KP_TMP/scan-err") || rc=$?
	printf '%s\n' "$out"
	if ((rc <= 1)) && [[ ${out##*$'\n'} =~ ^other-warnings:\ [0-9]+$ ]]; then
		return "$rc"
	fi
	{
		printf 'harness/lib/matrix_scan.py did not finish reading %s (exit %d%s),' \
			"${1#"$KP_ROOT"/}" "$rc" "$( ((rc > 1)) || echo ', no last line')"
		echo " so its warnings and errors were not checked; fix the scanner (run it by hand on that log). Its last words:"
		tail -n 3 "$KP_TMP/scan-err" | sed 's/^/    /'
	} >"$KP_TMP/scan-why"
	return 2
}

# matrix_only_base_errors SCAN: did the build fail only on errors the
# arch file lists in KP_MATRIX_BASE_ERRORS (extended regexes), errors the
# unmodified base has too, in files that are not ours?  At least one
# error, none of ours, every one listed.
matrix_only_base_errors() {
	local scan=$1 line pat listed
	((${#KP_MATRIX_BASE_ERRORS[@]} > 0)) || return 1
	grep -q '^ours: ' <<<"$scan" && return 1
	grep -q '^error: ' <<<"$scan" || return 1
	while IFS= read -r line; do
		listed=
		for pat in "${KP_MATRIX_BASE_ERRORS[@]}"; do
			grep -qE -- "$pat" <<<"$line" && { listed=1; break; }
		done
		[ -n "$listed" ] || return 1
	done < <(grep '^error: ' <<<"$scan" | cut -d' ' -f2-)
}

# matrix_arch VARIANT ARCH: configure, build and check one kernel.  Run in
# a subshell; on failure $KP_TMP/matrix-why says why.
#
# Every run builds our objects twice, normally and then again at W=1 (as
# single targets), so the next normal build rebuilds them once more: each
# run sees their warnings, incremental or not.  Warnings our headers cause
# in other files show only when those files compile, so after a failed run
# the next one starts from "make clean" (ccache makes that cheap) rather
# than trusting objects whose warnings it did not see.
matrix_arch() {
	local variant=$1 arch=$2 log rc=0 targets scan base=
	[ "$variant" = base ] && base=1
	matrix_vars "$variant" "$arch"
	log=$KP_MATRIX_LOG
	mkdir -p "$KP_BUILD_OUT" "$KP_MATRIX_LOGS"
	: >"$log"
	if [ -f "$KP_BUILD_OUT/kp.matrix-failed" ]; then
		run_step "cleaning matrix-$variant-$arch (its last run failed)" "$log" \
			kmake clean || return
	fi
	matrix_configure "$log" || return
	touch "$KP_BUILD_OUT/kp.matrix-failed"
	run_step "building matrix-$variant-$arch" "$log" kmake -k all || rc=1
	matrix_our_files >"$KP_TMP/matrix-ours"
	targets=$(matrix_w1_targets)
	if [ -n "$targets" ]; then
		# shellcheck disable=SC2086
		run_step "rebuilding our files with W=1" "$log" kmake -k W=1 $targets || rc=1
	fi
	matrix_our_symbols >"$KP_TMP/matrix-symbols"
	scan=$(scan_build_log "$log" --src "$KP_BUILD_SRC" \
		--out "$KP_BUILD_OUT" --ours "$KP_TMP/matrix-ours" \
		--symbols "$KP_TMP/matrix-symbols" ${base:+--base}) || rc=1
	if [ -s "$KP_TMP/scan-why" ]; then
		# What make printed is unread: the row fails, naming the scanner.
		sed 's/^/  /' "$KP_TMP/scan-why" | tee -a "$log" >"$KP_TMP/matrix-why"
		return 1
	fi
	# The base's warnings at our paths are upstream's: shown, not failing.
	grep '^note: ' <<<"$scan" | cut -d' ' -f2- | head -n 4 |
		sed 's/^/  base warns (not failing): /' >"$KP_TMP/matrix-notes" || true
	if ((rc != 0)) && matrix_only_base_errors "$scan"; then
		# Shown, as the base's warnings are; our files were checked.
		grep '^error: ' <<<"$scan" | cut -d' ' -f2- | head -n 2 |
			sed "s|^|  the base's own error (harness/arch/$KP_ARCH.sh): |" \
			>>"$KP_TMP/matrix-notes"
		rc=0
	fi
	if ((rc != 0)); then
		# Our own lines first: they are what the matrix is about.
		{
			grep '^ours: ' <<<"$scan" || true
			grep '^error: ' <<<"$scan" || true
		} | cut -d' ' -f2- | head -n 8 | sed 's/^/  /' >"$KP_TMP/matrix-why"
		[ -s "$KP_TMP/matrix-why" ] ||
			echo "  make failed; see the log" >"$KP_TMP/matrix-why"
		return 1
	fi
	rm -f "$KP_BUILD_OUT/kp.matrix-failed"
}

# The matrix over $KP_ARCHES: one line per arch, then "N passed, N failed".
# With KP_BUILD_LOCK set, each arch is built holding that lock (flock), so
# that a machine shared with other builds takes them one at a time.
run_matrix() {
	local a t0 secs pass=0 fail=0 results=$KP_TMP/matrix-results cache
	cache=$(ccache_counts)
	: >"$results"
	for a in $KP_ARCHES; do
		rm -f "$KP_TMP/matrix-why" "$KP_TMP/matrix-notes" "$KP_TMP/matrix-t0" \
			"$KP_TMP/failed-step"
		if (
			if [ -n "${KP_BUILD_LOCK:-}" ]; then
				exec 9>>"$KP_BUILD_LOCK"
				flock -n 9 || { stage "waiting for $KP_BUILD_LOCK"; flock 9; }
			fi
			date +%s >"$KP_TMP/matrix-t0"
			matrix_arch "$KP_VARIANT" "$a"
		); then
			t0=$(cat "$KP_TMP/matrix-t0")
			secs=$(($(date +%s) - t0))
			printf 'PASS %-22s %4ds\n' "$a" "$secs" >>"$results"
			cat "$KP_TMP/matrix-notes" 2>/dev/null >>"$results" || true
			pass=$((pass + 1))
		else
			t0=$(cat "$KP_TMP/matrix-t0" 2>/dev/null || date +%s)
			secs=$(($(date +%s) - t0))
			matrix_vars "$KP_VARIANT" "$a"
			printf 'FAIL %-22s %4ds  log: %s\n' "$a" "$secs" \
				"${KP_MATRIX_LOG#"$KP_ROOT"/}" >>"$results"
			if [ -s "$KP_TMP/matrix-why" ]; then
				cat "$KP_TMP/matrix-why" >>"$results"
			else
				echo "  $(take_failed_step "the build failed")" >>"$results"
			fi
			fail=$((fail + 1))
		fi
	done
	ccache_report "$cache"
	echo
	echo "matrix ($KP_VARIANT):"
	cat "$results"
	echo "$pass passed, $fail failed"
	((fail == 0))
}
