# SPDX-License-Identifier: GPL-2.0
# parisc (32-bit): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=parisc
KP_SRCARCH=parisc
KP_CROSS=hppa-linux-gnu-
KP_CROSS_PACKAGE=gcc-hppa-linux-gnu:hppa-linux-gnu-gcc
KP_IMAGE=vmlinuz
