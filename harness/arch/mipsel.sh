# SPDX-License-Identifier: GPL-2.0
# mipsel (32-bit, little-endian): the base's backend over our core (break
# instructions, kretprobes on its own trampoline, no kprobes on ftrace, no
# optprobes); built and booted on QEMU's Malta board with a 34Kf core,
# whose two VPEs are the two CPUs of MIPS MT SMP.  No distro config and no
# tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=mips
KP_SRCARCH=mips
KP_CROSS=mipsel-linux-gnu-
KP_CROSS_PACKAGE=gcc-mipsel-linux-gnu:mipsel-linux-gnu-gcc
KP_IMAGE=vmlinux
KP_BUSYBOX_SUITE=bookworm
KP_BUSYBOX_DEBARCH=mipsel
KP_BUSYBOX_VERSION=1.35.0-4+deb12u1+b1
KP_BUSYBOX_SHA256=3d154a0681a75938b7c27f2bd40625852d37471fb768c98ea3c98019111d1352
KP_GUEST_PACKAGES="libc6-dev-mipsel-cross:/usr/mipsel-linux-gnu/include/stdio.h
	qemu-system-mips:qemu-system-mipsel"
KP_DEBARCH=
KP_OWN_BACKEND=
KP_KUNIT_QEMU_ARGS=()
# Malta maps at most 256 MB as lowmem, and the config has no HIGHMEM.
KP_QEMU_MEM=256
KP_TIMEOUT_SCALE=2

# One TCG thread for both VPEs.  Under QEMU 7.2's multi-threaded TCG the
# 34Kf's second VPE lost its timer ("timer handling issue on cpu=1", an RCU
# stall), a shell died of SIGILL, and twice the guest hung for good with
# QEMU itself idle, in three of four runs of the modules suite and the
# kselftest (session 33); single-threaded, they pass.  QEMU's MIPS MT
# emulation is known to be fragile (prplfoundation/qemu#76).  The base
# cannot show it: it oopses earlier in both suites.
arch_qemu() {
	QEMU=(qemu-system-mipsel -M malta -cpu 34Kf -accel tcg,thread=single
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttyS0 $1")
}
