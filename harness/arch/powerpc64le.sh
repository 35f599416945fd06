# SPDX-License-Identifier: GPL-2.0
# powerpc64le: the base's backend over our core (kprobes on ftrace,
# optprobes, kretprobes on rethook); built and booted on QEMU's pseries
# machine.  No distro config and no tools.
# shellcheck shell=bash disable=SC2034 # read by the harness's libraries

KP_KARCH=powerpc
KP_SRCARCH=powerpc
KP_CROSS=powerpc64le-linux-gnu-
KP_CROSS_PACKAGE=gcc-powerpc64le-linux-gnu:powerpc64le-linux-gnu-gcc
KP_IMAGE=vmlinux
KP_BUSYBOX_SUITE=bookworm
KP_BUSYBOX_DEBARCH=ppc64el
KP_BUSYBOX_VERSION=1.35.0-4+deb12u1+b1
KP_BUSYBOX_SHA256=932deb885b840a8cf529708c03a1e87833dc64e66a70585721f8a356d9fe995b
KP_GUEST_PACKAGES="libc6-dev-ppc64el-cross:/usr/powerpc64le-linux-gnu/include/stdio.h
	qemu-system-ppc:qemu-system-ppc64
	qemu-system-data:/usr/share/qemu/slof.bin"
KP_DEBARCH=
KP_OWN_BACKEND=
KP_KUNIT_QEMU_ARGS=()
KP_TIMEOUT_SCALE=3

arch_qemu() {
	# SLOF, not VOF (x-vof): VOF leaves the NVRAM unformatted, and the
	# kernel's scan of it prints "WARNING: nvram corruption detected"
	# (the base's as well), which fails every run.  The caps silence
	# warnings about mitigations TCG cannot give.
	QEMU=(qemu-system-ppc64
		-M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off
		-cpu power9 -kernel "$KP_BUILD_OUT/$KP_IMAGE"
		-append "console=hvc0 $1")
}
