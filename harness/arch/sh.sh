# SPDX-License-Identifier: GPL-2.0
# sh (SH-4): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=sh
KP_SRCARCH=sh
KP_CROSS=sh4-linux-gnu-
KP_CROSS_PACKAGE=gcc-sh4-linux-gnu:sh4-linux-gnu-gcc
KP_IMAGE=arch/sh/boot/zImage
