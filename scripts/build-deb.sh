#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# build-deb.sh: builds the Debian package (dpkg-buildpackage -us -uc -b) from a copy of this
# tree in a temporary directory, checks it with lintian (no errors allowed), and leaves
# tapboot_VERSION_ARCH.deb in $OUT/deb/, printing its path. `make deb` runs it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
debdir=${OUT:-$top/build}/deb
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "build-deb: '$tool' is missing: apt-get install dpkg-dev debhelper lintian (or make deps)" >&2; exit 2; }
done
version=$(cat "$top/VERSION")
clv=$(sed -n '1s/^tapboot (\([^)]*\)).*/\1/p' "$top/debian/changelog")
[ "$version" = "$clv" ] ||
	{ echo "build-deb: VERSION says $version but debian/changelog says $clv: add a changelog entry" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tapboot-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The files git knows (committed or not), never the build directory.
mkdir "$work/tapboot-$version"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | grep -zv '^build/' |
	xargs -0 tar cf - --no-recursion) | tar xf - -C "$work/tapboot-$version"
# Run from make (make deb), the variables given to that make (O=..., exported to the environment
# and in MAKEFLAGS) would reach the package's own make and build into this tree: the copy builds alone.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES O V OUT PREFIX DESTDIR BINDIR LIBEXECDIR DATADIR MANDIR INIT_ARCHES
(cd "$work/tapboot-$version" && dpkg-buildpackage -us -uc -b -j2 >"$work/build.log" 2>&1) || {
	tail -40 "$work/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log above)" >&2
	exit 1
}
deb=$(ls "$work"/tapboot_"$version"_*.deb)
# lintian: errors fail the build; warnings are shown
lintian --fail-on error --suppress-tags no-manual-page "$deb" >"$work/lintian.log" 2>&1 || {
	cat "$work/lintian.log" >&2
	echo "build-deb: lintian found errors in $deb" >&2
	exit 1
}
[ ! -s "$work/lintian.log" ] || sed 's/^/build-deb: lintian: /' "$work/lintian.log" >&2
mkdir -p "$debdir"
cp "$deb" "$debdir/"
echo "$debdir/$(basename "$deb")"
