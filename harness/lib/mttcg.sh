# SPDX-License-Identifier: GPL-2.0
# x86_64 guests whose vCPUs really run at once: Debian 13's QEMU (10.0),
# run from a minbase trixie tree without a chroot, with multi-threaded TCG.
# Debian 12's QEMU 7.2 can run an int3 that text_poke_bp() on another vCPU
# has already taken out of memory (notes/design-core.md, "QEMU and
# text_poke_bp"), so x86_64 guests otherwise run one TCG thread.  QEMU
# 8.1.0 fixed it: translation now locks the guest's code pages before it
# reads them.
# shellcheck shell=bash

# Outside the work tree, as ccache's cache is: a fresh clone (CI's) then
# finds it made, which saves a minute and a half of debootstrap.
KP_MTTCG_ROOT=${KP_MTTCG_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/kp/qemu-trixie}

mttcg_ready() {
	[ -x "$KP_MTTCG_ROOT/usr/bin/qemu-system-x86_64" ] &&
		[ -x "$KP_MTTCG_ROOT/usr/bin/qemu-system-aarch64" ] &&
		[ -f "$KP_MTTCG_ROOT/.kp-ready" ]
}

# ensure_mttcg_qemu: the trixie tree with Debian 13's QEMU in it, made
# once (make_trixie_tree in harness/lib/cleanroom.sh) by whichever harness
# run needs it first; another run that needs it meanwhile waits.
ensure_mttcg_qemu() {
	local lock
	mttcg_ready && return 0
	mkdir -p "$(dirname "$KP_MTTCG_ROOT")"
	exec {lock}>"$KP_MTTCG_ROOT.lock"
	flock "$lock"
	mttcg_ready || make_trixie_tree "$KP_MTTCG_ROOT" "$KP_LOGS/qemu-trixie.log" \
		"Debian 13's QEMU" qemu-system-x86 qemu-system-arm qemu-system-data
	exec {lock}>&-
}

# mttcg_qemu [BINARY]: the start of a QEMU command line that runs
# trixie's qemu-system-x86_64 (or BINARY) with trixie's libraries, modules
# and firmware (the host's 7.2 modules would not load into it).
mttcg_qemu() {
	local root=$KP_MTTCG_ROOT bin=${1:-qemu-system-x86_64}
	echo env QEMU_MODULE_DIR="$root/usr/lib/x86_64-linux-gnu/qemu" \
		"$root/usr/lib64/ld-linux-x86-64.so.2" \
		--library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" \
		"$root/usr/bin/$bin" -L "$root/usr/share/qemu"
}
