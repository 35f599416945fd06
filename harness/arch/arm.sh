# SPDX-License-Identifier: GPL-2.0
# arm (32-bit): built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=arm
KP_SRCARCH=arm
KP_CROSS=arm-linux-gnueabihf-
KP_CROSS_PACKAGE=gcc-arm-linux-gnueabihf:arm-linux-gnueabihf-gcc
KP_IMAGE=arch/arm/boot/zImage
