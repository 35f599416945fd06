# SPDX-License-Identifier: GPL-2.0
# powerpc64le: built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=powerpc
KP_SRCARCH=powerpc
KP_CROSS=powerpc64le-linux-gnu-
KP_CROSS_PACKAGE=gcc-powerpc64le-linux-gnu:powerpc64le-linux-gnu-gcc
KP_IMAGE=vmlinux
