#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fetch-busybox.sh ARCH: fetches Debian's busybox-static for ARCH (configs/ARCH.conf debian_arch)
# with apt-get download, unpacks it with dpkg -x into $XDG_CACHE_HOME/tapboot/busybox/ARCH/, and
# prints the path of its static busybox. A foreign architecture gets a private apt state (no
# dpkg changes), as in fetch-kernel.sh. tapboot run and build run this (run/image.c) when no
# busybox for the target is at hand (the host's /bin/busybox serves the host's own architecture).
set -eu
arch=${1:?usage: fetch-busybox.sh ARCH}
. "$(dirname "$0")/apt-state.sh"
conf="$(conf_dir)/$arch.conf"
[ -f "$conf" ] || { echo "fetch-busybox: no such architecture '$arch' ($conf)" >&2; exit 2; }
debarch=$(sed -n "s/^debian_arch[[:space:]]*=[[:space:]]*//p" "$conf")
[ -n "$debarch" ] || { echo "fetch-busybox: $conf has no debian_arch" >&2; exit 2; }
# The release the architecture's kernel comes from: bookworm has no riscv64 packages at all.
release=$(sed -n "s/^debian_release[[:space:]]*=[[:space:]]*//p" "$conf")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/busybox/$arch
bb="$cache/bin/busybox"
if [ -x "$bb" ]; then
	echo "$bb"
	exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
apt_state "$debarch" fetch-busybox ${release:+"$release"}
echo "fetch-busybox: downloading busybox-static:$debarch" >&2
# shellcheck disable=SC2086
if ! (cd "$work" && apt-get $aptopts download -q "busybox-static:$debarch" >&2); then
	# shellcheck disable=SC2086
	apt-get $aptopts update -q >&2 || true
	# shellcheck disable=SC2086
	(cd "$work" && apt-get $aptopts download -q "busybox-static:$debarch" >&2)
fi
deb=$(ls "$work"/*.deb)
dpkg -x "$deb" "$work/x"
# bin/busybox up to Debian 12; /usr/bin/busybox in later builds (the merged /usr)
src=
for c in "$work/x/bin/busybox" "$work/x/usr/bin/busybox"; do
	[ -x "$c" ] && [ ! -L "$c" ] && { src=$c; break; }
done
[ -n "$src" ] || { echo "fetch-busybox: no bin/busybox or usr/bin/busybox in $deb" >&2; exit 1; }
mkdir -p "$cache/bin"
mv "$src" "$bb.tmp"
mv "$bb.tmp" "$bb"
echo "$bb"
