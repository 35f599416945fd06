# SPDX-License-Identifier: GPL-2.0
# mips64 (64-bit, big-endian): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=mips
KP_SRCARCH=mips
KP_CROSS=mips64-linux-gnuabi64-
KP_CROSS_PACKAGE=gcc-mips64-linux-gnuabi64:mips64-linux-gnuabi64-gcc
KP_IMAGE=vmlinux
