# SPDX-License-Identifier: GPL-2.0
# Booting the built kernel under QEMU (TCG) with a busybox initramfs.
# shellcheck shell=bash

KP_RESULTS=$KP_ROOT/out/logs
mkdir -p "$KP_RESULTS"

# The initramfs: busybox, /init, the guest jobs, installed modules, the
# harness modules and programs, and the selftests the jobs run.
make_initramfs() {
	local root=$KP_BUILD_OUT/initramfs img=$KP_BUILD_OUT/initramfs.cpio
	rm -rf "$root"
	mkdir -p "$root"/{bin,kp/bin,kp/ext,lib}
	cp "$(busybox_for "$KP_ARCH")" "$root/bin/busybox"
	cp "$KP_HARNESS/guest/init" "$root/init"
	chmod 755 "$root/init"
	cp "$KP_HARNESS/guest/lib.sh" "$root/kp/"
	cp -r "$KP_HARNESS/guest/jobs" "$root/kp/"
	cp -r "$KP_BUILD_OUT/modroot/lib/modules" "$root/lib/"
	find "$KP_BUILD_OUT/ext" -name '*.ko' -exec cp {} "$root/kp/ext/" \; 2>/dev/null || true
	cp "$KP_BUILD_OUT"/guest-progs/* "$root/kp/bin/" 2>/dev/null || true
	cp -r "$KP_BUILD_SRC/tools/testing/selftests/ftrace" "$root/kp/ftrace"
	cp -r "$KP_BUILD_OUT/kselftest" "$root/kp/kselftest"
	# What the guest suites may ask of the config (kconfig_on in lib.sh).
	cp "$KP_BUILD_OUT/.config" "$root/kp/kernel.config"
	# The base's records for this arch and config, for the stress sweeps.
	local debug=0 kind rec
	[[ $KP_BUILD_OUT == *-debug ]] && debug=1
	mkdir -p "$root/kp/records"
	# A kind without a record of its own for this config gets the nearest
	# other record of the arch (the default config's, for a debug build;
	# the kprobes', for kretprobes, whose registration refuses at least
	# what the kprobes' does; the small config's, for a distro one), which
	# the sweep compares only where it names a function.
	for kind in kprobe kretprobe; do
		rec=$KP_HARNESS/stress/$(sweep_record_name "$KP_ARCH" "$debug" "$kind")
		if [ -f "$rec" ]; then
			cp "$rec" "$root/kp/records/$kind.txt"
			continue
		fi
		for rec in "$(sweep_record_name "$KP_ARCH" 0 "$kind")" \
			"$(sweep_record_name "$KP_ARCH" "$debug" kprobe)" \
			"$(sweep_record_name "$KP_ARCH" 0 kprobe)" \
			"$(KP_DISTRO='' sweep_record_name "$KP_ARCH" 0 "$kind")" \
			"$(KP_DISTRO='' sweep_record_name "$KP_ARCH" 0 kprobe)"; do
			rec=$KP_HARNESS/stress/$rec
			[ -f "$rec" ] || continue
			cp "$rec" "$root/kp/records/$kind.partial.txt"
			break
		done
	done
	# The instruction boundaries the base takes, for the stress suite's
	# instruction sweep (kpinsn): only this config's own record compares.
	# It runs on the distro kernels in the test command, and on every
	# kernel in the long forms (--debug, harness/kp stress), where the
	# arch has a function tracer to pick functions with.  Where it should
	# run, a missing record fails it, naming the record.
	if insn_sweep_wanted "$debug"; then
		rec=$KP_HARNESS/stress/$(sweep_record_name "$KP_ARCH" "$debug" insn)
		if [ -f "$rec" ]; then
			cp "$rec" "$root/kp/records/insn.txt"
		else
			echo "# missing: ${rec#"$KP_ROOT"/} (harness/kp sweep-record)" >"$root/kp/records/insn.txt"
		fi
	fi
	kprobes_own_names >"$root/kp/records/own.txt"
	# The documented differences of this arch, one file per kind, in a
	# record's "NAME RESULT" format (kpsweep -D).
	for kind in kprobe kretprobe; do
		awk -v arch="$KP_ARCH" -v kind="$kind" '$1 == arch && $2 == kind { print $3, $4 }' \
			"$KP_HARNESS/stress/differences.txt" >"$root/kp/records/$kind.differences.txt"
	done
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$img"
}

# The functions of this build's kprobes subsystem, built in: the symbols
# of its objects (the core's kernel/kprobes*.o, the arch's kprobes and
# probes directories).  They differ between the base and the project, so
# the sweeps do not compare those the base does not have.
kprobes_own_names() {
	{
		find "$KP_BUILD_OUT/kernel" -maxdepth 1 -name 'kprobes*.o'
		# Each arch has one of the two directories: the other is no
		# error (a failed pipeline would end "harness/kp shell").
		find "$KP_BUILD_OUT/arch/$KP_SRCARCH/kernel/kprobes" \
			"$KP_BUILD_OUT/arch/$KP_SRCARCH/kernel/probes" -name '*.o' 2>/dev/null || true
	} | grep -v -e '/built-in' -e '\.mod\.o$' -e '_kunit\.o$' |
		xargs -r "${KP_CROSS}nm" --defined-only |
		awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u
}

# insn_sweep_wanted DEBUG: does this boot run the instruction sweep?  On
# the distro kernel, the debug one, and in the stress command; not on the
# whole-config long forms, which have no base record of their own.
insn_sweep_wanted() {
	case $KP_ARCH in x86_64 | arm64) ;; *) return 1 ;; esac
	[ "${KP_DISTRO:-}" = distro ] || [ "$1" = 1 ] || [ "${KP_JOB:-}" = stress ]
}

# qemu_cmd JOB [extra kernel args]: the QEMU command line for the current
# build, into the array QEMU.
qemu_cmd() {
	local job=$1 append
	shift
	append="printk.devkmsg=on panic=-1 kp.job=$job $*"
	case $KP_ARCH in
	x86_64)
		local bin=(qemu-system-x86_64) fw=/usr/share/qemu
		if [ "${KP_MTTCG:-0}" = 1 ] && [ -z "${KP_ICOUNT:-}" ]; then
			# Debian 13's QEMU, vCPUs on threads of their own
			# (harness/lib/mttcg.sh).
			# shellcheck disable=SC2207 # paths without spaces
			bin=($(mttcg_qemu))
			fw=$KP_MTTCG_ROOT/usr/share/qemu
			stage "QEMU: Debian 13's ($("${bin[@]}" --version | head -n1)), multi-threaded TCG"
		fi
		QEMU=("${bin[@]}" -M pc -cpu max -bios "$fw/qboot.rom"
			-kernel "$KP_BUILD_OUT/$KP_IMAGE"
			-append "console=ttyS0 $append")
		# Multi-threaded TCG (QEMU 7.2) sometimes lets a vCPU run an
		# int3 that text_poke_bp() on another vCPU has already taken
		# out of memory; the base kernel oopses on it, ours loops
		# (notes/design-core.md, "QEMU and text_poke_bp").  One TCG
		# thread does not.  -icount (bench) is single-threaded already.
		# QEMU 8.1 fixed it: with --mttcg, no such option.
		[ -n "${KP_ICOUNT:-}" ] || [ "${KP_MTTCG:-0}" = 1 ] ||
			QEMU+=(-accel tcg,thread=single)
		;;
	arm64)
		# QEMU 7.2's multi-threaded TCG may translate a function while
		# another vCPU patches it and keep the old code.  arm64's ftrace
		# patches its call sites live, and in the distro kernel (ftrace
		# call ops, which -Os leaves out of the small one) entry probes
		# ride those sites: one could stay a NOP for the whole boot
		# (notes/design-core.md, "arm64 and QEMU 7.2").  So distro
		# guests run Debian 13's QEMU, or with --no-mttcg one TCG thread
		# of 7.2's; -icount (bench) is single-threaded anyway.
		local abin=(qemu-system-aarch64) newer= single=
		case ${KP_MTTCG_ARM64:-distro} in
		1) newer=1 ;;
		distro) [ -n "${KP_DISTRO:-}" ] && newer=1 ;;
		0) [ -n "${KP_DISTRO:-}" ] && single=1 ;;
		esac
		[ -n "${KP_ICOUNT:-}" ] && newer= single=
		if [ -n "$newer" ]; then
			ensure_mttcg_qemu
			# shellcheck disable=SC2207 # paths without spaces
			abin=($(mttcg_qemu qemu-system-aarch64))
			stage "QEMU: Debian 13's ($("${abin[@]}" --version | head -n1)), multi-threaded TCG"
		fi
		QEMU=("${abin[@]}" -M virt,gic-version=3 -cpu max,pauth-impdef=on
			-kernel "$KP_BUILD_OUT/$KP_IMAGE"
			-append "console=ttyAMA0 $append")
		[ -z "$single" ] || QEMU+=(-accel tcg,thread=single)
		;;
	riscv64)
		# "-bios default" is the OpenSBI that qemu-system-data ships; it
		# starts the kernel in S-mode and resets the machine for
		# "reboot -f" (SBI SRST), which -no-reboot turns into an exit.
		# earlycon (the UART the device tree names) shows a failure
		# before the 8250 driver takes the console over.
		QEMU=(qemu-system-riscv64 -M virt -cpu rv64 -bios default
			-kernel "$KP_BUILD_OUT/$KP_IMAGE"
			-append "earlycon console=ttyS0 $append")
		;;
	esac
	QEMU+=(-smp "${KP_SMP:-2}" -m "${KP_MEM:-1024}" -no-reboot
		-initrd "${KP_INITRD:-$KP_BUILD_OUT/initramfs.cpio}")
	if [ -n "${KP_ICOUNT:-}" ]; then
		QEMU+=(-icount shift=0,sleep=off)
	fi
}

# Until process PID exits, print the console as it is written: all of it
# from the job's start (demo), or only the progress markers (test, bench).
follow_console() {
	local log=$1 mode=$2 pid=$3
	tail -n +1 -F --pid="$pid" "$log" 2>/dev/null | case $mode in
	all) sed -u -n '/KP-JOB-BEGIN/,$p' ;;
	*) grep --line-buffered -E 'KP-JOB-|KP-STAGE|# kp-suite:' |
		while IFS= read -r l; do
			printf '[%s]   guest: %s\n' "$(elapsed)" "${l#*] }"
		done ;;
	esac
}

# guest_boot JOB LOGNAME FOLLOW [kernel args]: boot, wait for the guest to
# reboot or for the timeout; the console is kept in out/logs/LOGNAME.
# Returns 0, or 124 when the guest was killed by the timeout.
guest_boot() {
	local job=$1 name=$2 follow=$3 timeout rc qpid rpid monitor KP_INITRD=
	shift 3
	KP_CONSOLE=$KP_RESULTS/$name.console.log
	# A hang guard, not a budget: debug kernels (lockdep, KASAN) run the
	# same suites several times slower under TCG.
	timeout=${KP_TIMEOUT:-$((KP_DEBUG == 1 ? 3600 : 1800))}
	KP_JOB=$job make_initramfs
	# With KP_TOOLS_CPIO, the tools rootfs follows as a second archive,
	# uncompressed: the kernel unpacks both into the same root, and spends
	# no TCG time decompressing hundreds of MB.
	if [ -n "${KP_TOOLS_CPIO:-}" ]; then
		KP_INITRD=$KP_BUILD_OUT/initramfs-tools.cpio
		cat "$KP_BUILD_OUT/initramfs.cpio" "$KP_TOOLS_CPIO" >"$KP_INITRD"
	fi
	qemu_cmd "$job" "$@"
	: >"$KP_CONSOLE"
	echo "${QEMU[*]}" >"$KP_RESULTS/$name.qemu-cmdline"
	stage "booting $name (console: ${KP_CONSOLE#"$KP_ROOT"/}, timeout ${timeout}s)"
	# The monitor answers "info registers -a" (harness/lib/qmon.py): where
	# each vCPU is, which a guest hung with interrupts off never prints.
	# Just before the timeout, those registers are kept beside the console.
	monitor=${TMPDIR:-/tmp}/kp-$name.monitor
	rm -f "$monitor" "$KP_RESULTS/$name.hang-registers.txt"
	timeout -k 10 "$timeout" "${QEMU[@]}" -display none \
		-monitor "unix:$monitor,server=on,wait=off" \
		-serial "file:$KP_CONSOLE" </dev/null &
	qpid=$!
	python3 "$KP_HARNESS/lib/qmon.py" --after $((timeout > 30 ? timeout - 15 : timeout / 2)) \
		--out "$KP_RESULTS/$name.hang-registers.txt" "$monitor" 'info registers -a' &
	rpid=$!
	follow_console "$KP_CONSOLE" "$follow" "$qpid"
	rc=0
	wait "$qpid" || rc=$?
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	rm -f "$monitor"
	if ((rc == 124)); then
		warn "$name: guest still running after ${timeout}s, killed (hang)"
		[ -s "$KP_RESULTS/$name.hang-registers.txt" ] &&
			warn "$name: its vCPUs' registers before the kill: ${KP_RESULTS#"$KP_ROOT"/}/$name.hang-registers.txt (name a PC with addr2line -fe vmlinux)"
	elif ((rc != 0)); then
		warn "$name: qemu exited with status $rc"
	fi
	return $rc
}

run_name() {
	local name=$KP_VARIANT-$KP_ARCH$(flavour_suffix)
	[ "$KP_DEBUG" = 1 ] && name=$name-debug
	echo "$name-$1"
}

guest_run() {
	local job=$1 rc=0
	build_vars "$KP_VARIANT" "$2" "$KP_DEBUG"
	guest_boot "$job" "$(run_name "$job")" all || rc=$?
	python3 "$KP_HARNESS/lib/ktap.py" check "$KP_CONSOLE" --qemu-status "$rc"
}

guest_shell() {
	build_vars "$KP_VARIANT" "$1" "$KP_DEBUG"
	make_initramfs
	qemu_cmd shell
	stage "interactive shell; 'exit' in the guest, or Ctrl-a x, ends it"
	"${QEMU[@]}" -nographic -serial mon:stdio
}

# The tools suite's boot: the initramfs with the tools rootfs after it, and
# the memory to hold both while the kernel unpacks the second (about 260
# MB) and to run bpftrace's LLVM.
tools_boot() {
	local a=$1 name rc=0
	name=$(run_name tools)
	KP_TOOLS_CPIO=$KP_WORK/tools-$a/tools.cpio KP_MEM=${KP_MEM:-2048} \
		guest_boot test "$name" progress $(test_boot_args "$a") kp.only=tools || rc=$?
	rm -f "$KP_BUILD_OUT/initramfs-tools.cpio"
	python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label "$name" \
		--qemu-status "$rc" --json "$KP_RESULTS/$name.results.json" || true
}

# test_boot_args ARCH: the kernel arguments of a test boot.  The small
# config boots full preemption: the strictest model PREEMPT_DYNAMIC
# offers, and the one where a task can be preempted inside a boosted slot;
# on arm64 it masks interrupts with pseudo-NMIs (harness/config/arm64.config).
# A distro kernel boots as the distribution's does, with no argument:
# voluntary preemption under PREEMPT_DYNAMIC on x86_64, a kernel without
# CONFIG_PREEMPTION and without pseudo-NMIs on arm64.
test_boot_args() {
	[ -n "${KP_DISTRO:-}" ] && return 0
	echo preempt=full
	[ "$1" = arm64 ] && echo irqchip.gicv3_pseudo_nmi=1
	return 0
}

# test_arch ARCH: build one flavour (KP_DISTRO) of ARCH's kernel and run
# its steps; run_tests()'s locals (results, only, main, want_tools) are
# its input and output.  The harness's end-to-end checks and the host
# checks run with the small config only, the tools suite with the distro
# config where the run has one.
test_arch() {
	local a=$1 tools rc name
	tools=$want_tools
	if [ -n "$tools" ] && ! tools_debarch "$a" >/dev/null; then
		stage "tools: Debian $KP_TOOLS_SUITE has no $a packages of perf or bpftrace; the tools suite does not run on $a"
		tools=
	fi
	# Debian's perf and bpftrace run on the kernel built as Debian's is,
	# when this run has one of the arch.
	if [ -z "${KP_DISTRO:-}" ] && [[ " $(test_flavours "$a") " == *" distro "* ]]; then
		tools=
	fi
	# --only may name host checks that need no kernel of this arch, or
	# only the tools, which run on the distro kernel.
	if [ -z "$tools" ] && [ -z "$main" ]; then
		[ -z "${KP_DISTRO:-}" ] && [ -n "$only" ] && KP_ONLY=$only arch_steps_wanted ||
			return 0
	fi
	# Names the results even when the build below fails.
	build_vars "$KP_VARIANT" "$a" "$KP_DEBUG"
	# In a subshell: a failed build fails this arch, not the whole run.
	rm -f "$KP_TMP/failed-step"
	if ! (build "$KP_VARIANT" "$a" "$KP_DEBUG"); then
		name=$(run_name test)
		python3 "$KP_HARNESS/lib/ktap.py" failure "$name:build" \
			--why "$(take_failed_step "the build failed (see the log above)")" \
			--json "$KP_RESULTS/$name.results.json"
		results+=("$KP_RESULTS/$name.results.json")
		return 0
	fi
	if [ "$KP_VARIANT" = project ]; then
		check_build_warnings "$KP_RESULTS/$(run_name build).results.json"
		results+=("$KP_RESULTS/$(run_name build).results.json")
	fi
	if [ -z "${KP_DISTRO:-}" ]; then
		if [ "$a" = x86_64 ] && [ -z "$KP_ONLY" ]; then
			stage "harness end-to-end checks"
			harness_e2e "$KP_RESULTS/harness-e2e.results.json"
			results+=("$KP_RESULTS/harness-e2e.results.json"
				"$KP_RESULTS/harness-e2e-absence.results.json")
		fi
		# "--only tools" asks for no host check ("none" names none).
		KP_ONLY=${only:-${KP_ONLY:+none}} host_checks_arch results "$a"
	fi
	if [ -n "$main" ]; then
		name=$(run_name test)
		rc=0
		guest_boot test "$name" progress $(test_boot_args "$a") \
			${only:+kp.only=$only} || rc=$?
		python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label "$name" \
			--qemu-status "$rc" --json "$KP_RESULTS/$name.results.json" || true
		results+=("$KP_RESULTS/$name.results.json")
	fi
	[ -n "$tools" ] || return 0
	name=$(run_name tools)
	rm -f "$KP_TMP/failed-step"
	if ! (ensure_tools_rootfs "$a"); then
		python3 "$KP_HARNESS/lib/ktap.py" failure "$name:rootfs" \
			--why "$(take_failed_step "building the tools rootfs failed")" \
			--json "$KP_RESULTS/$name.results.json"
	else
		tools_boot "$a"
	fi
	results+=("$KP_RESULTS/$name.results.json")
}

# test_flavours ARCH: the kernel flavours the test command runs on ARCH:
# the one --distro names, or the small config and, on the arches Debian
# has 6.12 configs for, the distro one (not with --debug: the debug
# config is the small one's).
test_flavours() {
	if [ -n "${KP_DISTRO:-}" ]; then
		echo "$KP_DISTRO"
	elif [ "$KP_DEBUG" = 1 ] || ! tools_debarch "$1" >/dev/null; then
		echo small
	else
		echo small distro
	fi
}

# The whole test suite: the harness's own tests on the host, then one boot
# per arch (and per config) running every guest suite; the tools suite,
# when --only names it, in a boot of its own.
run_tests() {
	local a c flavour results=() json only=$KP_ONLY want_tools= main=1
	# The main boot runs the suites other than tools: all of them, or
	# those --only names.  The tools boot runs after it, unless --only
	# leaves tools out.
	if [ -z "$KP_ONLY" ]; then
		want_tools=1
	elif [[ ,$KP_ONLY, == *,tools,* ]]; then
		want_tools=1
		only=$(tr , '\n' <<<"$KP_ONLY" | grep -vx tools | paste -sd, || true)
	fi
	[ -z "$KP_ONLY" ] || { [ -n "$only" ] && KP_ONLY=$only guest_suites_wanted; } || main=
	rm -f "$KP_RESULTS"/*.results.json
	json=$KP_RESULTS/harness-selftest.results.json
	stage "harness self-tests"
	python3 "$KP_HARNESS/selftest/run.py" --json "$json" || true
	results+=("$json")
	# Our sources' documentation, once: it is the same on every arch.
	if [ "$KP_VARIANT" = project ]; then
		for c in kernel-doc htmldocs; do
			host_check_wanted "$c" || continue
			json=$KP_RESULTS/host-$c.results.json
			"check_${c//-/}" "$json"
			results+=("$json")
		done
	fi
	for a in $KP_ARCHES; do
		for flavour in $(test_flavours "$a"); do
			KP_DISTRO=${flavour#small} test_arch "$a" || true
		done
	done
	python3 "$KP_HARNESS/lib/ktap.py" total "${results[@]}"
}

# What the base lets be probed, as the stress suite's sweeps compare it:
# one boot per arch of the unmodified base (sweep-record.sh), whose records
# of refused functions become harness/stress/base-sweep-ARCH[-debug]-KIND.txt.
run_sweep_record() {
	local a rc kind file name conf= opt= bad= missing= kinds
	# --only names the kinds to record again; the others stay as they are.
	kinds=$(tr , ' ' <<<"${KP_ONLY:-kprobe,kretprobe,insn}")
	for kind in $kinds; do
		case $kind in kprobe | kretprobe | insn) ;;
		*) die "sweep-record: --only takes kprobe, kretprobe and insn, not '$kind'" ;;
		esac
	done
	[ "$KP_DEBUG" = 1 ] && conf=,debug opt=" --debug"
	case $KP_DISTRO in
	'') ;;
	distro) opt="$opt --distro" ;;
	*) opt="$opt --distro=$KP_DISTRO" ;;
	esac
	mkdir -p "$KP_HARNESS/stress"
	for a in $KP_ARCHES; do
		build base "$a" "$KP_DEBUG" || die "sweep-record: the base $a build failed (see the log above)"
		KP_VARIANT=base
		name=$(run_name sweep-record)
		rc=0
		# An oops of the base's ends the boot at once rather than hang it.
		KP_TIMEOUT=${KP_TIMEOUT:-10800} guest_boot sweep-record "$name" progress oops=panic \
			${KP_ONLY:+kp.only=$KP_ONLY} || rc=$?
		# Each kind's record stands on its own: one the guest finished
		# is kept even if the next one brought the base down.
		for kind in $kinds; do
			file=$KP_HARNESS/stress/$(sweep_record_name "$a" "$KP_DEBUG" "$kind")
			# The instruction record needs the function tracer,
			# which riscv64's config leaves out.
			if [ $kind = insn ] && ! grep -q "KP-RECORD-BEGIN insn" "$KP_CONSOLE"; then
				stage "no instruction boundaries recorded on $a: no function tracer"
				continue
			fi
			{
				echo "# What the base ($(base_version), harness/config/{common,$a$conf}.config$(distro_words))"
				if [ $kind = insn ]; then
					echo "# takes as kprobes inside functions: written by"
				else
					echo "# refuses to register_${kind}s(), by errno: written by"
				fi
				echo "# \"harness/kp sweep-record --arch $a$opt\"."
				sed -e 's/^\[[^]]*\] //' -e 's/\r$//' "$KP_CONSOLE" |
					sed -n "/^KP-RECORD-BEGIN $kind\$/,/^KP-RECORD-END $kind\$/p" | sed '1d;$d'
			} >"$file.new"
			if ! grep -q '^# [0-9]* tried' "$file.new" ||
				! grep -q "KP-RECORD-END $kind" "$KP_CONSOLE"; then
				rm -f "$file.new"
				missing+=" $a/$kind"
				continue
			fi
			mv "$file.new" "$file"
			if [ $kind = insn ]; then
				stage "recorded ${file#"$KP_ROOT"/}: $(grep -v '^#' "$file" | cut -d' ' -f1 | sort -u | wc -l) functions"
			else
				stage "recorded ${file#"$KP_ROOT"/}: $(grep -vc -e '^#' -e ' taken$' "$file") refused"
			fi
		done
		python3 "$KP_HARNESS/lib/ktap.py" check "$KP_CONSOLE" --qemu-status "$rc" >/dev/null ||
			bad+=" $a ($KP_CONSOLE)"
	done
	[ -z "$bad$missing" ] ||
		die "sweep-record: the base's guest failed on$bad; not recorded:${missing:- none}. The stress suite compares a kind without a record with another record of the arch, on the functions that one names"
}

# The long stress run: one boot per arch on the debug config, with four
# vCPUs and the guest's own clock (no icount).
run_stress() {
	local a results=() rc name
	rm -f "$KP_RESULTS"/*stress.results.json
	for a in $KP_ARCHES; do
		build "$KP_VARIANT" "$a" "$KP_DEBUG" || die "stress: the $a build failed (see the log above)"
		name=$(run_name stress)
		rc=0
		# The sweeps run to their end whatever --minutes says, and took
		# more than two and a half hours on a slow host: allow three more.
		KP_SMP=4 KP_TIMEOUT=${KP_TIMEOUT:-$((KP_MINUTES * 120 + 10800))} \
			guest_boot stress "$name" progress preempt=full kp.stress="$KP_MINUTES" || rc=$?
		python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label "$name" \
			--qemu-status "$rc" --json "$KP_RESULTS/$name.results.json" || true
		grep -E '# (stress|kpsweep|race|faults)' "$KP_CONSOLE" | sed 's/^\[[^]]*\] //'
		results+=("$KP_RESULTS/$name.results.json")
	done
	python3 "$KP_HARNESS/lib/ktap.py" total "${results[@]}"
}

# host_checks_arch ARRAY ARCH: the host-side checks of the arch just built
# (harness/lib/checks.sh), before its guest boots; their results files are
# added to the array named.  W=1 and sparse on x86_64 and arm64, kunit.py
# once, on x86_64.  The base's files at our paths are upstream's: --base
# skips them.
host_checks_arch() {
	local -n list=$1
	local json
	[ "$KP_VARIANT" = project ] || return 0
	build_vars "$KP_VARIANT" "$2" "$KP_DEBUG"
	case $KP_ARCH in
	x86_64 | arm64)
		if host_check_wanted w1-sparse; then
			json=$KP_RESULTS/$(run_name w1-sparse).results.json
			check_w1_sparse "$json"
			list+=("$json")
		fi
		;;
	esac
	# Once in a whole run, on x86_64; on arm64 too when --only names it.
	if host_check_wanted kunit.py && { [ "$KP_ARCH" = x86_64 ] ||
		{ [ "$KP_ARCH" = arm64 ] && [ -n "$KP_ONLY" ]; }; }; then
		json=$KP_RESULTS/kunit-py-$KP_ARCH.results.json
		check_kunit_py "$json"
		list+=("$json")
	fi
	# And a kernel without CONFIG_PREEMPTION, where boosting and the
	# kretprobe defaults take their other branches: on x86_64 (arm64's
	# distro kernel is one).
	if host_check_wanted kunit.py && [ "$KP_ARCH" = x86_64 ]; then
		json=$KP_RESULTS/kunit-py-$KP_ARCH-nopreempt.results.json
		check_kunit_py "$json" nopreempt
		list+=("$json")
	fi
	return 0
}

# bench_table ARCH BASE-CONSOLE PROJECT-CONSOLE DESCRIPTION-OF-THE-PROJECT
bench_table() {
	python3 "$KP_HARNESS/lib/bench.py" "$2" "$3" \
		"# harness/kp bench --arch $1   ($(base_version); project $4)
# QEMU TCG, -icount shift=0,sleep=off, -smp ${KP_SMP:-2}; config harness/config/{common,$1}.config
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
			KP_ICOUNT=1 guest_boot bench "$v-$a-bench" progress ||
				die "$v-$a: the benchmark guest did not finish"
			python3 "$KP_HARNESS/lib/ktap.py" check "$KP_CONSOLE" >/dev/null ||
				die "$v-$a: kernel splat or failure during the benchmark ($KP_CONSOLE)"
			logs+=("$KP_CONSOLE")
		done
		out=$KP_HARNESS/bench/$a.txt
		# A failed row (bench.py prints why under the table) leaves the
		# committed table as it was; the failed one stays in out/logs.
		bench_table "$a" "${logs[0]}" "${logs[1]}" "$desc" | tee "$KP_RESULTS/bench-$a.txt" ||
			die "$a: a row of the benchmark failed (FAILED above); ${out#"$KP_ROOT"/} is left as it was, the table is in ${KP_RESULTS#"$KP_ROOT"/}/bench-$a.txt"
		cp "$KP_RESULTS/bench-$a.txt" "$out"
		stage "table written to ${out#"$KP_ROOT"/}"
	done
}

# End-to-end checks of the verdict on a real guest (x86_64 only): a WARN
# from a probe handler fails a run whose tests pass, and a guest that never
# finishes is killed and reported as a hang.  Writes JSON results.
harness_e2e() {
	local json=$1 rc out cases=()
	build_vars "$KP_VARIANT" x86_64 "$KP_DEBUG"
	rc=0
	KP_TIMEOUT=300 guest_boot selftest-warn "$(run_name selftest-warn)" progress || rc=$?
	out=$(python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label e2e --qemu-status "$rc") || true
	if grep -q '^e2e: 1 passed, 1 failed' <<<"$out" && grep -q 'splat: WARNING:' <<<"$out"; then
		cases+=("pass warn-in-probe-handler-fails-the-run")
	else
		cases+=("fail warn-in-probe-handler-fails-the-run")
		echo "$out"
	fi
	rc=0
	KP_TIMEOUT=45 guest_boot selftest-hang "$(run_name selftest-hang)" progress 2>/dev/null || rc=$?
	out=$(python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label e2e --qemu-status "$rc") || true
	if ((rc == 124)) && grep -q 'killed after the timeout (hang)' <<<"$out"; then
		cases+=("pass hung-guest-is-killed-and-reported")
	else
		cases+=("fail hung-guest-is-killed-and-reported")
		echo "$out"
	fi
	# The suites fail, not skip, without what every harness kernel has;
	# each case of the job doctors the guest and runs a real suite.
	rc=0
	KP_TIMEOUT=900 guest_boot selftest-absence "$(run_name selftest-absence)" progress || rc=$?
	python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label harness-absence \
		--qemu-status "$rc" --json "${json%.results.json}-absence.results.json" || true
	printf '%s\n' "${cases[@]}" | python3 -c '
import json, sys
print(json.dumps([{"name": "harness:e2e/" + l.split()[1], "status": l.split()[0],
                   "why": "" if l.startswith("pass") else "verdict did not catch it"}
                  for l in sys.stdin if l.strip()]))' >"$json"
}
