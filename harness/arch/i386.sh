# SPDX-License-Identifier: GPL-2.0
# i386: built by the matrix only; the host gcc builds it with -m32.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=i386
KP_SRCARCH=x86
KP_CROSS=
KP_CROSS_PACKAGE=
KP_IMAGE=arch/x86/boot/bzImage
