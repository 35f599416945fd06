# SPDX-License-Identifier: GPL-2.0
# s390x: the base's backend over our core (kprobes on ftrace, kretprobes on
# rethook); built and booted on QEMU's s390-ccw-virtio machine, the first
# big-endian guest.  No distro config and no tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=s390
KP_SRCARCH=s390
KP_CROSS=s390x-linux-gnu-
KP_CROSS_PACKAGE=gcc-s390x-linux-gnu:s390x-linux-gnu-gcc
KP_IMAGE=arch/s390/boot/bzImage
KP_BUSYBOX_SUITE=bookworm
KP_BUSYBOX_DEBARCH=s390x
KP_BUSYBOX_VERSION=1.35.0-4+deb12u1+b1
KP_BUSYBOX_SHA256=65e29a4dea3ca365e9ee73a6b4fa2a42c8cbbd3b13753250e68b4835876fe316
KP_GUEST_PACKAGES="libc6-dev-s390x-cross:/usr/s390x-linux-gnu/include/stdio.h
	qemu-system-misc:qemu-system-s390x
	qemu-system-data:/usr/share/qemu/s390-ccw.img"
KP_DEBARCH=
KP_OWN_BACKEND=
KP_KUNIT_QEMU_ARGS=()
KP_TIMEOUT_SCALE=2

arch_qemu() {
	# The console is the SCLP's VT220 line, which -serial becomes.
	QEMU=(qemu-system-s390x -M s390-ccw-virtio -cpu max
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttysclp0 $1")
}
