# SPDX-License-Identifier: GPL-2.0
# arm64: the project's backend; built, booted, distro config and tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=arm64
KP_SRCARCH=arm64
KP_CROSS=aarch64-linux-gnu-
KP_CROSS_PACKAGE=gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc
KP_IMAGE=arch/arm64/boot/Image
# Debian's, through multiarch (ensure_arm64_busybox).
KP_BUSYBOX=$KP_WORK/busybox-arm64/bin/busybox
KP_DEBARCH=arm64
KP_OWN_BACKEND=1
KP_KUNIT_QEMU_ARGS=()

# arm64's Kconfig has SMP as a def_bool y: there is no uniprocessor arm64
# kernel to build.
KP_MATRIX_NO_VARIANTS=nosmp

arch_qemu() {
	# QEMU 7.2's multi-threaded TCG may translate a function while
	# another vCPU patches it and keep the old code.  arm64's ftrace
	# patches its call sites live, and in the distro kernel (ftrace
	# call ops, which -Os leaves out of the small one) entry probes
	# ride those sites: one could stay a NOP for the whole boot
	# (notes/design-core.md, "arm64 and QEMU 7.2").  So distro
	# guests run Debian 13's QEMU, or with --no-mttcg one TCG thread
	# of 7.2's; -icount (bench) is single-threaded anyway.
	local abin=(qemu-system-aarch64) newer= single=
	case ${KP_MTTCG_ARM64:-distro} in
	1) newer=1 ;;
	distro) [ -n "${KP_DISTRO:-}" ] && newer=1 ;;
	0) [ -n "${KP_DISTRO:-}" ] && single=1 ;;
	esac
	[ -n "${KP_ICOUNT:-}" ] && newer= single=
	if [ -n "$newer" ]; then
		ensure_mttcg_qemu
		# shellcheck disable=SC2207 # paths without spaces
		abin=($(mttcg_qemu qemu-system-aarch64))
		stage "QEMU: Debian 13's ($("${abin[@]}" --version | head -n1)), multi-threaded TCG"
	fi
	QEMU=("${abin[@]}" -M virt,gic-version=3 -cpu max,pauth-impdef=on
		-kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=ttyAMA0 $1")
	[ -z "$single" ] || QEMU+=(-accel tcg,thread=single)
}

# Full preemption (x86_64.sh says why), and interrupts masked with
# pseudo-NMIs (harness/config/arm64.config).
arch_test_boot_args() {
	echo preempt=full
	echo irqchip.gicv3_pseudo_nmi=1
}
