# SPDX-License-Identifier: GPL-2.0
# x86_64: the project's backend; built, booted, distro config and tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=x86_64
KP_SRCARCH=x86
KP_CROSS=
KP_CROSS_PACKAGE=
KP_IMAGE=arch/x86/boot/bzImage
KP_BUSYBOX=/bin/busybox
KP_DEBARCH=amd64
KP_OWN_BACKEND=1
# See "QEMU and text_poke_bp" below: one TCG thread.
KP_KUNIT_QEMU_ARGS=(-accel tcg,thread=single)

arch_qemu() {
	local bin=(qemu-system-x86_64) fw=/usr/share/qemu
	if [ "${KP_MTTCG:-0}" = 1 ] && [ -z "${KP_ICOUNT:-}" ]; then
		# Debian 13's QEMU (harness/lib/mttcg.sh).
		# shellcheck disable=SC2207 # paths without spaces
		bin=($(mttcg_qemu))
		fw=$KP_MTTCG_ROOT/usr/share/qemu
		stage "QEMU: Debian 13's ($("${bin[@]}" --version | head -n1)), one TCG thread"
	fi
	QEMU=("${bin[@]}" -M pc -cpu max -bios "$fw/qboot.rom"
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttyS0 $1")
	# Multi-threaded TCG, 7.2 and 10.0 alike, lets a vCPU go on
	# running an int3 that text_poke_bp() on another vCPU has
	# already taken out of memory, thousands of times in a row; when
	# the next batch puts it back meanwhile, the kernel dies on it,
	# the base's too (notes/qemu-stale-int3/ reproduces it).  One
	# TCG thread does not; -icount (bench) is single-threaded anyway.
	[ -n "${KP_ICOUNT:-}" ] || QEMU+=(-accel tcg,thread=single)
}

# Full preemption: the strictest model PREEMPT_DYNAMIC offers, and the one
# where a task can be preempted inside a boosted slot.
arch_test_boot_args() {
	echo preempt=full
}
