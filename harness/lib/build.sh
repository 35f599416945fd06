# SPDX-License-Identifier: GPL-2.0
# Out-of-tree kernel builds through ccache.
# shellcheck shell=bash

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
# Both source trees sit under $KP_WORK; relative paths let them share hits.
export CCACHE_BASEDIR=$KP_WORK
export CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='Sat Jan  1 00:00:00 UTC 2000'
export KBUILD_BUILD_USER=kp
export KBUILD_BUILD_HOST=kp

# ccache_counts: "HITS MISSES", the cache's counters so far.
ccache_counts() {
	ccache --print-stats 2>/dev/null | awk -F'\t' '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
		$1 == "cache_miss" { misses = $2 }
		END { print hits + 0, misses + 0 }'
}

# ccache_report BEFORE: how many compiles since ccache_counts said BEFORE
# came from the cache.  A run that builds from a cold cache takes several
# times as long (about 12 minutes per kernel on 2 cores, against 1 or 2):
# this line tells the two apart.
ccache_report() {
	local h0 m0 h1 m1
	read -r h0 m0 <<<"$1"
	read -r h1 m1 < <(ccache_counts)
	stage "ccache: $((h1 - h0)) compiles from the cache, $((m1 - m0)) not in it ($CCACHE_DIR)"
}

# build_vars VARIANT ARCH DEBUG: set KP_BUILD_SRC and KP_BUILD_OUT.
build_vars() {
	arch_vars "$2"
	KP_BUILD_SRC=$(src_for "$1")
	KP_BUILD_OUT=$KP_OUT/$1-$2$(flavour_suffix)
	[ "$3" = 1 ] && KP_BUILD_OUT=$KP_BUILD_OUT-debug
	return 0
}

# in_build_tree COMMAND...: COMMAND where the arch's compiler is: in the
# cross tree for an arch whose compiler only Debian 13 has
# (harness/lib/crosstree.sh), on the host otherwise.
in_build_tree() {
	if [ -n "${KP_CROSS_TREE_PACKAGE:-}" ]; then
		cross_tree_run "$@"
	else
		"$@"
	fi
}

kmake() {
	in_build_tree make -C "$KP_BUILD_SRC" O="$KP_BUILD_OUT" ARCH="$KP_KARCH" \
		CROSS_COMPILE="$KP_CROSS" CC="ccache ${KP_CROSS}gcc" \
		HOSTCC="ccache gcc" ${KP_KCFLAGS[@]+KCFLAGS="${KP_KCFLAGS[*]}"} \
		-j"$(nproc)" "$@"
}

# kcross TOOL ARGS...: the arch's cross binutils' TOOL (nm, objdump, ...).
kcross() {
	local tool=$1
	shift
	in_build_tree "${KP_CROSS}$tool" "$@"
}

# A distro kernel takes Debian's values over the small config's (the last
# line for a symbol wins), then what those need under QEMU.  The whole and
# rt forms start from all of Debian's config instead of allnoconfig's
# defaults: the small config's lines then turn on what the suites need.
# With "checked", leave out that starting point: the build's config check
# holds every other line, but Kconfig drops many of Debian's as their
# modules go.
config_fragments() {
	local debug=$1
	distro_whole && [ "${2:-}" != checked ] && echo "$KP_BUILD_OUT/distro-builtin.config"
	echo "$KP_HARNESS/config/common.config"
	echo "$KP_HARNESS/config/$KP_ARCH.config"
	if [ -n "${KP_DISTRO:-}" ]; then
		echo "$KP_BUILD_OUT/distro-debian.config"
		echo "$KP_HARNESS/config/distro-$KP_ARCH.config"
	fi
	distro_whole && echo "$KP_BUILD_OUT/distro-whole.config"
	[ "${KP_DISTRO:-}" = rt ] && echo "$KP_HARNESS/config/distro-rt.config"
	[ -n "${KP_OS:-}" ] && echo "$KP_HARNESS/config/os.config"
	if [ "$debug" = 1 ]; then
		echo "$KP_HARNESS/config/debug.config"
		# What the arch cannot have of it (KASAN on i386 and mips).
		[ ! -f "$KP_HARNESS/config/debug-$KP_ARCH.config" ] ||
			echo "$KP_HARNESS/config/debug-$KP_ARCH.config"
	fi
	return 0
}

# Does the tree being configured define the symbol $1 in a Kconfig file?
kconfig_defines() {
	grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config ${1#CONFIG_}\$" "$KP_BUILD_SRC"
}

# Every CONFIG_X=v line of the fragments must be in .config as written
# ("is not set" for =n), or the build would silently test something else.
# As in Kconfig, the last line for a symbol wins: an arch fragment may
# override common.config where the arch cannot have what it asks for.
# The base has none of the symbols the project adds (a sample of ours):
# on the base such a symbol is left out, on the project it is an error.
check_config() {
	local frag=$1 cfg=$2 bad=0 line sym val
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		val=${line#*=}
		[ "$(grep "^$sym=" "$frag" | tail -n 1)" = "$line" ] || continue
		if [ "$val" = n ]; then
			grep -qx "$sym=.*" "$cfg" && { echo "  $sym should be off"; bad=1; }
		elif [ "$KP_BUILD_SRC" = "$KP_BASE_SRC" ] &&
		     ! grep -qE "^(# )?$sym[= ]" "$cfg" && ! kconfig_defines "$sym"; then
			echo "  $sym: the base does not have it; left out"
		else
			grep -qxF "$line" "$cfg" || {
				echo "  wanted $line, got $(grep -E "^(# )?$sym[= ]" "$cfg" || echo 'nothing')"
				bad=1
			}
		fi
	done <"$frag"
	return $bad
}

configure() {
	local debug=$1 frag=$KP_BUILD_OUT/kp.fragment sum
	mkdir -p "$KP_BUILD_OUT"
	[ -n "${KP_DISTRO:-}" ] && distro_fragment "$KP_ARCH" "$KP_BUILD_OUT/distro-debian.config"
	if distro_whole; then
		distro_builtin "$KP_ARCH" "$KP_BUILD_OUT/distro-builtin.config"
		distro_fragment "$KP_ARCH" "$KP_BUILD_OUT/distro-whole.config" distro-whole.select
	fi
	# shellcheck disable=SC2046
	cat $(config_fragments "$debug") >"$frag.new"
	sum=$(sha1sum "$frag.new" | cut -c1-40)
	if [ -f "$KP_BUILD_OUT/.config" ] && [ "$(cat "$KP_BUILD_OUT/kp.fragment.sum" 2>/dev/null)" = "$sum" ]; then
		rm -f "$frag.new"
		return 0
	fi
	mv "$frag.new" "$frag"
	run_step "configuring $(basename "$KP_BUILD_OUT")" "$KP_BUILD_OUT/build.log" \
		kmake KCONFIG_ALLCONFIG="$frag" allnoconfig || return
	# shellcheck disable=SC2046
	cat $(config_fragments "$debug" checked) >"$KP_BUILD_OUT/kp.checked"
	if ! check_config "$KP_BUILD_OUT/kp.checked" "$KP_BUILD_OUT/.config" >"$KP_BUILD_OUT/config-check.txt"; then
		cat "$KP_BUILD_OUT/config-check.txt" >&2
		die "the config fragments did not come out as written"
	fi
	distro_whole && distro_kept "$KP_BUILD_OUT/distro-builtin.config" "$KP_BUILD_OUT/.config"
	echo "$sum" >"$KP_BUILD_OUT/kp.fragment.sum"
}

# distro_kept DEBIAN CONFIG: how many of Debian's built-in options the
# whole-config kernel kept, in the build log and config-check.txt.
distro_kept() {
	local want kept
	want=$(grep -c '=y$' "$1")
	kept=$(grep -cxFf <(grep '=y$' "$1") "$2")
	stage "$(basename "$KP_BUILD_OUT"): $kept of Debian's $want built-in options kept (the others need a module, or are the small config's choices: $KP_BUILD_OUT/config-check.txt)"
	{
		echo "Debian's built-in options not in .config:"
		grep '=y$' "$1" | grep -vxFf "$2" | sed 's/^/  /'
	} >>"$KP_BUILD_OUT/config-check.txt"
}

# build VARIANT ARCH DEBUG: kernel image, modules and the harness's own
# external modules, with modules installed under $KP_BUILD_OUT/modroot.
# Every step ends the build when it fails: callers run it as an "if"
# condition, where bash's errexit does not apply.
build() {
	local variant=$1 arch=$2 debug=$3 log
	build_vars "$variant" "$arch" "$debug"
	log=$KP_BUILD_OUT/build.log
	mkdir -p "$KP_BUILD_OUT"
	: >"$log"
	configure "$debug" || return
	run_step "building $(basename "$KP_BUILD_OUT")" "$log" \
		kmake "$(basename "$KP_IMAGE")" modules || return
	rm -rf "$KP_BUILD_OUT/modroot"
	run_step "installing modules" "$log" \
		kmake INSTALL_MOD_PATH="$KP_BUILD_OUT/modroot" INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install || return
	build_external || return
	build_guest_progs || return
	build_kselftest
}

# The harness's own modules (benchmark, test helpers) are built out of tree
# from a copy, so the repository is never written to by a build.  So is
# upstream's KUnit suite, taken from the base tree under another module
# name: it keeps checking compatibility after the project replaces
# lib/test_kprobes.c.
build_external() {
	local m dst
	for m in "$KP_HARNESS"/modules/*/; do
		[ -f "$m/Kbuild" ] || continue
		dst=$KP_BUILD_OUT/ext/$(basename "$m")
		mkdir -p "$dst"
		rsync -a --checksum "$m" "$dst/" || return
		run_step "building module $(basename "$m")" "$KP_BUILD_OUT/build.log" \
			kmake M="$dst" modules || return
	done
	dst=$KP_BUILD_OUT/ext/upstream-kunit
	mkdir -p "$dst"
	cmp -s "$KP_BASE_SRC/lib/test_kprobes.c" "$dst/test_kprobes_upstream.c" ||
		cp "$KP_BASE_SRC/lib/test_kprobes.c" "$dst/test_kprobes_upstream.c"
	# Without the function tracer's calls, as lib/Makefile builds it.
	printf '%s\n' 'obj-m += test_kprobes_upstream.o' \
		'ccflags-remove-$(CONFIG_FUNCTION_TRACER) += $(CC_FLAGS_FTRACE)' >"$dst/Kbuild"
	run_step "building upstream's test_kprobes from the base" "$KP_BUILD_OUT/build.log" \
		kmake M="$dst" modules
}

# The guest's own programs (harness/guest-progs/*.c), static, for its arch
# (KP_USER_CFLAGS: what its user space needs beyond the compiler's default).
build_guest_progs() {
	local c dst=$KP_BUILD_OUT/guest-progs
	mkdir -p "$dst"
	for c in "$KP_HARNESS"/guest-progs/*.c; do
		run_step "building $(basename "$c")" "$KP_BUILD_OUT/build.log" \
			"${KP_CROSS}gcc" ${KP_USER_CFLAGS:-} -static -O2 -Wall \
			-o "$dst/$(basename "$c" .c)" "$c" ||
			return
	done
}

# The kprobes kselftest (tools/testing/selftests/kprobes), installed as
# "make -C tools/testing/selftests TARGETS=kprobes install" does, with its
# test modules built against this kernel.  It is built in a scratch tree
# made of the build's selftests framework and the project's kprobes
# directory, so that a --base run gets the same tests.
build_kselftest() {
	local st=$KP_BUILD_OUT/kselftest-src/tools/testing/selftests
	local f src=$KP_BUILD_SRC/tools/testing/selftests
	mkdir -p "$st" "$KP_BUILD_OUT/kselftest-src/scripts"
	cp "$KP_BUILD_SRC/scripts/subarch.include" "$KP_BUILD_OUT/kselftest-src/scripts/"
	for f in Makefile lib.mk kselftest run_kselftest.sh kselftest.h kselftest_harness.h; do
		rsync -a --checksum "$src/$f" "$st/" || return
	done
	rsync -a --checksum --delete "$KP_ROOT/tools/testing/selftests/kprobes/" "$st/kprobes/" ||
		return
	rm -rf "$KP_BUILD_OUT/kselftest"
	run_step "building the kprobes kselftest" "$KP_BUILD_OUT/build.log" \
		make -C "$st" TARGETS=kprobes ARCH="$KP_KARCH" CROSS_COMPILE="$KP_CROSS" \
		KDIR="$KP_BUILD_OUT" USERLDFLAGS=-static TARGET_ARCH="${KP_USER_CFLAGS:-}" \
		KSFT_INSTALL_PATH="$KP_BUILD_OUT/kselftest" install
}

kernel_release() {
	cat "$KP_BUILD_OUT/include/config/kernel.release"
}
