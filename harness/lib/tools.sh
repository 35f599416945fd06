# SPDX-License-Identifier: GPL-2.0
# The root file system of the tools suite: perf (linux-perf) and bpftrace
# from Debian 12's packages for the guest's architecture, with their whole
# dependency closure, extracted (no maintainer script runs, so no foreign
# binary ever runs on the host) and packed as an uncompressed cpio archive
# that the guest's initramfs carries under /tools.
# shellcheck shell=bash

KP_TOOLS_SUITE=bookworm
KP_TOOLS_DEBS=(linux-perf bpftrace)
# What the tools never read, 40% of the size: documentation and
# translations, the Python and Perl libraries (perf loads them only for
# "perf script" scripts), iconv's modules, and libclang-cpp, which neither
# perf nor bpftrace links (libbcc does, and bpftrace uses only libbcc_bpf).
# tools_check_libs checks that what remains is enough to load both.
KP_TOOLS_PRUNE=(usr/share/doc usr/share/man usr/share/info usr/share/locale
	usr/share/lintian usr/share/bug usr/share/perl usr/lib/python3.11
	'usr/lib/*-linux-gnu/perl' 'usr/lib/*-linux-gnu/perl-base'
	'usr/lib/*-linux-gnu/gconv' 'usr/lib/llvm-14/lib/libclang-cpp.so*'
	'usr/lib/*-linux-gnu/libclang-cpp.so*')

tools_debarch() {
	local d
	d=$(arch_fact "$1" KP_DEBARCH)
	[ -n "$d" ] && echo "$d"
}

# tools_apt DIR DEBARCH ARGS...: apt-get with a configuration of its own
# under DIR (sources, lists, cache, an empty dpkg status), so the host's
# sources, lists and architectures stay as they are and the closure is the
# full one, not what the host happens to have installed.
tools_apt() {
	local d=$1 arch=$2
	shift 2
	apt-get -q -o Dir::State="$d/state" -o Dir::State::status="$d/state/status" \
		-o Dir::Cache="$d/cache" -o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts="$d/empty" -o Dir::Etc::PreferencesParts="$d/empty" \
		-o Dir::Etc::Preferences="$d/empty/none" \
		-o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o Acquire::Languages=none "$@"
}

tools_apt_setup() {
	local d=$1 s
	mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial" "$d/empty"
	[ -f "$d/state/status" ] || : >"$d/state/status"
	: >"$d/sources.list.new"
	for s in "debian $KP_TOOLS_SUITE" "debian $KP_TOOLS_SUITE-updates" \
		"debian-security $KP_TOOLS_SUITE-security"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"http://deb.debian.org/${s% *} ${s#* } main" >>"$d/sources.list.new"
	done
	mv "$d/sources.list.new" "$d/sources.list"
}

# The packages apt would install on an empty system, as name=version lines.
tools_closure() {
	tools_apt "$1" "$2" -s install --no-install-recommends "${KP_TOOLS_DEBS[@]}" |
		awk '/^Inst /{ v = $3; gsub(/[()]/, "", v); print $2 "=" v }' | sort
}

# Lay out the extracted packages as a merged-/usr system (Debian 12's own
# layout): bin, sbin and lib* become links into usr.
tools_merge_usr() {
	local root=$1 d
	for d in bin sbin lib lib64; do
		[ -L "$root/$d" ] && continue
		if [ -d "$root/$d" ]; then
			mkdir -p "$root/usr/$d"
			cp -a "$root/$d/." "$root/usr/$d/"
			rm -rf "${root:?}/$d"
		fi
		[ -d "$root/usr/$d" ] && ln -s "usr/$d" "$root/$d"
	done
	return 0
}

# tools_check_libs ROOT: every shared library perf and bpftrace need is
# there, searched as the dynamic loader does (multiarch directories first),
# read with the host's readelf, which reads either architecture.
tools_check_libs() {
	local root=$1 todo=(usr/bin/perf usr/bin/bpftrace) seen=" " f n d found
	while ((${#todo[@]})); do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(readelf -d "$root/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen="$seen$n "
			found=
			for d in "$root"/usr/lib/*-linux-gnu "$root/usr/lib"; do
				[ -e "$d/$n" ] && { found=${d#"$root"/}/$n; break; }
			done
			[ -n "$found" ] || { echo "$f needs $n, which is not in the rootfs"; return 1; }
			todo+=("$found")
		done
	done
}

# ensure_tools_rootfs ARCH: make $KP_WORK/tools-ARCH/tools.cpio, or keep
# the one there when its inputs are the same: the package versions the
# registry offers today, and this file (the package list and the layout).
# Sets KP_TOOLS_CPIO.
ensure_tools_rootfs() {
	local arch=$1 debarch dir apt key pkgs p v f log t0
	debarch=$(tools_debarch "$arch") ||
		die "tools: Debian $KP_TOOLS_SUITE has no perf or bpftrace for $arch (x86_64 and arm64 only)"
	dir=$KP_WORK/tools-$arch
	apt=$dir/apt
	log=$KP_LOGS/tools-$arch.log
	KP_TOOLS_CPIO=$dir/tools.cpio
	mkdir -p "$dir"
	: >"$log"
	tools_apt_setup "$apt"
	if ! tools_apt "$apt" "$debarch" update >>"$log" 2>&1; then
		if [ -s "$KP_TOOLS_CPIO" ]; then
			warn "tools: apt-get update for $debarch failed (see $log); using the rootfs built before"
			return 0
		fi
		die "tools: apt-get update of Debian $KP_TOOLS_SUITE $debarch from deb.debian.org failed (see $log)"
	fi
	tools_closure "$apt" "$debarch" >"$dir/closure.new" 2>>"$log"
	[ -s "$dir/closure.new" ] ||
		die "tools: apt could not resolve ${KP_TOOLS_DEBS[*]} for $debarch (see $log)"
	key=$(cat "$dir/closure.new" "${BASH_SOURCE[0]}" | sha1sum | cut -c1-40)
	if [ -s "$KP_TOOLS_CPIO" ] && [ "$(cat "$dir/key" 2>/dev/null)" = "$key" ]; then
		stage "tools rootfs for $arch is up to date ($(du -h "$KP_TOOLS_CPIO" | cut -f1))"
		return 0
	fi
	t0=$(date +%s)
	stage "building the tools rootfs for $arch: $(wc -l <"$dir/closure.new") Debian packages (log: ${log#"$KP_ROOT"/})"
	mapfile -t pkgs <"$dir/closure.new"
	mkdir -p "$dir/debs"
	(cd "$dir/debs" && tools_apt "$apt" "$debarch" download "${pkgs[@]}") >>"$log" 2>&1 ||
		die "tools: downloading the $debarch packages failed (see $log)"
	rm -rf "$dir/root.tmp"
	mkdir -p "$dir/root.tmp/tools"
	for p in "${pkgs[@]}"; do
		# apt-get download names files NAME_VERSION_ARCH.deb, with the
		# version's epoch colon escaped as %3a.
		v=${p#*=}
		f=$(ls "$dir/debs/${p%%=*}_${v//:/%3a}"_*.deb) ||
			die "tools: $p was not downloaded (see $log)"
		dpkg-deb -x "$f" "$dir/root.tmp/tools" || die "tools: extracting $f failed"
	done
	tools_merge_usr "$dir/root.tmp/tools"
	# Globs, expanded in the rootfs.
	# shellcheck disable=SC2068
	(cd "$dir/root.tmp/tools" && rm -rf ${KP_TOOLS_PRUNE[@]})
	for p in perf bpftrace; do
		[ -x "$dir/root.tmp/tools/usr/bin/$p" ] ||
			die "tools: the extracted packages hold no usr/bin/$p"
	done
	tools_check_libs "$dir/root.tmp/tools" >>"$log" 2>&1 ||
		die "tools: a library perf or bpftrace needs is missing: $(tail -n 1 "$log")"
	(cd "$dir/root.tmp" && find tools | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
		>"$KP_TOOLS_CPIO.tmp" || die "tools: packing $KP_TOOLS_CPIO failed"
	mv "$KP_TOOLS_CPIO.tmp" "$KP_TOOLS_CPIO"
	mv "$dir/closure.new" "$dir/closure"
	echo "$key" >"$dir/key"
	rm -rf "$dir/root.tmp"
	# Debs of versions no longer in the closure.
	for p in "$dir"/debs/*.deb; do
		grep -qxF "$(dpkg-deb -f "$p" Package)=$(dpkg-deb -f "$p" Version)" "$dir/closure" ||
			rm -f "$p"
	done
	stage "tools rootfs for $arch: $(du -h "$KP_TOOLS_CPIO" | cut -f1) in $(($(date +%s) - t0))s"
}
