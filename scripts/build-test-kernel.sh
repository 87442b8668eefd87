#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# build-test-kernel.sh ARCH [FRAGMENT...]: builds a small kernel from Debian's linux-source-6.1
# (tinyconfig + what tapboot needs on ARCH, configs/kernel/ARCH.config, + the crash-on-demand
# configs/test-kernel/common.config + the FRAGMENTs), once per machine, cached in
# $XDG_CACHE_HOME/tapboot/test-kernels/HASH/ by the hash of source version and config fragments,
# and prints that build directory (tapboot run --kernel DIR takes it). The configuring and the
# build are `tapboot kernel config` and `tapboot kernel build`'s; this adds the shared source
# tree, the cache and the lock.
set -eu
usage() { echo "usage: build-test-kernel.sh ARCH [FRAGMENT...]  (ARCH: x86_64 or arm64)" >&2; exit 2; }
[ $# -ge 1 ] || usage
arch=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
tapboot=${TAPBOOT:-${OUT:-$top/build}/tapboot}
[ -x "$tapboot" ] || { echo "build-test-kernel: no tapboot binary at '$tapboot' (make tools)" >&2; exit 2; }
case $arch in
x86_64) cross= image=arch/x86/boot/bzImage ;;
arm64) cross=aarch64-linux-gnu- image=arch/arm64/boot/Image ;;
*) echo "build-test-kernel: unsupported architecture '$arch' (x86_64 or arm64)" >&2; exit 2 ;;
esac
# The key's fragments: the crash-on-demand one, then the architecture's (their names and bytes:
# the same key as when this script merged them itself, since the result is the same .config)
frags="$top/configs/test-kernel/common.config $top/configs/kernel/$arch.config"
user=
for f in "$@"; do
	[ -f "$f" ] || { echo "build-test-kernel: cannot open '$f': No such file or directory" >&2; exit 2; }
	f="$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
	frags="$frags $f"
	user="$user $f"
done
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[ -f "$tarball" ] || { echo "build-test-kernel: cannot open '$tarball': No such file or directory (apt-get install linux-source-6.1; scripts/install-deps.sh does)" >&2; exit 2; }
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || true)
[ -n "$srcver" ] || srcver=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ -n "$cross" ] && ! command -v "${cross}gcc" >/dev/null 2>&1; then
	echo "build-test-kernel: ${cross}gcc not found (apt-get install gcc-aarch64-linux-gnu)" >&2
	exit 2
fi

# The key covers everything that changes the result: source, compiler, fragments and this recipe.
hash=$({
	echo "recipe 1 $arch $srcver"
	"${cross}gcc" --version | head -1
	for f in $frags; do echo "== $(basename "$f")"; cat "$f"; done
} | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/test-kernels
out="$cache/$arch-$hash"
mkdir -p "$cache"
if [ -f "$out/$image" ]; then
	echo "$out"
	exit 0
fi

# One build at a time per machine (make check and a user may start it together).
exec 9>"$cache/.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
if [ -f "$out/$image" ]; then
	echo "$out"
	exit 0
fi

# The source is unpacked once per source version and shared by every build (O= keeps it clean).
src="$cache/src-$srcver"
if [ ! -f "$src/Makefile" ]; then
	echo "build-test-kernel: unpacking $tarball into $src" >&2
	tmp=$(mktemp -d "$cache/src.XXXXXX")
	# Documentation/ is a third of the tree and unused, but Kconfig sources its Kconfig file.
	if ! tar -C "$tmp" -xJf "$tarball" --exclude='*/Documentation/*' ||
		! tar -C "$tmp" -xJf "$tarball" --wildcards '*/Documentation/Kconfig'; then
		rm -rf "$tmp"
		echo "build-test-kernel: cannot unpack '$tarball'" >&2
		exit 1
	fi
	rm -rf "$src"
	mv "$tmp"/linux-source-* "$src"
	rm -rf "$tmp"
fi

work=$(mktemp -d "$cache/$arch-$hash.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
echo "build-test-kernel: building $arch kernel in $work (log: $work/build.log)" >&2
# --minimal: no tests image device (PCI) beyond what the fragments ask: these kernels are the
# minimal ones the tests boot (tests in the initramfs)
# shellcheck disable=SC2086
if ! "$tapboot" kernel config "$src" -O "$work" --arch "$arch" --minimal \
	"$top/configs/test-kernel/common.config" $user >/dev/null; then
	echo "build-test-kernel: configuration failed" >&2
	exit 1
fi
if ! "$tapboot" kernel build "$src" -O "$work" --arch "$arch" -j "$jobs" -q >/dev/null; then
	echo "build-test-kernel: build failed" >&2
	exit 1
fi
rm -rf "$out"
mv "$work" "$out"
trap - EXIT
echo "$out"
