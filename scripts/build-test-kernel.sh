#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# build-test-kernel.sh ARCH [FRAGMENT...]: builds a small kernel from Debian's linux-source-6.1
# (tinyconfig + configs/test-kernel/common.config + ARCH.config + the FRAGMENTs), once per machine,
# cached in $XDG_CACHE_HOME/tapboot/test-kernels/HASH/ by the hash of source version and config
# fragments, and prints that build directory (tapboot run --kernel DIR takes it).
set -eu
usage() { echo "usage: build-test-kernel.sh ARCH [FRAGMENT...]  (ARCH: x86_64 or arm64)" >&2; exit 2; }
[ $# -ge 1 ] || usage
arch=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
frags="$top/configs/test-kernel/common.config"
case $arch in
x86_64) karch=x86_64 cross= target=bzImage image=arch/x86/boot/bzImage ;;
arm64) karch=arm64 cross=aarch64-linux-gnu- target=Image image=arch/arm64/boot/Image ;;
*) echo "build-test-kernel: unsupported architecture '$arch' (x86_64 or arm64)" >&2; exit 2 ;;
esac
frags="$frags $top/configs/test-kernel/$arch.config"
for f in "$@"; do
	[ -f "$f" ] || { echo "build-test-kernel: cannot open '$f': No such file or directory" >&2; exit 2; }
	frags="$frags $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
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
kmake() { make -s -C "$src" O="$work" ARCH="$karch" CROSS_COMPILE="$cross" "$@"; }
echo "build-test-kernel: building $arch kernel in $work (log: $work/build.log)" >&2
{
	# shellcheck disable=SC2086
	kmake tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$work" "$work/.config" $frags &&
		kmake olddefconfig
} >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; echo "build-test-kernel: configuration failed" >&2; exit 1; }

# merge_config.sh only warns when Kconfig drops an option (unmet dependency): fail instead, so the
# kernel has what the tests need.
missing=
for f in $frags; do
	for opt in $(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=y$/\1/p' "$f"); do
		grep -qx "$opt=y" "$work/.config" || missing="$missing $opt"
	done
done
if [ -n "$missing" ]; then
	echo "build-test-kernel: options dropped by Kconfig (unmet dependencies):$missing" >&2
	exit 1
fi
if ! kmake -j"$jobs" "$target" >>"$work/build.log" 2>&1; then
	tail -30 "$work/build.log" >&2
	echo "build-test-kernel: build failed (log above)" >&2
	exit 1
fi
rm -rf "$out"
mv "$work" "$out"
trap - EXIT
echo "$out"
