# SPDX-License-Identifier: GPL-2.0
# riscv64: the base's backend over our core; built and booted.  Debian 12
# has no riscv64 port, so no distro config and no tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=riscv
KP_SRCARCH=riscv
KP_CROSS=riscv64-linux-gnu-
KP_CROSS_PACKAGE=gcc-riscv64-linux-gnu:riscv64-linux-gnu-gcc
KP_IMAGE=arch/riscv/boot/Image
# Debian 13's (ensure_riscv64_busybox).
KP_BUSYBOX=$KP_WORK/busybox-riscv64/bin/busybox
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
