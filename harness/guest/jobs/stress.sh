# SPDX-License-Identifier: GPL-2.0
# "harness/kp stress": the stress suite in its long form (kp.stress=MINUTES).
. /kp/lib.sh
say "# kp-plan: stress"
say "KP-STAGE suite stress"
sh /kp/jobs/suite-stress.sh
