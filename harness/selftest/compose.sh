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
