# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a job that never ends.
. /kp/lib.sh
tap_begin selftest 1
while :; do sleep 60; done
