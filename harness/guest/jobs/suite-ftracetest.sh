# SPDX-License-Identifier: GPL-2.0
# Upstream's ftrace selftests for kprobe events, in KTAP.  ftracetest gives
# no reason for a skip; the reason is taken from the case's kept log.
. /kp/lib.sh

LOGDIR=/tmp/ftracetest-logs

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
	[ -r /proc/config.gz ] || return 0
	zcat /proc/config.gz | grep -qx 'CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG=y'
}

# A case that needs a feature this kernel lacks but does not check for it
# fails instead of skipping; name the feature.  Prints the reason.
lacks_feature() {
	case $1 in
	*"Register/unregister optimized probe"*)
		[ -e /proc/sys/debug/kprobes-optimization ] && return 1
		echo "no jump optimization in this kernel (CONFIG_OPTPROBES=n)"
		;;
	# The cases that read a kprobe (not kretprobe) event back from the
	# trace buffer.
	*"Kprobe dynamic event with arguments"* | *"Kprobe event with comm arguments"* | \
	*"Kprobe event symbol argument"* | *"Kprobes event arguments with types"* | \
	*"Kprobe event user-memory access"* | *"Kprobe event VFS type argument"* | \
	*"Kprobe event char type argument"* | *"Kprobe event string type argument"* | \
	*"Kprobe dynamic event - probing module"*)
		ring_buffer_takes_nmi_events && return 1
		echo "kprobe events are not recorded: handlers run in NMI context and the" \
			"ring buffer refuses NMI writes (no CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG)"
		;;
	*) return 1 ;;
	esac
}

say "# kp-suite: ftracetest"
cd /kp/ftrace || exit 1
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
			log=$(ls $LOGDIR/"$n"-*-log.* 2>/dev/null | head -n 1)
			line="${line%%# SKIP*}# SKIP $(skip_reason "$log")"
		fi
		;;
	esac
	printf '%s\n' "$line" >/dev/kmsg
done
