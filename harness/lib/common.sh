# SPDX-License-Identifier: GPL-2.0
# Shared by every harness command: paths, progress output, dependencies.
# shellcheck shell=bash

set -euo pipefail

KP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KP_HARNESS=$KP_ROOT/harness
KP_WORK=${KP_WORK:-$KP_ROOT/.build}
KP_START=${KP_START:-$(date +%s)}
export KP_START

# Where the unpacked base lives (a git repository whose only commit is the
# base), the composed project tree (a worktree of the same repository) and
# the build output directories.
KP_BASE_SRC=$KP_WORK/base
KP_SRC=$KP_WORK/src
KP_OUT=$KP_WORK/out
KP_LOGS=$KP_WORK/logs
KP_TARBALL=/usr/src/linux-source-6.12.tar.xz

# Pinned identity and date: the same tarball always gives the same base
# commit id, so "base-commit:" in the series means the same thing anywhere.
KP_BASE_DATE='2000-01-01T00:00:00Z'
KP_BASE_NAME='linux-source-6.12'
KP_BASE_EMAIL='linux-source-6.12@packages.debian.org'

# The harness's own commits (the composed tree) carry this identity, so
# they work where git has none configured and never touch the user's.
kp_git_identity() {
	GIT_AUTHOR_NAME='kp harness' GIT_AUTHOR_EMAIL='kp-harness@localhost' \
	GIT_COMMITTER_NAME='kp harness' GIT_COMMITTER_EMAIL='kp-harness@localhost' \
		"$@"
}

mkdir -p "$KP_WORK" "$KP_LOGS"

# Scratch files of this run: harness commands may run side by side.
KP_TMP=$(mktemp -d "$KP_WORK/tmp.XXXXXX")
trap 'rm -rf "$KP_TMP"' EXIT

elapsed() {
	local s=$(($(date +%s) - KP_START))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}

stage() {
	printf '[%s] %s\n' "$(elapsed)" "$*"
}

warn() {
	printf '[%s] warning: %s\n' "$(elapsed)" "$*" >&2
}

die() {
	printf '[%s] error: %s\n' "$(elapsed)" "$*" >&2
	note_failed_step "$*"
	exit 1
}

# The first step that failed in this run, for a summary that names it
# (steps may fail inside a subshell, so it is kept in a file).
note_failed_step() {
	[ -s "$KP_TMP/failed-step" ] || printf '%s\n' "$*" >"$KP_TMP/failed-step"
}

take_failed_step() {
	local f=$KP_TMP/failed-step
	if [ -s "$f" ]; then
		cat "$f"
		rm -f "$f"
	else
		echo "$1"
	fi
}

# run_step DESCRIPTION LOGFILE COMMAND...
# Runs COMMAND with its output in LOGFILE, printing the elapsed time every
# 30 s so that a long compile visibly progresses.  On failure, prints the
# tail of the log and returns the command's status.
run_step() {
	local desc=$1 log=$2 pid rc t0 tick=0
	shift 2
	t0=$(date +%s)
	stage "$desc (log: ${log#"$KP_ROOT"/})"
	"$@" >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		tick=$((tick + 1))
		if ((tick % 30 == 0)); then
			printf '[%s]   ... %s: %ds\n' "$(elapsed)" "$desc" $(($(date +%s) - t0))
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if ((rc != 0)); then
		printf '[%s] %s failed (exit %d); last lines of %s:\n' \
			"$(elapsed)" "$desc" "$rc" "$log" >&2
		tail -n 40 "$log" >&2
		note_failed_step "$desc failed (log: ${log#"$KP_ROOT"/})"
		return "$rc"
	fi
	stage "$desc done in $(($(date +%s) - t0))s"
}

# Debian packages every command needs, and the command or file that shows
# each is present.
KP_PACKAGES=(
	"linux-source-6.12:$KP_TARBALL"
	"build-essential:gcc"
	"gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc"
	"libc6-dev-arm64-cross:/usr/aarch64-linux-gnu/include/stdio.h"
	"flex:flex"
	"bison:bison"
	"bc:bc"
	"libelf-dev:/usr/include/libelf.h"
	"libssl-dev:/usr/include/openssl/ssl.h"
	"qemu-system-x86:qemu-system-x86_64"
	"qemu-system-arm:qemu-system-aarch64"
	"busybox-static:/bin/busybox"
	"cpio:cpio"
	"ccache:ccache"
	"python3:python3"
	"kmod:depmod"
	"git:git"
	"xz-utils:xz"
	"rsync:rsync"
	"sparse:sparse"
	"python3-sphinx:sphinx-build"
	"python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py"
	"perl:perl"
	"debian-archive-keyring:/usr/share/keyrings/debian-archive-keyring.gpg"
	"binutils:readelf"
)

# arch_wanted ARCH: this run builds or boots ARCH.
arch_wanted() {
	case " ${KP_ARCHES:-} " in *" $1 "*) return 0 ;; esac
	return 1
}

have() {
	case $1 in
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# ensure_packages [ENTRY...]: install what KP_PACKAGES lists, and the
# entries given (same "package:command-or-file" form) for one command's
# extra needs, when missing.
ensure_packages() {
	local missing=() entry wanted=("${KP_PACKAGES[@]}" "$@")
	for entry in "${wanted[@]}"; do
		have "${entry#*:}" || missing+=("${entry%%:*}")
	done
	((${#missing[@]} == 0)) && return 0
	[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root to install them"
	stage "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >>"$KP_LOGS/apt.log" 2>&1 || true
	apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		>>"$KP_LOGS/apt.log" 2>&1 || {
		tail -n 30 "$KP_LOGS/apt.log" >&2
		die "apt-get install failed"
	}
}

# The arm64 guest needs an arm64 busybox; Debian ships one through multiarch.
ensure_arm64_busybox() {
	local dir=$KP_WORK/busybox-arm64 deb
	[ -x "$dir/bin/busybox" ] && return 0
	stage "fetching busybox-static:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get download busybox-static:arm64) >>"$KP_LOGS/apt.log" 2>&1 || {
		apt-get update -qq >>"$KP_LOGS/apt.log" 2>&1
		(cd "$dir.tmp" && apt-get download busybox-static:arm64) >>"$KP_LOGS/apt.log" 2>&1
	} || die "could not download busybox-static:arm64 (see $KP_LOGS/apt.log)"
	deb=$(ls "$dir.tmp"/busybox-static_*_arm64.deb)
	dpkg -x "$deb" "$dir.tmp/root"
	rm -rf "$dir"
	mv "$dir.tmp/root" "$dir"
	rm -rf "$dir.tmp"
}

# guest_packages: what the arches this run boots need beyond KP_PACKAGES
# (KP_CROSS_PACKAGE and KP_GUEST_PACKAGES of harness/arch/ARCH.sh), one a
# line.
guest_packages() {
	local a p
	for a in ${KP_ARCHES:-}; do
		arch_boots "$a" || continue
		for p in $(arch_fact "$a" KP_CROSS_PACKAGE) $(arch_fact "$a" KP_GUEST_PACKAGES); do
			echo "$p"
		done
	done
}

# The busybox of an arch whose harness/arch/ARCH.sh pins a Debian package
# (KP_BUSYBOX_VERSION, KP_BUSYBOX_SHA256; KP_BUSYBOX_SUITE and
# KP_BUSYBOX_DEBARCH for apt): fetched on its own, with no change to the
# host's sources, lists or architectures.  apt-helper checks the pinned
# checksum; when a point release has moved the package out of the pool, an
# apt with a configuration of its own (lists, cache and sources under
# $KP_WORK/apt-ARCH) finds the current one, verified by the signatures
# that debian-archive-keyring holds for Debian 12 and 13.
foreign_apt() {
	local d=$1 debarch=$2
	shift 2
	apt-get -q -o Dir::State="$d/state" -o Dir::State::status="$d/state/status" \
		-o Dir::Cache="$d/cache" -o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts="$d/empty" -o Dir::Etc::PreferencesParts="$d/empty" \
		-o Dir::Etc::Preferences="$d/empty/none" \
		-o APT::Architecture="$debarch" -o APT::Architectures="$debarch" \
		-o Acquire::Languages=none -o Acquire::Retries=3 "$@"
}

# In a subshell: the arch's variables stay its own.
ensure_busybox() (
	local a=$1 dir d deb debarch
	arch_vars "$a"
	[ -n "$KP_BUSYBOX_URL" ] || return 0
	debarch=$KP_BUSYBOX_DEBARCH
	# Where the arch file says the busybox is, in dir/bin/busybox.
	dir=${KP_BUSYBOX%/bin/busybox}
	d=$KP_WORK/apt-$a
	[ -x "$KP_BUSYBOX" ] && return 0
	stage "fetching busybox-static:$debarch from Debian $KP_BUSYBOX_SUITE for $a"
	rm -rf "$d" "$dir.tmp"
	mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial" "$d/empty" "$dir.tmp"
	: >"$d/state/status"
	echo "deb [arch=$debarch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/debian $KP_BUSYBOX_SUITE main" >"$d/sources.list"
	if ! /usr/lib/apt/apt-helper download-file "$KP_BUSYBOX_URL" \
		"$dir.tmp/busybox-static_pinned_$debarch.deb" \
		"SHA256:$KP_BUSYBOX_SHA256" >>"$KP_LOGS/apt.log" 2>&1; then
		rm -f "$dir.tmp"/*.deb
		foreign_apt "$d" "$debarch" update >>"$KP_LOGS/apt.log" 2>&1 ||
			die "busybox-static for $a: the pinned package is gone and" \
				"apt-get update of Debian $KP_BUSYBOX_SUITE ($debarch) failed (see" \
				"$KP_LOGS/apt.log; \"unexpected size\" is a mirror mid-sync," \
				"retry later; a signature error means debian-archive-keyring" \
				"must hold the $KP_BUSYBOX_SUITE keys)"
		(cd "$dir.tmp" && foreign_apt "$d" "$debarch" download busybox-static) \
			>>"$KP_LOGS/apt.log" 2>&1 ||
			die "could not download busybox-static:$debarch for $a (see $KP_LOGS/apt.log)"
	fi
	deb=$(ls "$dir.tmp"/busybox-static_*_"$debarch".deb)
	dpkg -x "$deb" "$dir.tmp/root"
	# Debian 13 has merged /usr (usr/bin), Debian 12 not (bin).
	mkdir -p "$dir.tmp/bin"
	mv "$dir.tmp/root/usr/bin/busybox" "$dir.tmp/bin/busybox" 2>/dev/null ||
		mv "$dir.tmp/root/bin/busybox" "$dir.tmp/bin/busybox" ||
		die "busybox-static for $a has no bin/busybox or usr/bin/busybox ($deb)"
	rm -rf "$dir" "$d" "$dir.tmp/root" "$dir.tmp"/*.deb
	mv "$dir.tmp" "$dir"
)

# arch_vars ARCH: the build variables of ARCH (KP_KARCH, KP_SRCARCH,
# KP_CROSS, KP_IMAGE and the rest harness/arch/README lists), and, for an
# arch that boots, its arch_qemu and arch_test_boot_args.
arch_vars() {
	[ -f "$KP_HARNESS/arch/$1.sh" ] || die "unknown arch '$1' (no harness/arch/$1.sh)"
	unset -f arch_qemu arch_test_boot_args
	KP_BUSYBOX= KP_DEBARCH= KP_OWN_BACKEND= KP_KUNIT_QEMU_ARGS=() KP_KCFLAGS=()
	KP_CROSS_TREE_PACKAGE= KP_MATRIX_BASE_ERRORS=() KP_MATRIX_NO_VARIANTS=
	KP_BUSYBOX_VERSION= KP_BUSYBOX_SHA256= KP_BUSYBOX_SUITE= KP_BUSYBOX_DEBARCH=
	KP_BUSYBOX_URL=
	KP_GUEST_PACKAGES= KP_USER_CFLAGS= KP_QEMU_MEM= KP_TIMEOUT_SCALE=1
	# shellcheck source=/dev/null
	. "$KP_HARNESS/arch/$1.sh"
	KP_ARCH=$1
	# A pinned busybox-static: where Debian's pool has it, and where
	# ensure_busybox unpacks it.
	if [ -n "$KP_BUSYBOX_VERSION" ]; then
		KP_BUSYBOX_URL=http://deb.debian.org/debian/pool/main/b/busybox/busybox-static_${KP_BUSYBOX_VERSION}_$KP_BUSYBOX_DEBARCH.deb
		KP_BUSYBOX=$KP_WORK/busybox-$1/bin/busybox
	fi
}

# arch_fact ARCH NAME: the value harness/arch/ARCH.sh gives NAME, without
# changing the current arch's variables.
arch_fact() {
	(
		arch_vars "$1"
		printf '%s\n' "${!2:-}"
	)
}

# arch_boots ARCH: the harness can boot ARCH under QEMU.
arch_boots() {
	(
		arch_vars "$1"
		declare -F arch_qemu >/dev/null
	)
}

# booting_arches: the arches the harness can boot, comma-separated.
booting_arches() {
	local f a list=
	for f in "$KP_HARNESS"/arch/*.sh; do
		a=$(basename "$f" .sh)
		arch_boots "$a" && list+=${list:+, }$a
	done
	echo "$list"
}

# The build directory's and the run's suffix for the kernel flavour
# (KP_DISTRO): none for the small config, "-distro" for the config that
# follows Debian's (harness/lib/distro.sh), "-distro-whole" and
# "-distro-rt" for the long forms over all of Debian's config.
flavour_suffix() {
	case ${KP_DISTRO:-} in
	'') ;;
	distro) printf %s -distro ;;
	*) printf %s "-distro-$KP_DISTRO" ;;
	esac
	[ -z "${KP_OS:-}" ] || printf %s -os
	echo
}

# The base's record of refused functions (harness/stress/) for ARCH, DEBUG
# (0 or 1) and KIND (kprobe, kretprobe), of the flavour KP_DISTRO names;
# the guest finds it in /kp/records.
sweep_record_name() {
	local d=
	[ "$2" = 1 ] && d=-debug
	echo "base-sweep-$1$(flavour_suffix)$d-$3.txt"
}
