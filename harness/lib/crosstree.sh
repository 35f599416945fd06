# SPDX-License-Identifier: GPL-2.0
# Cross compilers Debian 12 lacks, from Debian 13: a minbase trixie tree
# with the kernel's build dependencies and the compilers the arch files
# name in KP_CROSS_TREE_PACKAGE (loongarch64's), in which the matrix runs
# make.  The build's source, output and ccache directories are bound into
# the tree at the same paths, in a mount namespace of the build's own, so
# that the log names the files as a host build would and nothing stays
# mounted afterwards.
# shellcheck shell=bash

KP_CROSS_TREE_ROOT=${KP_CROSS_TREE_ROOT:-$KP_WORK/cross-trixie}
KP_CROSS_TREE_BASE=(make gcc libc6-dev bc bison flex libelf-dev libssl-dev python3 perl ccache
	kmod cpio xz-utils)

# ensure_cross_tree PACKAGE...: the tree, with PACKAGE... installed in it.
# Made with make_trixie_tree (harness/lib/cleanroom.sh) the first time;
# later packages are added with the tree's own apt-get.
ensure_cross_tree() {
	local root=$KP_CROSS_TREE_ROOT log=$KP_LOGS/cross-trixie.log p missing=()
	[ "$#" -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "Debian 13's cross compilers ($*): run as root (debootstrap and chroot need it)"
	if [ ! -f "$root/.kp-ready" ]; then
		make_trixie_tree "$root" "$log" "Debian 13's cross compilers $*" \
			"${KP_CROSS_TREE_BASE[@]}" "$@"
		return 0
	fi
	for p in "$@"; do
		# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
		chroot "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	run_step "installing ${missing[*]} in $(basename "$root")" "$log" \
		chroot "$root" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]}" ||
		die "apt-get install ${missing[*]} in $root failed (see $log)"
}

# cross_tree_run COMMAND...: COMMAND inside the tree, with the current
# build's source and output directories and the ccache directory bound in.
cross_tree_run() {
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare -m bash -c '
		root=$1; shift
		for d in "$1" "$2" "$3" /proc /dev; do
			mkdir -p "$root$d" && mount --rbind "$d" "$root$d" || exit 125
		done
		shift 3
		exec chroot "$root" "$@"' cross-tree "$KP_CROSS_TREE_ROOT" \
		"$KP_BUILD_SRC" "$KP_BUILD_OUT" "$CCACHE_DIR" "$@"
}
