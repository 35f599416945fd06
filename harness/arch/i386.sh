# SPDX-License-Identifier: GPL-2.0
# i386: the project's x86 backend in a 32-bit kernel; built and booted.
# Debian's i686 cross compiler builds both the kernel and the guest's
# static programs (the host gcc's -m32 would need gcc-multilib, which
# Debian will not install beside the other cross compilers).  No distro
# config and no tools: Debian 12 ships no 6.12 i386 config of its own.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=i386
KP_SRCARCH=x86
KP_CROSS=i686-linux-gnu-
KP_CROSS_PACKAGE=gcc-i686-linux-gnu:i686-linux-gnu-gcc
KP_IMAGE=arch/x86/boot/bzImage
KP_BUSYBOX_SUITE=bookworm
KP_BUSYBOX_DEBARCH=i386
KP_BUSYBOX_VERSION=1.35.0-4+deb12u1+b1
KP_BUSYBOX_SHA256=725ef9e6fbac4ab79b353165b05005e8c140d6e42177ebbc202ff1e13ded8b7c
KP_GUEST_PACKAGES="libc6-dev-i386-cross:/usr/i686-linux-gnu/include/stdio.h"
KP_DEBARCH=
KP_OWN_BACKEND=1
KP_KUNIT_QEMU_ARGS=(-accel tcg,thread=single)
# The lowmem a 32-bit kernel maps without HIGHMEM is about 890 MB.
KP_QEMU_MEM=768

arch_qemu() {
	# x86_64's machine; one TCG thread, for the reason x86_64.sh gives
	# (Debian 12's QEMU and text_poke_bp).
	# An Intel vendor: TCG's "max" CPU is otherwise an AMD family 6
	# without the MP bit, which a 32-bit kernel takes for an Athlon
	# unfit for SMP and WARNs about (amd_k7_smp_check()).
	QEMU=(qemu-system-i386 -M pc -cpu max,vendor=GenuineIntel
		-bios /usr/share/qemu/qboot.rom
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttyS0 $1")
	[ -n "${KP_ICOUNT:-}" ] || QEMU+=(-accel tcg,thread=single)
}

arch_test_boot_args() {
	echo preempt=full
}
