#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages tapboot builds, tests and benchmarks with; prints what it installs.
# Usage: scripts/install-deps.sh [build|demo|check|pages|all]   (default: check)
set -eu

need_build="gcc make pkg-config libarchive-dev libelf-dev nettle-dev zlib1g-dev liblzma-dev libsqlite3-dev"
# pages: headless Chromium renders results.html, gate.html and the history page in tests/boot/75-gate.sh
# (large: its own group, installed by that test, and by check and all)
need_pages="chromium"
need_run="qemu-system-x86 qemu-system-arm kmod cpio libarchive-tools busybox-static xz-utils zstd lz4 gzip"
need_cross="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
need_more_cross="gcc-i686-linux-gnu libc6-dev-i386-cross gcc-arm-linux-gnueabihf libc6-dev-armhf-cross gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross gcc-riscv64-linux-gnu libc6-dev-riscv64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-system-ppc qemu-system-misc opensbi"
need_check="libxml2-utils python3 clang jq python3-jsonschema dpkg-dev debhelper lintian mandoc bc flex bison linux-source-6.1"  # python3-jsonschema: kcidb.json checks; dpkg-dev..mandoc: the .deb and man pages (70-install); bc..linux-source-6.1: scripts/build-test-kernel.sh

what=${1:-check}
case $what in
build) pkgs="$need_build" ;;
demo) pkgs="$need_build $need_run $need_cross rsync" ;;  # rsync: headers_install (kselftest-build.sh)
check) pkgs="$need_build $need_run $need_cross $need_more_cross $need_check $need_pages rsync" ;;
pages) pkgs="$need_pages" ;;
all) pkgs="$need_build $need_run $need_cross $need_more_cross $need_check $need_pages rsync bc flex bison libssl-dev linux-source-6.1" ;;
*) echo "usage: $0 [build|demo|check|pages|all]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "tapboot: installing Debian packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
