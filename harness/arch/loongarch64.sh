# SPDX-License-Identifier: GPL-2.0
# loongarch64: built by the matrix only, with Debian 13's cross compiler
# (Debian 12 has none) in the trixie tree of harness/lib/crosstree.sh.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=loongarch
KP_SRCARCH=loongarch
KP_CROSS=loongarch64-linux-gnu-
KP_CROSS_PACKAGE=
KP_CROSS_TREE_PACKAGE=gcc-loongarch64-linux-gnu
KP_IMAGE=arch/loongarch/boot/vmlinux.efi
