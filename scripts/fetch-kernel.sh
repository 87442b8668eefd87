#!/bin/sh
# fetch-kernel.sh ARCH [RELEASE]: fetches Debian's packaged kernel for ARCH (configs/ARCH.conf)
# from Debian RELEASE (bookworm: 6.1, trixie: 6.12; default the config's debian_release, else
# bookworm) with apt-get download, unpacks it with dpkg -x into
# $XDG_CACHE_HOME/tapboot/kernels/ARCH/ (ARCH-RELEASE/ for a release other than bookworm), and
# prints the kernel image's path. A foreign architecture or release gets a private apt state (no
# dpkg or apt changes on the machine).
set -eu
usage="usage: fetch-kernel.sh ARCH [bookworm|trixie]"
arch=${1:?$usage}
[ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
conf="$top/configs/$arch.conf"
[ -f "$conf" ] || { echo "fetch-kernel: no such architecture '$arch' ($conf)" >&2; exit 2; }
get() { sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" "$conf"; }
debarch=$(get debian_arch)
meta=$(get debian_kernel)
release=${2:-$(get debian_release)}
release=${release:-bookworm}
case $release in
bookworm | trixie) ;;
*) echo "fetch-kernel: unknown Debian release '$release' ($usage)" >&2; exit 2 ;;
esac
[ -n "$meta" ] || { echo "fetch-kernel: $conf has no debian_kernel: Debian ships no kernel for $arch; pass --kernel" >&2; exit 2; }
if [ "$release" = bookworm ]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/kernels/$arch
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/kernels/$arch-$release
fi
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
. "$(dirname "$0")/apt-state.sh"
apt_state "$debarch" fetch-kernel "$release"
# The metapackage depends on the versioned image package; resolve it.
# shellcheck disable=SC2086
pkg=$(apt-cache $aptopts depends "$meta:$debarch" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^: ]*\).*/\1/p' | head -1)
if [ -z "$pkg" ]; then
	# shellcheck disable=SC2086
	apt-get $aptopts update -q >&2 || true
	# shellcheck disable=SC2086
	pkg=$(apt-cache $aptopts depends "$meta:$debarch" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^: ]*\).*/\1/p' | head -1)
fi
[ -n "$pkg" ] || { echo "fetch-kernel: cannot resolve $meta for $debarch in Debian $release (does $release ship it?)" >&2; exit 1; }
pkg=${pkg%:*}
echo "fetch-kernel: downloading $pkg:$debarch" >&2
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
