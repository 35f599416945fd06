# SPDX-License-Identifier: GPL-2.0
# The kprobes kselftest (tools/testing/selftests/kprobes/), installed on
# the host as "make -C tools/testing/selftests TARGETS=kprobes install"
# does, with its two test modules built against the guest's kernel.  It
# covers the debugfs list line in each state, the enabled knob, the
# blacklist file, the sysctl and [OPTIMIZED]; probes on a module across
# unload ([GONE]), reload and init text; 4096 probes in one batch over the
# test module's 32 functions of nops, each hit once per call, the module
# unloaded under them (at most 20 s, all left [GONE]) and unregistered;
# and a bad-input table through register_kprobe() (kprobes_st_reg's
# parameters) and kprobe events, each row checking the errno and that the
# list is unchanged, with a kmemleak scan where the kernel has kmemleak;
# and a group of kprobe events (ftrace sites, a breakpoint, a kretprobe,
# an event of two probes) enabled and disabled by one write to the
# group's enable file and to set_event, each probe armed, firing and
# disarmed when the write returns.
# Busybox's timeout lacks --foreground, which the runner passes: the guest
# puts a wrapper in its place.
#
# It runs as users run an installed kselftest tree:
# run_kselftest.sh -c kprobes.  Its runner prints each test's own TAP
# prefixed with "# "; that becomes indentation here, so the host counts
# every case of every test rather than one result per script.
. /kp/lib.sh

# Busybox's timeout has no --foreground, which the runner passes; without
# this every test would "fail" in timeout's option parsing.
rm -f /usr/bin/timeout
cat >/usr/bin/timeout <<'SHIM'
#!/bin/sh
[ "$1" = --foreground ] && shift
exec /bin/busybox timeout "$@"
SHIM
chmod 755 /usr/bin/timeout

# The kselftest skips, as kselftests do, on a kernel without the debugfs
# list or the sysctl.  Every harness kernel has the list, and x86_64's has
# the sysctl by design: here their absence fails.  The kselftest runs on
# machines whose owner may have set the sysctl; here it is as the kernel
# booted, and optimization is on by default, as in the base.
sysctl_present() {
	s=/proc/sys/debug/kprobes-optimization
	if [ ! -e $s ]; then
		echo "no $s on $(kp_arch), which optimizes by design"
		return 1
	fi
	expect_eq "$(cat $s)" 1 "$s as booted"
}
# Without them the kselftest would only skip: it is not run.
setup=ok
if arch_optimizes; then
	tap_begin kselftest-setup 2
	check "the sysctl debug.kprobes-optimization is there, 1 as booted" sysctl_present || setup=
else
	tap_begin kselftest-setup 1
fi
check "/sys/kernel/debug/kprobes/list is there" need_probe_list || setup=
[ -n "$setup" ] || exit 0

say "# kp-suite: kselftest"
/kp/kselftest/run_kselftest.sh -c kprobes 2>&1 |
	sed -E 's/^# ((TAP version|KTAP version|1\.\.|ok |not ok ).*)/  \1/' | to_kmsg
