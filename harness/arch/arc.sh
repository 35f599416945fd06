# SPDX-License-Identifier: GPL-2.0
# arc (ARCv2): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=arc
KP_SRCARCH=arc
KP_CROSS=arc-linux-gnu-
KP_CROSS_PACKAGE=gcc-arc-linux-gnu:arc-linux-gnu-gcc
KP_IMAGE=arch/arc/boot/uImage
# Debian 12's gcc 12 for ARC stops with an internal compiler error in
# arc_ifcvt on drivers/char/random.c (entropy_timer()), in the base as in
# ours; without conditional execution it compiles.
KP_KCFLAGS=(-mno-cond-exec)
