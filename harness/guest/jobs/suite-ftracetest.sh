# SPDX-License-Identifier: GPL-2.0
# Upstream's ftrace selftests for kprobe events, in KTAP.  ftracetest gives
# no reason for a skip; the reason is taken from the case's kept log.
. /kp/lib.sh

LOGDIR=/tmp/ftracetest-logs
rm -rf $LOGDIR

# The requirement the case reported, or else the command traced just
# before it gave up (the test's own check).
skip_reason() {
	[ -f "$1" ] || { echo "no log kept"; return; }
	why=$(grep -m1 -E '^(Required|.*not supported)' "$1")
	if [ -z "$why" ]; then
		why=$(grep -B3 -E '^\+ exit_(unsupported|untested)' "$1" |
			grep -v -E "exit_|^\+ '\['" | tail -n 1)
		[ -n "$why" ] && why="the case gave up after: $why"
	fi
	echo "${why:-no reason in its log}"
}
# Whether the ring buffer takes events written in NMI context.  Kprobe
# handlers run there on a breakpoint trap, and the ring buffer drops such
# writes where the arch has no NMI-safe cmpxchg (riscv in 6.12): the probe
# fires and counts its hits, but its event is never recorded.  Only the
# config tells, where the kernel exposes it (the riscv64 config does).
ring_buffer_takes_nmi_events() {
	config=${KP_CONFIG_GZ:-/proc/config.gz}	# the self-test's doctored config
	[ -r "$config" ] || return 0
	zcat "$config" | grep -qx 'CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG=y'
}

# The cases that read a kprobe (not kretprobe) event back from the trace.
NMI_CASES="kprobe_args.tc kprobe_args_char.tc kprobe_args_comm.tc
kprobe_args_string.tc kprobe_args_symbol.tc kprobe_args_type.tc
kprobe_args_user.tc kprobe_args_vfs.tc kprobe_module.tc"
WITNESS=/tmp/kp-witness

# Where the ring buffer drops NMI writes, each of those cases records, as
# it ends, how often its probes fired and how many events the trace holds.
# Only that record can excuse its failure: probes that fired into an empty
# trace.  A case failing for any other reason stays a failure.
add_witnesses() {
	rm -rf $WITNESS
	mkdir -p $WITNESS
	cat >$WITNESS/record.sh <<'REC'
# Run in the tracing directory, from a case's EXIT trap.  Only the kprobe
# events' own records count ("NAME: (SYMBOL+OFF/SIZE)"): a case may fill
# the trace with others (trace_printk's).
hits=$(awk '{ h += $2 } END { print h + 0 }' kprobe_profile)
events=0
for name in $(sed -n 's|^[pr][0-9]*:[^/ ]*/\([^ ]*\) .*|\1|p' kprobe_events); do
	events=$((events + $(grep -c " $name: (" trace)))
done
echo "hits=$hits events=$events" >/tmp/kp-witness/$1
REC
	for f in $NMI_CASES; do
		tc=test.d/kprobe/$f
		[ -f $tc ] || continue
		sed -i "1a trap 'sh $WITNESS/record.sh $f' EXIT" $tc
	done
}

# The log ftracetest kept for case N ("N-FILE-log.XXXXXX").
case_log() {
	ls $LOGDIR/"$1"-*-log.* 2>/dev/null | head -n 1
}

# The file name of case N, from its log's name.
case_file() {
	log=$(case_log "$1")
	log=${log##*/}
	echo "${log#"$1"-}" | sed 's/-log\..*//'
}

# "fired N times, trace empty" when the witness of case N shows exactly
# that; fails otherwise, saying what it saw.
dropped_in_nmi() {
	f=$(case_file "$1")
	w=$(cat $WITNESS/"$f" 2>/dev/null) || { echo "no record from $f"; return 1; }
	hits=${w#hits=}
	hits=${hits%% *}
	[ "$hits" -gt 0 ] && [ "$w" = "hits=$hits events=0" ] || { echo "$f: $w"; return 1; }
	echo "$hits"
}

# A case that needs a feature this kernel lacks but does not check for it
# fails instead of skipping; name the feature.  Prints the reason.
lacks_feature() {
	n=${1#not ok }
	n=${n%% *}
	case $1 in
	*"Kprobe event user-memory access"* | *"Kprobe event VFS type argument"* | \
	*"Kretprobe entry argument access"*)
		if ! kconfig_on HAVE_FUNCTION_ARG_ACCESS_API; then
			echo "upstream's case fetches \$argN without declaring it, and" \
				"$(kp_arch) has no function argument access for probes" \
				"(no HAVE_FUNCTION_ARG_ACCESS_API)"
			return 0
		fi
		;;
	esac
	case $1 in
	*"Register/unregister optimized probe"*)
		arch_optimizes && return 1
		[ -e /proc/sys/debug/kprobes-optimization ] && return 1
		echo "no jump optimization on $(kp_arch) (no CONFIG_OPTPROBES)"
		;;
	*"Kprobe dynamic event with arguments"* | *"Kprobe event with comm arguments"* | \
	*"Kprobe event symbol argument"* | *"Kprobes event arguments with types"* | \
	*"Kprobe event user-memory access"* | *"Kprobe event VFS type argument"* | \
	*"Kprobe event char type argument"* | *"Kprobe event string type argument"* | \
	*"Kprobe dynamic event - probing module"*)
		ring_buffer_takes_nmi_events && return 1
		if ! hits=$(dropped_in_nmi "$n"); then
			say "# not the ring buffer's NMI limit: $hits"
			return 1
		fi
		echo "kprobe events are not recorded: handlers run in NMI context and the" \
			"ring buffer refuses NMI writes (no CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG);" \
			"the probes fired $hits times into an empty trace"
		;;
	*"Kprobe event auto/manual naming"*"# UNRESOLVED"*)
		# The case gives up when no .isra. function is an ftrace
		# site of its own name alone.
		grep ' [tT] .*\.isra\.' /proc/kallsyms | cut -f 3 -d ' ' | while read -r f; do
			[ "$(grep -c "$f" /sys/kernel/tracing/available_filter_functions)" = 1 ] &&
				echo found && break
		done | grep -q found && return 1
		echo "upstream's case needs an .isra. function that ftrace lists once," \
			"and this kernel has none"
		;;
	*) return 1 ;;
	esac
}

say "# kp-suite: ftracetest"
# The self-test runs doctored copies of the cases (KP_FTRACE_DIR).
cd "${KP_FTRACE_DIR:-/kp/ftrace}" || exit 1
ring_buffer_takes_nmi_events || add_witnesses
./ftracetest -K -k -v -l $LOGDIR test.d/kprobe 2>&1 | while IFS= read -r line; do
	case $line in
	"not ok "*)
		why=$(lacks_feature "$line") && line="ok ${line#not ok } # SKIP $why"
		;;
	"ok "*"# SKIP"*)
		given=$(printf '%s' "${line##*# SKIP}" | tr -d ' ')
		if [ -z "$given" ]; then
			n=${line#ok }
			n=${n%% *}
			log=$(case_log "$n")
			line="${line%%# SKIP*}# SKIP $(skip_reason "$log")"
		fi
		;;
	esac
	printf '%s\n' "$line" >>"$KP_SAY_TO"
done
