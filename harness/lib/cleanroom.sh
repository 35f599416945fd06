# SPDX-License-Identifier: GPL-2.0
# The README's commands on a clean Debian 12 system: a debootstrap
# (minbase) chroot of bookworm with nothing added but git, from this
# machine's own apt sources.  It catches a package that the harness uses
# but does not install, and anything else a fresh machine lacks (a git
# identity, for one).
# shellcheck shell=bash

KP_CLEANROOM=${KP_CLEANROOM:-/var/tmp/kp-cleanroom}

# The first "URIs:" of the deb822 sources, or the first "deb" line.
cleanroom_mirror() {
	local m
	m=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v security | head -n1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

cleanroom_umount() {
	local root=$1 d
	for d in dev sys proc; do
		mountpoint -q "$root/$d" && umount -R "$root/$d"
	done
	return 0
}

# ensure_debootstrap WHO: install debootstrap if missing; WHO names the
# command that needs it in the error.
ensure_debootstrap() {
	have debootstrap && return 0
	stage "installing debootstrap"
	apt-get update -qq >>"$KP_LOGS/apt.log" 2>&1 || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		debootstrap >>"$KP_LOGS/apt.log" 2>&1 ||
		die "$1: apt-get install debootstrap failed (see $KP_LOGS/apt.log)"
}

# make_trixie_tree ROOT LOG WHAT PACKAGE...: a minbase Debian 13 tree at
# ROOT with PACKAGE... in it, made with debootstrap from this machine's apt
# mirror and marked ready (ROOT/.kp-ready) once complete.  WHAT says what
# the tree is for, in its messages.
make_trixie_tree() {
	local root=$1 log=$2 what=$3 mirror
	shift 3
	[ "$(id -u)" = 0 ] || die "$what: run as root (debootstrap needs it)"
	ensure_debootstrap "$what"
	mirror=$(cleanroom_mirror)
	rm -rf "$root"
	run_step "fetching $what (a minbase trixie tree from $mirror)" "$log" \
		debootstrap --variant=minbase --include="$(IFS=,; echo "$*")" \
		trixie "$root" "$mirror" ||
		die "debootstrap of trixie with $* failed (see $log); it needs Debian's registry"
	touch "$root/.kp-ready"
}

# A fresh system each run, unpacked from a cached debootstrap tarball (only
# Debian's packages are in it).
cleanroom_make() {
	local root=$1 tarball=$KP_CLEANROOM.debs.tgz mirror
	[ "$(id -u)" = 0 ] || die "cleanroom: run as root (debootstrap and chroot need it)"
	ensure_debootstrap cleanroom
	cleanroom_umount "$root"
	rm -rf "$root"
	mkdir -p "$root"
	mirror=$(cleanroom_mirror)
	if [ ! -s "$tarball" ]; then
		run_step "cleanroom: downloading a minbase bookworm ($mirror)" "$KP_LOGS/cleanroom.log" \
			debootstrap --variant=minbase --make-tarball="$tarball" bookworm "$root.tb" "$mirror" ||
			die "cleanroom: debootstrap could not download bookworm from $mirror"
		rm -rf "$root.tb"
	fi
	run_step "cleanroom: installing a minbase bookworm in $root" "$KP_LOGS/cleanroom.log" \
		debootstrap --variant=minbase --unpack-tarball="$tarball" bookworm "$root" "$mirror" ||
		die "cleanroom: debootstrap failed (see $KP_LOGS/cleanroom.log; delete $tarball to download again)"
	# This machine's apt sources, so that the chroot sees the same
	# versions (the kernel source among them) as the machine does.
	if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
		rm -f "$root/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
	fi
	[ -s /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/sources.list"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --make-rslave "$root/sys"
	mount --rbind /dev "$root/dev"
	mount --make-rslave "$root/dev"
	run_step "cleanroom: apt-get install git (and nothing else)" "$KP_LOGS/cleanroom.log" \
		cleanroom_exec "$root" 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git' ||
		die "cleanroom: installing git in the chroot failed (see $KP_LOGS/cleanroom.log)"
	# The committed HEAD, as a user's clone would be.
	run_step "cleanroom: cloning $(git -C "$KP_ROOT" rev-parse --short HEAD)" "$KP_LOGS/cleanroom.log" \
		git clone -q --no-local "$KP_ROOT" "$root/root/kprobes" ||
		die "cleanroom: git clone of $KP_ROOT failed"
}

# A command in the chroot with a login-like environment: no variable of
# this shell leaks in, and no git identity is configured there.
cleanroom_exec() {
	local root=$1
	shift
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI=true \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		chroot "$root" /bin/bash -c "$*"
}

# cleanroom [COMMAND...]: the README's two commands (the demo on both arches
# and the test command), each timed; the summary goes to out/cleanroom.txt.
run_cleanroom() {
	local root=$KP_CLEANROOM/root out=$KP_ROOT/out/cleanroom.txt
	local cmds=("$@") c t0 rc log i=0 fails=0 summary=() line rev
	((${#cmds[@]})) || cmds=("harness/kp demo" "harness/kp demo --arch arm64" "bash .ci/run")
	[ -z "$(git -C "$KP_ROOT" status --porcelain)" ] ||
		warn "uncommitted changes are not part of the check: it clones the committed HEAD"
	mkdir -p "$KP_CLEANROOM" "$KP_ROOT/out"
	trap 'cleanroom_umount "'"$root"'"; rm -rf "$KP_TMP"' EXIT
	cleanroom_make "$root"
	rev=$(git -C "$root/root/kprobes" rev-parse --short HEAD)
	for c in "${cmds[@]}"; do
		i=$((i + 1))
		log=$KP_LOGS/cleanroom-$i.log
		: >"$log"
		t0=$(date +%s)
		stage "cleanroom: running '$c' (log: ${log#"$KP_ROOT"/})"
		set +e
		cleanroom_exec "$root" "cd /root/kprobes && $c" 2>&1 | tee -a "$log" |
			sed -u 's/^/    /'
		rc=${PIPESTATUS[0]}
		set -e
		t0=$(($(date +%s) - t0))
		line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1 || true)
		summary+=("$(printf '%-32s exit %d  %dm%02ds  %s' "$c" "$rc" $((t0 / 60)) $((t0 % 60)) "$line")")
		((rc == 0)) || fails=$((fails + 1))
	done
	{
		echo "# harness/kp cleanroom: $(date -u '+%Y-%m-%d %H:%M UTC'), project $rev"
		echo "# clean debootstrap minbase bookworm with git only, $(nproc) cores, empty ccache"
		printf '%s\n' "${summary[@]}"
	} | tee "$out"
	stage "summary written to ${out#"$KP_ROOT"/}"
	((fails == 0)) || die "cleanroom: $fails of ${#cmds[@]} commands failed on a clean system (logs above)"
}
