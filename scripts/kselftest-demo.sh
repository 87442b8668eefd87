#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kselftest-demo.sh: builds a handful of kselftest collections from Debian's linux-source
# package (scripts/kselftest-build.sh) for x86_64 and arm64 and runs them under tapboot on
# Debian's kernels, with config-fragment checks against each kernel's config.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/build}
TAPBOOT=${TAPBOOT:-$OUT/tapboot}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot
status=0
for arch in x86_64 arm64; do
	kernel=$("$top/scripts/fetch-kernel.sh" "$arch")
	tree=$("$top/scripts/kselftest-build.sh" "$arch")
	src=$cache/kselftest/src/linux-source-6.1/tools/testing/selftests
	echo
	echo "== kselftest on $arch: $tree"
	"$TAPBOOT" run --kernel "$kernel" --kselftest "$tree" --kselftest-src "$src" \
		-o "$OUT/kselftest-demo-$arch" --force || status=$?
done
exit $status
