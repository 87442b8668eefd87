#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# demo.sh: fetches Debian's x86_64 and arm64 kernels and boots the example tests on both
# (called by `make demo` after the build). Prints each run's summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/build}
TAPBOOT=${TAPBOOT:-$OUT/tapboot}
status=0
for arch in x86_64 arm64; do
	kernel=$("$top/scripts/fetch-kernel.sh" "$arch")
	g=$OUT/guest/$arch
	echo
	echo "== $arch: $kernel"
	# A static test, a dynamically linked one that fails as expected (its libraries are packed
	# automatically), a shell script (busybox is added for it) and a skip.
	"$TAPBOOT" run --kernel "$kernel" -o "$OUT/demo-$arch" --force --timeout 10 \
		"$g/static/pass" "$g/dynamic/xfail" "$g/scripts/hello.sh" "$g/static/skip" \
		|| status=$?
done
exit $status
