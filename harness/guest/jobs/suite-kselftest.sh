# SPDX-License-Identifier: GPL-2.0
# The kprobes kselftest, run as users run an installed kselftest tree:
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

say "# kp-suite: kselftest"
/kp/kselftest/run_kselftest.sh -c kprobes 2>&1 |
	sed -E 's/^# ((TAP version|KTAP version|1\.\.|ok |not ok ).*)/  \1/' | to_kmsg
