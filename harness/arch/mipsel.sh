# SPDX-License-Identifier: GPL-2.0
# mipsel (32-bit, little-endian): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=mips
KP_SRCARCH=mips
KP_CROSS=mipsel-linux-gnu-
KP_CROSS_PACKAGE=gcc-mipsel-linux-gnu:mipsel-linux-gnu-gcc
KP_IMAGE=vmlinux
