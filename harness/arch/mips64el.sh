# SPDX-License-Identifier: GPL-2.0
# mips64el (64-bit, little-endian): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=mips
KP_SRCARCH=mips
KP_CROSS=mips64el-linux-gnuabi64-
KP_CROSS_PACKAGE=gcc-mips64el-linux-gnuabi64:mips64el-linux-gnuabi64-gcc
KP_IMAGE=vmlinux
