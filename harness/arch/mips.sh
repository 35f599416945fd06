# SPDX-License-Identifier: GPL-2.0
# mips (32-bit, big-endian): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=mips
KP_SRCARCH=mips
KP_CROSS=mips-linux-gnu-
KP_CROSS_PACKAGE=gcc-mips-linux-gnu:mips-linux-gnu-gcc
KP_IMAGE=vmlinux
