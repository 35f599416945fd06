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
	cp "$KP_BUSYBOX" "$root/bin/busybox"
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
	[ -n "$KP_OWN_BACKEND" ] || return 1
	[ "${KP_DISTRO:-}" = distro ] || [ "$1" = 1 ] || [ "${KP_JOB:-}" = stress ]
}

# qemu_cmd JOB [extra kernel args]: the QEMU command line for the current
# build, into the array QEMU.
qemu_cmd() {
	local job=$1 append
	shift
	append="printk.devkmsg=on panic=-1 kp.job=$job $*"
	# The arch's part: harness/arch/$KP_ARCH.sh.
	arch_qemu "$append"
	QEMU+=(-smp "${KP_SMP:-2}" -m "${KP_MEM:-${KP_QEMU_MEM:-1024}}" -no-reboot
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
	# same suites several times slower under TCG, and so do the arches
	# whose TCG is slow (KP_TIMEOUT_SCALE in harness/arch/ARCH.sh).
	timeout=${KP_TIMEOUT:-$(((KP_DEBUG == 1 ? 3600 : 1800) * ${KP_TIMEOUT_SCALE:-1}))}
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
