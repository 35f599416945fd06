# SPDX-License-Identifier: GPL-2.0
# Harness self-test: every test passes, but a probe handler WARNs.
. /kp/lib.sh
tap_begin selftest 1
insmod /kp/ext/kpwarn.ko
fork_some 2
rmmod kpwarn
tap_result ok "a test that passes"
