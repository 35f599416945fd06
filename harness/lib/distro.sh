# SPDX-License-Identifier: GPL-2.0
# The distro flavour of the test kernels: the small config with every
# option that changes generated code taken from Debian's own 6.12 config
# (harness/config/distro.select), fetched as the linux-config-6.12
# package of the base's version for the guest's architecture.  The long
# forms "whole" and "rt" lay the same fragments over the whole of
# Debian's config (generic or rt), its modules left out.
# shellcheck shell=bash

# Debian's config that a distro kernel of ARCH follows, in the
# linux-config-6.12 package: the generic ("none") flavour, or the rt one.
# Only its options that change code (distro), or all of them (whole, rt).
distro_debian_config() {
	local debarch=$1
	case ${KP_DISTRO:-} in
	rt) echo "config.${debarch}_rt_${debarch}.xz" ;;
	*) echo "config.${debarch}_none_${debarch}.xz" ;;
	esac
}

# ensure_debian_config ARCH: sets KP_DEBIAN_CONFIG to Debian's config for
# ARCH, from linux-config-6.12 of the same version as the base's
# linux-source-6.12 (another version is taken, with a warning, only when
# the registry no longer has it).  Fetched and unpacked with an apt of its
# own (harness/lib/tools.sh), so the host's architectures stay as they are.
ensure_debian_config() {
	local arch=$1 debarch dir apt log want deb name
	debarch=$(tools_debarch "$arch") ||
		die "distro: Debian has no 6.12 config for $arch (x86_64 and arm64 only)"
	dir=$KP_WORK/debian-config/$debarch
	apt=$KP_WORK/debian-config/apt
	log=$KP_LOGS/debian-config.log
	want=$(dpkg_source_version)
	name=$(distro_debian_config "$debarch")
	KP_DEBIAN_CONFIG=$dir/$name
	if [ -s "$KP_DEBIAN_CONFIG" ] && [ "$(cat "$dir/wanted" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	stage "fetching Debian's linux-config-6.12 $want for $debarch (log: ${log#"$KP_ROOT"/})"
	tools_apt_setup "$apt"
	tools_apt "$apt" "$debarch" update >>"$log" 2>&1 ||
		die "distro: apt-get update of Debian $KP_TOOLS_SUITE $debarch failed (see $log); the distro kernels need Debian's configs from the registry"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	if ! (cd "$dir.tmp" && tools_apt "$apt" "$debarch" download "linux-config-6.12=$want") >>"$log" 2>&1; then
		warn "distro: linux-config-6.12 $want (the base's version) is not in the registry; taking its current version"
		(cd "$dir.tmp" && tools_apt "$apt" "$debarch" download linux-config-6.12) >>"$log" 2>&1 ||
			die "distro: downloading linux-config-6.12 for $debarch failed (see $log)"
	fi
	deb=$(ls "$dir.tmp"/linux-config-6.12_*.deb)
	dpkg-deb -x "$deb" "$dir.tmp/root" || die "distro: extracting $deb failed"
	rm -rf "$dir"
	mkdir -p "$dir"
	mv "$dir.tmp"/root/usr/src/linux-config-6.12/* "$dir/"
	dpkg-deb -f "$deb" Version >"$dir/version"
	echo "$want" >"$dir/wanted"
	rm -rf "$dir.tmp"
	[ -s "$KP_DEBIAN_CONFIG" ] ||
		die "distro: linux-config-6.12 for $debarch holds no $name"
	[ "$(cat "$dir/version")" = "$want" ] ||
		warn "distro: Debian's configs are $(cat "$dir/version"), the base is $want"
}

# distro_source: how a fragment's header names Debian's config (after
# ensure_debian_config).
distro_source() {
	echo "linux-config-6.12 $(cat "$(dirname "$KP_DEBIAN_CONFIG")/version") $(basename "$KP_DEBIAN_CONFIG" .xz)"
}

# distro_fragment ARCH OUT [SELECT]: write the options taken from Debian
# (those harness/config/SELECT names, distro.select by default) to OUT.
distro_fragment() {
	ensure_debian_config "$1"
	python3 "$KP_HARNESS/lib/distro_config.py" "$KP_HARNESS/config/${3:-distro.select}" \
		"$KP_DEBIAN_CONFIG" "$(distro_source)" \
		>"$2" || die "distro: deriving the config fragment from $KP_DEBIAN_CONFIG failed"
}

# distro_whole: does this flavour start from the whole of Debian's config?
# PREEMPT_RT needs EXPERT, which changes the defaults of many options, so
# the rt kernel can only be Debian's whole config.
distro_whole() {
	case ${KP_DISTRO:-} in whole | rt) return 0 ;; esac
	return 1
}

# distro_builtin ARCH OUT: Debian's whole config for ARCH, with what it
# builds as modules turned off, into OUT.
distro_builtin() {
	ensure_debian_config "$1"
	python3 "$KP_HARNESS/lib/distro_config.py" --builtin "$KP_DEBIAN_CONFIG" \
		"$(distro_source)" \
		>"$2" || die "distro: turning $KP_DEBIAN_CONFIG into a fragment failed"
}

# distro_words: what a record's header says of a distro config.
distro_words() {
	local name
	[ -n "${KP_DISTRO:-}" ] || return 0
	name=$(distro_debian_config "$(tools_debarch "$KP_ARCH")")
	distro_whole && printf ' over the whole of Debian'"'"'s %s, modules left out' "$name"
	printf ' with Debian'"'"'s values of harness/config/distro.select, from %s' "$name"
}
