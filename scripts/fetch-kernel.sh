#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fetch-kernel.sh ARCH [RELEASE]: fetches Debian's packaged kernel for ARCH (configs/ARCH.conf)
# with apt-get download, unpacks it (image, config, modules) with dpkg -x into
# $XDG_CACHE_HOME/tapboot/kernels/ARCH/ (ARCH-RELEASE/ for another Debian release than the
# machine's), and prints the kernel image's path. Needs no root: a private apt state (no dpkg
# changes) where the machine's own apt lists do not serve (apt-state.sh).
set -eu
arch=${1:?usage: fetch-kernel.sh ARCH [RELEASE]}
release=${2:-}
. "$(dirname "$0")/apt-state.sh"
conf="$(conf_dir)/$arch.conf"
[ -f "$conf" ] || { echo "fetch-kernel: no such architecture '$arch' ($conf)" >&2; exit 2; }
# Without RELEASE, the config's debian_release (riscv64: trixie, since bookworm has no riscv64).
[ -n "$release" ] || release=$(sed -n "s/^debian_release[[:space:]]*=[[:space:]]*//p" "$conf")
# The releases whose kernels tapboot is tested with (make check boots both generations).
case $release in
'' | bookworm | trixie) ;;
*) echo "fetch-kernel: unknown Debian release '$release' (usage: fetch-kernel.sh ARCH [bookworm|trixie])" >&2; exit 2 ;;
esac
# The machine's own release needs no second cache.
host_release=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
[ "$release" != "$host_release" ] || release=
get() { sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" "$conf"; }
debarch=$(get debian_arch)
meta=$(get debian_kernel)
[ -n "$meta" ] || { echo "fetch-kernel: $conf has no debian_kernel: Debian ships no kernel for $arch; pass --kernel" >&2; exit 2; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/kernels/$arch${release:+-$release}
mkdir -p "$cache"
if [ -f "$cache/image" ] && [ -f "$(cat "$cache/image")" ]; then
	img=$(cat "$cache/image")
	root=$(dirname "$(dirname "$img")")
	for m in "$root"/lib/modules/*; do
		if [ -d "$m" ] && [ ! -f "$m/modules.dep" ] && command -v depmod >/dev/null 2>&1; then
			depmod -b "$root" "$(basename "$m")" || true
		fi
	done
	echo "$img"
	exit 0
fi
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
apt_state "$debarch" fetch-kernel "$release"
# The metapackage depends on the versioned image package; resolve it.
resolve() {
	# shellcheck disable=SC2086
	apt-cache $aptopts depends "$meta:$debarch" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^: ]*\).*/\1/p' | head -1
}
pkg=$(resolve)
if [ -z "$pkg" ]; then
	# shellcheck disable=SC2086
	apt-get $aptopts update -q >&2 || true
	pkg=$(resolve)
fi
[ -n "$pkg" ] || { echo "fetch-kernel: cannot resolve $meta for $debarch${release:+ in Debian $release (does $release ship it?)}" >&2; exit 1; }
pkg=${pkg%:*}
# shellcheck disable=SC2086
info=$(apt-cache $aptopts show --no-all-versions "$pkg:$debarch" 2>/dev/null || true)
ver=$(printf '%s\n' "$info" | sed -n 's/^Version: //p' | head -1)
size=$(printf '%s\n' "$info" | sed -n 's/^Size: //p' | head -1)
echo "fetch-kernel: downloading $pkg:$debarch ${ver:+$ver }(${release:-$host_release}${size:+, $((size / 1048576)) MiB}) from Debian's archive into $cache" >&2
# shellcheck disable=SC2086
(cd "$work" && apt-get $aptopts download -q "$pkg:$debarch" >&2)
deb=$(ls "$work"/*.deb)
dest="$cache/$pkg"
rm -rf "$dest"
dpkg -x "$deb" "$work/x"
mv "$work/x" "$dest"
img=$(ls "$dest"/boot/vmlinu[xz]-* 2>/dev/null | head -1)
[ -n "$img" ] || { echo "fetch-kernel: no kernel image in $deb" >&2; exit 1; }
# The package has no modules.dep (its postinst runs depmod); make it, so --modules can resolve
# a module's dependencies.
for m in "$dest"/lib/modules/*; do
	[ -d "$m" ] || continue
	if command -v depmod >/dev/null 2>&1 || [ -x /usr/sbin/depmod ]; then
		PATH=$PATH:/usr/sbin:/sbin depmod -b "$dest" "$(basename "$m")" ||
			echo "fetch-kernel: depmod failed for $m" >&2
	else
		echo "fetch-kernel: depmod not found (apt-get install kmod): no modules.dep in $m" >&2
	fi
done
cfg=$(ls "$dest"/boot/config-* 2>/dev/null | head -1 || true)
[ -n "$cfg" ] && ln -sf "$cfg" "$cache/config"
echo "$img" >"$cache/image.tmp" && mv "$cache/image.tmp" "$cache/image"
echo "$img"
