#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of "kp series" on a scratch project that shares this
# checkout's base: harness-only commits are left out, a fixup is folded
# into its patch with its "checkpatch:" paragraph (also from a fixup that
# changes no file), an "amend!" replaces its patch's message,
# Signed-off-by and base-commit are present, a second run reuses the
# composed trees and writes the same patches, a commit whose tree cannot
# be composed stops the series with its name, and a commit that changes
# the kernel tree without a kernel-style subject is refused.
. "$(dirname "$0")/scratch.sh"
mkdir -p kernel samples/kprobes
cp "$base/kernel/kprobes.c" kernel/
echo "/* first */" >>kernel/kprobes.c
git add kernel && git commit -qm "kprobes: first change" -m "Body of the first patch."
echo "# harness note" >>harness/BASE
git commit -qam "harness: not part of the series"
cp "$base/samples/kprobes/kprobe_example.c" samples/kprobes/
echo "/* sample */" >>samples/kprobes/kprobe_example.c
git add samples && git commit -qm "samples/kprobes: second change"
echo "/* folded */" >>kernel/kprobes.c
git commit -qam "fixup! kprobes: first change" -m "Not for the patch." \
	-m "checkpatch: a folded note."
git commit -q --allow-empty -m "fixup! samples/kprobes: second change" \
	-m "checkpatch: a note without a change."
git commit -q --allow-empty -m "amend! kprobes: first change" \
	-m "kprobes: first change" -m "The amended body."
echo samples/kprobes/kretprobe_example.c >harness/removed-files
git add harness && git commit -qm "samples/kprobes: drop the kretprobe example"
mkdir -p x/init y/init
cp "$base/init/main.c" x/init/ && cp "$base/init/main.c" y/init/
sed -i '0,/^#include/s//\/* patched *\/\n#include/' y/init/main.c
(cd x && diff -u init/main.c ../y/init/main.c | sed 's|^+++ ../y/|+++ b/|; s|^--- |--- a/|') >harness/patches/0001-init.patch || true
rm -rf x y
git add harness && git commit -qm "init: a small patch to a file the project does not own"
# As on a fresh machine: git knows no identity but the project's own.
HOME=$tmp GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.useConfigOnly GIT_CONFIG_VALUE_0=true \
	harness/kp series >series.out 2>&1 || { cat series.out; exit 1; }
s=out/series
ls "$s"/0000-cover-letter.patch "$s"/0001-kprobes-first-change.patch \
	"$s"/0002-samples-kprobes-second-change.patch >/dev/null
[ "$(ls "$s"/0*.patch | wc -l)" = 5 ] || { echo "expected 4 patches + cover"; ls "$s"; exit 1; }
grep -q '^deleted file mode' "$s"/0003-samples-kprobes-drop-the-kretprobe-example.patch
grep -q '^+/\* patched \*/' "$s"/0004-init-a-small-patch-*.patch
grep -q '^+/\* first \*/' "$s"/0001-*.patch
grep -q '^+/\* folded \*/' "$s"/0001-*.patch || { echo "fixup not folded into 0001"; exit 1; }
grep -q '^Signed-off-by: Self Test <selftest@example.org>' "$s"/0002-*.patch
grep -q '^checkpatch: a folded note\.' "$s"/0001-*.patch || { echo "fixup's note not in 0001"; exit 1; }
grep -q '^The amended body\.' "$s"/0001-*.patch || { echo "amend! not applied to 0001"; exit 1; }
if grep -q 'Body of the first patch\|^amend!\|Not for the patch' "$s"/0001-*.patch; then
	echo "0001 has its old body, the amend!'s subject, or a fixup's other paragraphs"
	exit 1
fi
grep -q '^checkpatch: a note without a change\.' "$s"/0002-*.patch ||
	{ echo "a fixup with only a note was dropped"; exit 1; }
grep -q "^base-commit: $(git -C "$base" rev-parse base)" "$s"/0000-cover-letter.patch
! grep -q 'SUBJECT HERE\|BLURB HERE' "$s"/0000-cover-letter.patch
grep -q '^From: Self Test <selftest@example.org>' "$s"/0000-cover-letter.patch
! grep -q '^diff --git a/harness' "$s"/0*.patch
# A second run composes nothing again and writes the same patches.
cp -r "$s" first-series
harness/kp series >series1.out 2>&1 || { cat series1.out; exit 1; }
n=$(git rev-list --count HEAD)
grep -q "composing the kernel tree at each of the project's $n commits ($n known from" series1.out ||
	{ cat series1.out; echo "the second run composed the trees again"; exit 1; }
# Only the mail headers that carry the time of the run may differ.
diff -r -I '^\(Message-Id\|In-Reply-To\|References\|Date\): ' first-series "$s" ||
	{ echo "the second run wrote other patches"; exit 1; }
# A commit whose tree cannot be composed stops the series and is named.
sed 's/^ #include/ #include-not-in-the-base/' harness/patches/0001-init.patch \
	>harness/patches/0002-broken.patch
git add harness && git commit -qm "init: a patch that does not apply"
if harness/kp series >series3.out 2>&1; then
	echo "a series was written over a commit whose tree cannot be composed"
	exit 1
fi
grep -q "patch 0002-broken.patch does not apply to the base" series3.out &&
	grep -q "cannot compose the kernel tree at $(git rev-parse HEAD) (init: a patch that does not apply)" series3.out ||
	{ cat series3.out; echo "the failed composition was not named"; exit 1; }
git reset -q --hard HEAD~1
echo "/* no subsystem */" >>kernel/kprobes.c
git commit -qam "Change without a subsystem prefix"
if harness/kp series >series2.out 2>&1; then
	echo "a non-kernel-style subject was accepted"
	exit 1
fi
grep -q "is not a kernel-style subject" series2.out
echo "series self-test: ok"
