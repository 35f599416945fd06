# SPDX-License-Identifier: GPL-2.0
# Sourced by the series and bisect self-tests: a scratch project in a
# temporary directory that carries this checkout's harness code (not its
# patches) and shares this checkout's base (KP_WORK).
# shellcheck shell=bash
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export KP_WORK=${KP_WORK:-$here/.build}
base=$KP_WORK/base
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q
# The composed trees that "kp series" keeps stay with the scratch project.
export KP_SERIES_TREES=$tmp/.git/kp-series-trees
git config user.name "Self Test"
git config user.email selftest@example.org
cp -r "$here/harness" .
# Only the harness code: the project's own patches would change the tree.
rm -rf harness/patches/*.patch harness/removed-files
git add harness && git commit -qm "harness: scratch copy"
