# SPDX-License-Identifier: GPL-2.0
# riscv64: the base's backend over our core; built and booted.  Debian 12
# has no riscv64 port, so no distro config and no tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=riscv
KP_SRCARCH=riscv
KP_CROSS=riscv64-linux-gnu-
KP_CROSS_PACKAGE=gcc-riscv64-linux-gnu:riscv64-linux-gnu-gcc
KP_IMAGE=arch/riscv/boot/Image
# Debian 13's: Debian 12 has no riscv64 port (ensure_busybox).
KP_BUSYBOX_SUITE=trixie
KP_BUSYBOX_DEBARCH=riscv64
KP_BUSYBOX_VERSION=1.37.0-6+b9
KP_BUSYBOX_SHA256=4add476d2b185c5b487c285b38d790f0881a7e4a8e2ddde835f917e770eb8633
# The guest programs' libc, and QEMU's riscv64 system (qemu-system-misc)
# with the OpenSBI firmware that "-bios default" loads (qemu-system-data).
KP_GUEST_PACKAGES="libc6-dev-riscv64-cross:/usr/riscv64-linux-gnu/include/stdio.h
	qemu-system-misc:qemu-system-riscv64
	qemu-system-data:/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin"
KP_DEBARCH=
KP_OWN_BACKEND=
KP_KUNIT_QEMU_ARGS=()

arch_qemu() {
	# "-bios default" is the OpenSBI that qemu-system-data ships; it
	# starts the kernel in S-mode and resets the machine for
	# "reboot -f" (SBI SRST), which -no-reboot turns into an exit.
	# earlycon (the UART the device tree names) shows a failure
	# before the 8250 driver takes the console over.
	QEMU=(qemu-system-riscv64 -M virt -cpu rv64 -bios default
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "earlycon console=ttyS0 $1")
}

arch_test_boot_args() {
	echo preempt=full
}
