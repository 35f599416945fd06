#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of composition from the working files, laid out as in a real
# checkout: the base repository inside the project (.build/base, here a
# shared clone without a checkout).  An uncommitted kernel-tree file must
# land at its own path with its own content; harness files must not land.
. "$(dirname "$0")/scratch.sh"
export KP_WORK=$tmp/.build
git clone -q --shared --no-checkout "$base" "$KP_WORK/base"
echo "/.build/" >.gitignore
mkdir -p samples/kprobes
cp "$base/samples/kprobes/kprobe_example.c" samples/kprobes/
echo "/* composed from the working files */" >>samples/kprobes/kprobe_example.c
tree=$(bash -c '. harness/lib/common.sh; . harness/lib/compose.sh; compose_tree worktree')
changed=$(git -C "$KP_WORK/base" diff --name-only base "$tree")
[ "$changed" = samples/kprobes/kprobe_example.c ] ||
	{ echo "composed tree differs from the base in: ${changed:-nothing}"; exit 1; }
git -C "$KP_WORK/base" show "$tree:samples/kprobes/kprobe_example.c" |
	grep -q 'composed from the working files'
echo "compose self-test: ok"

# The harness commits the composed tree itself: that must work where git
# has no identity (a fresh machine) and must not configure one.
touch "$KP_WORK/base/.git/kp-base-ok"
mkdir -p "$tmp/home"
HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.useConfigOnly GIT_CONFIG_VALUE_0=true \
	bash -c '. harness/lib/common.sh; . harness/lib/compose.sh; compose' >"$tmp/out" 2>&1 ||
	{ echo "compose failed without a git identity:"; cat "$tmp/out"; exit 1; }
git -C "$KP_WORK/src" show HEAD:samples/kprobes/kprobe_example.c |
	grep -q 'composed from the working files'
if git config --file "$KP_WORK/base/.git/config" --get user.name >/dev/null ||
	[ -e "$tmp/home/.gitconfig" ]; then
	echo "compose configured a git identity"
	exit 1
fi
echo "compose without a git identity: ok"
