# SPDX-License-Identifier: GPL-2.0
# parisc64: built by the matrix only.  Its 32-bit vDSO is built with
# the 32-bit compiler (CROSS32_COMPILE in arch/parisc/Makefile).
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=parisc64
KP_SRCARCH=parisc
KP_CROSS=hppa64-linux-gnu-
KP_CROSS_PACKAGE="gcc-hppa64-linux-gnu:hppa64-linux-gnu-gcc gcc-hppa-linux-gnu:hppa-linux-gnu-gcc"
KP_IMAGE=vmlinuz
