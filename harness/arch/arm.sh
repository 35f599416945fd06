# SPDX-License-Identifier: GPL-2.0
# arm (32-bit, ARMv7): the base's backend over our core; built and booted
# on QEMU's virt machine.  No distro config and no tools: Debian 12's armhf
# kernel config is not 6.12's flavours' (armmp), and the suites want the
# small config's options.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=arm
KP_SRCARCH=arm
KP_CROSS=arm-linux-gnueabihf-
KP_CROSS_PACKAGE=gcc-arm-linux-gnueabihf:arm-linux-gnueabihf-gcc
KP_IMAGE=arch/arm/boot/zImage
KP_BUSYBOX_SUITE=bookworm
KP_BUSYBOX_DEBARCH=armhf
KP_BUSYBOX_VERSION=1.35.0-4+deb12u1+b1
KP_BUSYBOX_SHA256=2f68dbeaebeda49f3cde34ac421d5add85fb1c837ff7c4a4971945340d9d66ff
KP_GUEST_PACKAGES="libc6-dev-armhf-cross:/usr/arm-linux-gnueabihf/include/stdio.h
	qemu-system-arm:qemu-system-arm"
# Debian's compiler emits Thumb-2 by default; arm's uprobes take only ARM
# code, and the users suite probes its own programs.
KP_USER_CFLAGS=-marm
KP_DEBARCH=
KP_OWN_BACKEND=
KP_KUNIT_QEMU_ARGS=()
# Lowmem under the 3G/1G split is about 760 MB; the rest would be highmem.
KP_QEMU_MEM=768

arch_qemu() {
	# highmem=off: a kernel without LPAE cannot reach RAM or devices
	# above 4 GB.  QEMU's PSCI brings up the second CPU and resets.
	QEMU=(qemu-system-arm -M virt,highmem=off -cpu cortex-a15
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttyAMA0 $1")
}
