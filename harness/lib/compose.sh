# SPDX-License-Identifier: GPL-2.0
# Composition: the base tree, with the project's kernel-tree files laid over
# it, the files it replaces removed and its small patches applied, committed
# on top of the base commit.
# shellcheck shell=bash

# Unpack the tarball once and commit it as the single "base" commit.  The
# project tree is a worktree of the same repository, so both share objects.
ensure_base() {
	[ -f "$KP_BASE_SRC/.git/kp-base-ok" ] && return 0
	[ -f "$KP_TARBALL" ] || die "$KP_TARBALL is missing (apt-get install linux-source-6.12)"
	local tmp=$KP_WORK/base.tmp
	rm -rf "$tmp" "$KP_BASE_SRC" "$KP_SRC"
	mkdir -p "$tmp"
	run_step "unpacking $(basename "$KP_TARBALL")" "$KP_LOGS/base.log" \
		tar -xf "$KP_TARBALL" -C "$tmp"
	mv "$tmp"/linux-source-6.12 "$KP_BASE_SRC"
	rmdir "$tmp"
	# Debian's top-level .gitignore ignores everything; add by force.
	run_step "importing the base into git" "$KP_LOGS/base.log" \
		base_git_import
	touch "$KP_BASE_SRC/.git/kp-base-ok"
	stage "base is $(base_version) at commit $(git -C "$KP_BASE_SRC" rev-parse --short base)"
}

base_git_import() {
	cd "$KP_BASE_SRC"
	git init -q
	git config gc.auto 0
	git add -f -A .
	GIT_AUTHOR_DATE=$KP_BASE_DATE GIT_COMMITTER_DATE=$KP_BASE_DATE \
		git -c user.name="$KP_BASE_NAME" -c user.email="$KP_BASE_EMAIL" \
		commit -q -m "Linux $(make -s kernelversion) from Debian linux-source-6.12 $(dpkg_source_version)"
	git tag base
	git branch -m base-tree
}

dpkg_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown
}

# "6.12.117 (Debian linux-source-6.12 6.12.117-1~deb12u1)"
base_version() {
	git -C "$KP_BASE_SRC" log -1 --format=%s base | sed 's/^Linux //'
}

# Record the base in the repository; warn when the installed package differs
# from the one the project last recorded.
check_base_version() {
	local want have_v
	want=$(cat "$KP_HARNESS/BASE" 2>/dev/null || true)
	have_v=$(base_version)
	if [ "$want" != "$have_v" ]; then
		warn "base is '$have_v' but harness/BASE records '$want'"
	fi
}

ensure_src_worktree() {
	[ -d "$KP_SRC/.git" ] || [ -f "$KP_SRC/.git" ] && return 0
	run_step "creating the project worktree" "$KP_LOGS/base.log" \
		git -C "$KP_BASE_SRC" worktree add -q --detach "$KP_SRC" base
}

# Paths of the project that belong to the kernel tree: those whose top-level
# directory exists in the base.  Everything else (harness/, README.md, .ci/)
# stays out of the composed tree.
kernel_dirs() {
	git -C "$KP_BASE_SRC" ls-tree --name-only -d base | paste -sd'|'
}

kernel_path_filter() {
	grep -zE "^($(kernel_dirs))/" || true
}

# The same, for "mode type id<TAB>path" records of ls-tree.
kernel_path_filter_index() {
	grep -zP "\t($(kernel_dirs))/" || true
}

# compose_tree SOURCE: build the composed tree in a scratch index and print
# its tree id.  SOURCE is "worktree" (the project's files as they are now,
# committed or not) or a commit of the project already fetched into the
# base repository.
compose_tree() {
	local source=$1 idx patches removed p
	idx=$KP_TMP/compose.index
	patches=$KP_TMP/compose.patches
	rm -rf "$idx" "$patches"
	mkdir -p "$patches"
	(
		cd "$KP_BASE_SRC"
		export GIT_INDEX_FILE=$idx
		git read-tree base
		if [ "$source" = worktree ]; then
			# From the project's root: .build sits inside it, and
			# update-index run from there would prefix every path with
			# .build/base/.
			(
				cd "$KP_ROOT"
				env -u GIT_INDEX_FILE git ls-files -z -co --exclude-standard |
					kernel_path_filter |
					GIT_DIR=$KP_BASE_SRC/.git GIT_WORK_TREE=$KP_ROOT \
						git update-index -z --add --stdin
			)
			cp "$KP_HARNESS"/patches/*.patch "$patches"/ 2>/dev/null || true
			removed=$(cat "$KP_HARNESS/removed-files" 2>/dev/null || true)
		else
			git ls-tree -r -z "$source" | kernel_path_filter_index |
				git update-index -z --index-info
			git archive "$source" harness/patches 2>/dev/null |
				tar -x -C "$patches" --strip-components=2 2>/dev/null || true
			removed=$(git show "$source:harness/removed-files" 2>/dev/null || true)
		fi
		printf '%s\n' "$removed" | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' |
			while read -r p; do
				git update-index --force-remove -- "$p"
			done
		for p in $(ls "$patches"/*.patch 2>/dev/null | sort); do
			git apply --cached "$p" ||
				die "patch $(basename "$p") does not apply to the base"
		done
		git write-tree
	)
}

# Compose the project's working files into $KP_SRC.  Only files whose
# content changed are rewritten, so make rebuilds only what changed.
compose() {
	local tree head commit
	ensure_base
	check_base_version
	ensure_src_worktree
	tree=$(compose_tree worktree)
	head=$(git -C "$KP_SRC" rev-parse HEAD)
	if [ "$(git -C "$KP_SRC" rev-parse "$head^{tree}")" = "$tree" ]; then
		stage "composed tree unchanged ($(git -C "$KP_SRC" rev-parse --short HEAD))"
		return 0
	fi
	commit=$(cd "$KP_SRC" && kp_git_identity git commit-tree "$tree" -p base \
		-m "kprobes project, composed from $(project_describe)")
	git -C "$KP_SRC" reset -q --hard "$commit"
	stage "composed $(git -C "$KP_SRC" rev-parse --short HEAD):" \
		"$(git -C "$KP_SRC" diff --shortstat base HEAD | sed 's/^ //')"
}

project_describe() {
	local d
	d=$(git -C "$KP_ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")
	[ -n "$(git -C "$KP_ROOT" status --porcelain 2>/dev/null)" ] && d="$d (with uncommitted changes)"
	echo "$d"
}

src_for() {
	case $1 in
	base) echo "$KP_BASE_SRC" ;;
	project) echo "$KP_SRC" ;;
	esac
}
