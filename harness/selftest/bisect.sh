#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Manual self-test of "kp bisect" (it builds kernels, so it is not part of
# "kp test"): patch 2 of a scratch series breaks the build and patch 3
# mends it, so the final tree builds, yet bisect must fail and name patch 2.
# Run it with no other harness command working on this checkout: bisect
# borrows the project tree and recomposes it at the end.
. "$(dirname "$0")/scratch.sh"
mkdir -p kernel
cp "$base/kernel/kprobes.c" kernel/
echo "/* first */" >>kernel/kprobes.c
git add kernel && git commit -qm "kprobes: a harmless change"
echo "#error bisect self-test: this patch does not build" >>kernel/kprobes.c
git commit -qam "kprobes: a change that does not build"
sed -i '/^#error bisect self-test/d' kernel/kprobes.c
git commit -qam "kprobes: mend the build"
if harness/kp bisect >bisect.out 2>&1; then
	cat bisect.out
	echo "bisect passed a series whose second patch does not build"
	exit 1
fi
grep -q '\[2/3\] x86_64: kprobes: a change that does not build failed' bisect.out ||
	{ cat bisect.out; echo "bisect did not name patch 2"; exit 1; }
grep -q '\[1/3\] x86_64: kprobes: a harmless change done' bisect.out
grep -q '\[3/3\] x86_64: kprobes: mend the build done' bisect.out
grep -q '1 build(s) failed along the series' bisect.out
echo "bisect self-test: ok"
