# SPDX-License-Identifier: GPL-2.0
# sparc64: built by the matrix only.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=sparc64
KP_SRCARCH=sparc
KP_CROSS=sparc64-linux-gnu-
KP_CROSS_PACKAGE=gcc-sparc64-linux-gnu:sparc64-linux-gnu-gcc
KP_IMAGE=arch/sparc/boot/image
# The base does not build for sparc64: 6.12.117 moved FMODE_NONOTIFY to
# bit 25, which is sparc's __O_TMPFILE, so fs/fcntl.c's check that the
# open flags and the file mode bits do not overlap fails (a BUILD_BUG_ON).
# "harness/kp matrix --base --arch sparc64" shows the same error.  With
# it, fs/ and so vmlinux and modpost are not built; every object of ours
# is, at W=1, and an error of any other kind still fails the row.
KP_MATRIX_BASE_ERRORS=('BUILD_BUG_ON failed: 21 - 1 != HWEIGHT32')
