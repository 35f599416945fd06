# SPDX-License-Identifier: GPL-2.0
# The test, sweep-record and stress commands: which kernels each builds,
# the host checks beside them, and the guests they boot (guest.sh) and
# read back (ktap.py).
# shellcheck shell=bash

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
# config boots what harness/arch/ARCH.sh's arch_test_boot_args says (full
# preemption, and arm64's pseudo-NMIs), or with none where the arch has no
# such function (its config builds its preemption in).  A distro kernel boots as the distribution's does, with no argument:
# voluntary preemption under PREEMPT_DYNAMIC on x86_64, a kernel without
# CONFIG_PREEMPTION and without pseudo-NMIs on arm64.
test_boot_args() {
	[ -n "${KP_DISTRO:-}" ] && return 0
	(
		arch_vars "$1"
		! declare -F arch_test_boot_args >/dev/null || arch_test_boot_args
	)
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
	if ! build_ahead_join "$a" && ! (build "$KP_VARIANT" "$a" "$KP_DEBUG"); then
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

# build_ahead_start KERNEL...: build those kernels ("ARCH [FLAVOUR]"
# each), in that order, in the background, while the run checks and boots
# the ones before them.  Much of a test boot, and of the host checks,
# leaves a core idle; the builds get only that (SCHED_IDLE), and the test
# command starts them all at once so that most of them are done beside the
# x86_64 guests, which do not slow down beside a build (the arm64 ones do:
# notes/ci-time.md).  In a process group
# of their own, so that build_ahead_stop can end them; build_ahead_join
# shows a kernel's steps when its turn comes.  KP_BUILD_AHEAD=0 builds each
# kernel in its turn instead.
build_ahead_start() {
	local i=0 k rc
	(($# > 0)) && [ "${KP_BUILD_AHEAD:-1}" = 1 ] || return 0
	KP_AHEAD_DIR=$(mktemp -d "$KP_TMP/ahead.XXXXXX")
	KP_AHEAD_KEYS=("$@")
	set -m
	(
		chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 ||
			renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
		for k in "$@"; do
			rc=0
			build_ahead_one "$k" >"$KP_AHEAD_DIR/$i.log" 2>&1 || rc=$?
			echo "$rc" >"$KP_AHEAD_DIR/$i.rc.new"
			mv "$KP_AHEAD_DIR/$i.rc.new" "$KP_AHEAD_DIR/$i.rc"
			i=$((i + 1))
		done
	) </dev/null >/dev/null 2>&1 &
	KP_AHEAD_PID=$!
	set +m
	stage "building $# kernel(s) ahead, in the background, one after another (logs: ${KP_AHEAD_DIR#"$KP_ROOT"/})"
}

# build_ahead_one "ARCH [FLAVOUR]": one kernel of the builds ahead, in a
# subshell, since a failed step ends its shell.
build_ahead_one() (
	local a distro
	read -r a distro <<<"$1"
	KP_TMP=$(mktemp -d "$KP_AHEAD_DIR/tmp.XXXXXX") KP_DISTRO=$distro \
		build "$KP_VARIANT" "$a" "$KP_DEBUG"
)

# build_ahead_join ARCH: true if the kernel of ARCH and KP_DISTRO was built
# ahead, once that build is over; its steps are shown as if they had run
# here.  A build ahead that failed is not reported: the caller builds
# again in the foreground, where the failure is named as any other.
build_ahead_join() {
	local i key="$1 ${KP_DISTRO:-}" rc
	[ -n "${KP_AHEAD_PID:-}" ] || return 1
	for i in "${!KP_AHEAD_KEYS[@]}"; do
		[ "${KP_AHEAD_KEYS[i]}" = "$key" ] && break
	done
	[ "${KP_AHEAD_KEYS[i]}" = "$key" ] || return 1
	if [ ! -f "$KP_AHEAD_DIR/$i.rc" ]; then
		stage "waiting for the $1${KP_DISTRO:+ $KP_DISTRO} kernel's build ahead"
		while [ ! -f "$KP_AHEAD_DIR/$i.rc" ] && kill -0 "$KP_AHEAD_PID" 2>/dev/null; do
			sleep 1
		done
	fi
	rc=$(cat "$KP_AHEAD_DIR/$i.rc" 2>/dev/null) || rc="none (the builds ahead were ended)"
	grep -v '^\[[0-9:]*\]   \.\.\. ' "$KP_AHEAD_DIR/$i.log" 2>/dev/null |
		sed 's/^\(\[[0-9:]*\]\) /\1 (ahead) /' || true
	[ "$rc" = 0 ] && return 0
	stage "the build ahead failed (exit $rc); building again"
	return 1
}

# build_ahead_stop: end the builds ahead that are still running.
build_ahead_stop() {
	[ -n "${KP_AHEAD_PID:-}" ] || return 0
	kill -TERM -- "-$KP_AHEAD_PID" 2>/dev/null || true
	wait "$KP_AHEAD_PID" 2>/dev/null || true
	KP_AHEAD_PID=
}

# The whole test suite: the harness's own tests on the host, then one boot
# per arch (and per config) running every guest suite; the tools suite,
# when --only names it, in a boot of its own.
run_tests() {
	local a c k flavour results=() json only=$KP_ONLY want_tools= main=1 cache kernels=()
	cache=$(ccache_counts)
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
	for a in $KP_ARCHES; do
		for flavour in $(test_flavours "$a"); do
			kernels+=("$a ${flavour#small}")
		done
	done
	# With guest suites to run, every kernel is booted: they build while
	# the host checks and the guests before them run.
	trap 'build_ahead_stop; rm -rf "$KP_TMP"' EXIT
	[ -z "$main" ] || build_ahead_start "${kernels[@]}"
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
	for k in "${kernels[@]}"; do
		read -r a flavour <<<"$k"
		KP_DISTRO=$flavour test_arch "$a" || true
	done
	build_ahead_stop
	ccache_report "$cache"
	python3 "$KP_HARNESS/lib/ktap.py" total "${results[@]}"
}

# What the base lets be probed, as the stress suite's sweeps compare it:
# one boot per arch of the unmodified base (sweep-record.sh), whose records
# become harness/stress/base-sweep-ARCH[-distro][-debug]-KIND.txt.
# - kprobe, kretprobe: register_kprobes()/register_kretprobes() swept over
#   every function a kprobe event accepts; each refused function (with a
#   unique name) and its errno, and the base's own kprobes functions it
#   took.  The batch sweeps compare with these.
# - insn (x86_64 and arm64): the instruction boundaries register_kprobe()
#   takes in 330 functions of at most 1 KB that a checked workload runs
#   (kpinsn -R), with the base's bytes.  The instruction sweep compares
#   with these.
# A debug or distro kernel without a record of its own is compared with
# the small config's, on the functions that record names.  Run it again
# when the base or a config changes, and commit the records: about 7
# minutes per arch on a 2-core host once the base is built.
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
		# The debug kernel boots as the stress suite's long form boots it,
		# with full preemption, so that its workload runs the same
		# functions (voluntary preemption adds __cond_resched()).
		KP_TIMEOUT=${KP_TIMEOUT:-10800} guest_boot sweep-record "$name" progress oops=panic \
			${KP_ONLY:+kp.only=$KP_ONLY} $([ "$KP_DEBUG" = 1 ] && echo preempt=full) || rc=$?
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

# The long stress run: one boot per arch on the debug config (kmemleak
# on), with four vCPUs and the guest's own clock (no icount), on Debian
# 13's QEMU (--mttcg): arm64's vCPUs run at once, x86_64's on one TCG
# thread (harness/arch/x86_64.sh says why).  In the guest
# (suite-stress.sh, kp.stress=MINUTES):
# - kprobe and then kretprobe events on a share of about 700 functions
#   (every N-th, from an offset that changes each boot), in batches of
#   100, each enabled 2 s under the workload.  Every function would take
#   hours under TCG (enabling an entry probe is a whole ftrace update).
#   Each event is enabled through its own enable file: the group's holds
#   event_mutex while the whole batch is armed, long enough on a slow
#   host for the hung-task detector to report the workload's insmod.
# - kpsweep -m and -m -r over every function an event would accept, in
#   register_kprobes()/register_kretprobes() batches of 1000 (one ftrace
#   update each).  A refused batch is halved until each refusal stands
#   alone, to report kprobes' own errno; blacklisted functions and their
#   compiler-made parts (foo.part.0) go in a batch of their own, which
#   fails at its first probe, so that halving does not register and roll
#   back hundreds of probes per refusal.
# - The instruction sweep over the 300 and more functions of the base's
#   record (as the test command's distro boot); the sleeping handler;
#   rounds of races (60 s) and faults (20 s), twice each, until MINUTES
#   guest minutes (30 by default) are up.  The sweeps always run to their
#   end, so a run can outlast MINUTES.
# Then a second boot per arch, of the distro kernel (two vCPUs, no icount,
# no preempt= argument, as the test command boots it): the instruction
# sweep alone over every function of at most 1 KB the workload runs
# (kp.insn=all).  Not on the debug kernel: there a batch of 4096 probes
# on every instruction of functions the workload (and the registering
# thread itself) runs took 99 to 921 s to register (session 40), so the
# several hundred thousand boundaries would take more than ten hours.
# On a 2-core host with nothing else running a whole x86_64 run took 33
# guest minutes (38 with the build), arm64 39 (45), before the debug boot
# had its instruction sweep; work beside it slows it by half or more.  Run
# one arch at a time.  The debug boot's instruction sweep once took half
# an hour for one batch, which armed every instruction of what each
# later registration of the batch runs (the unwinder behind kmemleak's
# stack traces, the spinlocks, __might_sleep); kpinsn now gives such
# functions batches of their own, by what the function tracer counts in
# a registration, and registers one that alone would still slow its own
# registration (__orc_find, 78 probes, once more than 17 minutes)
# disabled, enabling its probes one by one: x86_64's pre round took
# 630 to 814 s, post 464 to 492 s, no registration more than 20 s
# (session 44).
#
# --only debug or --only distro runs one of the two boots, so that a long
# form too long for one sitting can run in two; both is the whole form.
run_stress() {
	local a results=() rc name
	stress_boot_wanted debug || stress_boot_wanted distro ||
		die "stress: --only takes debug, distro or both ('$KP_ONLY' names neither)"
	rm -f "$KP_RESULTS"/*stress.results.json
	for a in $KP_ARCHES; do
		if stress_boot_wanted debug; then
			build "$KP_VARIANT" "$a" "$KP_DEBUG" || die "stress: the $a build failed (see the log above)"
			name=$(run_name stress)
			rc=0
			# The sweeps run to their end whatever --minutes says, and
			# took more than two and a half hours on a slow host:
			# allow three more.
			KP_SMP=4 KP_TIMEOUT=${KP_TIMEOUT:-$((KP_MINUTES * 120 + 10800))} \
				guest_boot stress "$name" progress preempt=full kp.stress="$KP_MINUTES" || rc=$?
			stress_results "$name" "$rc"
		fi
		# Where the arch has a distro kernel (Debian has the arch).
		stress_boot_wanted distro && tools_debarch "$a" >/dev/null &&
			KP_DISTRO=${KP_DISTRO:-distro} KP_DEBUG=0 run_stress_insn "$a"
	done
	((${#results[@]})) ||
		die "stress: no boot ran: --only distro needs an arch Debian has a 6.12 config for (x86_64, arm64)"
	python3 "$KP_HARNESS/lib/ktap.py" total "${results[@]}"
}

# stress_boot_wanted debug|distro: whether --only lets the stress command
# run that boot (all of them without --only).
stress_boot_wanted() {
	[ -z "$KP_ONLY" ] || [[ ",$KP_ONLY," == *",$1,"* ]]
}

# stress_results NAME QEMU-STATUS: the boot's results, into run_stress's
# array, and its summary lines on the terminal.
stress_results() {
	python3 "$KP_HARNESS/lib/ktap.py" parse "$KP_CONSOLE" --label "$1" \
		--qemu-status "$2" --json "$KP_RESULTS/$1.results.json" || true
	grep -E '# (stress|kpsweep|kpinsn|race|faults)' "$KP_CONSOLE" | sed 's/^\[[^]]*\] //'
	results+=("$KP_RESULTS/$1.results.json")
}

# run_stress_insn ARCH: the distro kernel's boot with the instruction
# sweep over every function the workload runs.
run_stress_insn() {
	local rc=0 name
	build "$KP_VARIANT" "$1" 0 ||
		die "stress: the $1 $KP_DISTRO build failed (see the log above)"
	name=$(run_name stress)
	KP_TIMEOUT=${KP_TIMEOUT:-10800} guest_boot stress "$name" progress kp.insn=all || rc=$?
	stress_results "$name" "$rc"
}

# host_checks_arch ARRAY ARCH: the host-side checks of the arch just built
# (harness/lib/checks.sh), before its guest boots; their results files are
# added to the array named.  W=1 and sparse on x86_64 and arm64; kunit.py
# once, on x86_64.  The base's files at our paths are upstream's: --base
# skips them.
host_checks_arch() {
	local -n list=$1
	local json
	[ "$KP_VARIANT" = project ] || return 0
	build_vars "$KP_VARIANT" "$2" "$KP_DEBUG"
	if [ -n "$KP_OWN_BACKEND" ] && host_check_wanted w1-sparse; then
		json=$KP_RESULTS/$(run_name w1-sparse).results.json
		check_w1_sparse "$json"
		list+=("$json")
	fi
	# The whole run's kunit.py: a kernel without CONFIG_PREEMPTION, where
	# boosting and the kretprobe defaults take their other branches, on
	# x86_64 (arm64's distro kernel is one).  The small config's boot runs
	# the same suites with full preemption.
	if host_check_wanted kunit.py && [ "$KP_ARCH" = x86_64 ]; then
		json=$KP_RESULTS/kunit-py-$KP_ARCH-nopreempt.results.json
		check_kunit_py "$json" nopreempt
		list+=("$json")
	fi
	# Asked for by name, kunit.py also runs with full preemption on six
	# CPUs, on x86_64 and arm64: another kernel each, kept out of the
	# whole run for its build time.
	if [ -n "$KP_ONLY" ] && host_check_wanted kunit.py &&
		{ [ "$KP_ARCH" = x86_64 ] || [ "$KP_ARCH" = arm64 ]; }; then
		json=$KP_RESULTS/kunit-py-$KP_ARCH.results.json
		check_kunit_py "$json"
		list+=("$json")
	fi
	return 0
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
	KP_TIMEOUT=25 guest_boot selftest-hang "$(run_name selftest-hang)" progress 2>/dev/null || rc=$?
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
