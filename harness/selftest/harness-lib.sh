# SPDX-License-Identifier: GPL-2.0
# Sourced by the self-tests that load the harness's libraries and stub what
# would build or boot: "here" (the checkout), "tmp" (a scratch directory,
# removed at exit), KP_WORK under it, and harness/lib/common.sh loaded.
# common.sh sets an EXIT trap of its own for its scratch files, which would
# replace one set before it: the trap is set after, and removes both.
# shellcheck shell=bash
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
export KP_WORK=$tmp/.build
# shellcheck source=../lib/common.sh
. "$here/harness/lib/common.sh"
trap 'rm -rf "$KP_TMP" "$tmp"' EXIT
