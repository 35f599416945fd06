# SPDX-License-Identifier: GPL-2.0
# s390x: built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=s390
KP_SRCARCH=s390
KP_CROSS=s390x-linux-gnu-
KP_CROSS_PACKAGE=gcc-s390x-linux-gnu:s390x-linux-gnu-gcc
KP_IMAGE=arch/s390/boot/bzImage
