#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kselftest-build.sh ARCH [TARGETS...]: builds kselftest collections statically from Debian's
# linux-source-6.1 package (fetched with apt-get download, never committed) and prints the
# install tree's path (run_kselftest.sh, kselftest-list.txt, one directory per collection).
#
# Everything lives in $XDG_CACHE_HOME/tapboot/kselftest/: the .deb, the unpacked source (once),
# per-arch kernel headers and object trees (build/ARCH, the selftests' O=), and install trees
# (install/ARCH-HASH, HASH naming the target list). A finished install tree is reused as is.
#
# Host build times (2 cores, Debian 12, default targets): x86_64 15 s with the headers already
# installed (41 MB, 44 tests); arm64 46 s including headers_install (22 MB, 23 tests: proc does
# not build for arm64 in 6.1, proc-empty-vm.c is x86-only). Unpacking the source once: 12 s.
# From an empty cache (download 1 s, unpack, headers_install, build): x86_64 65 s. Rerunning
# with an existing install tree prints its path at once (0.04 s).
set -eu

# The default collections: they build statically with Debian's gcc (no libcap, libpopt or fuse
# needed), run in a minimal initramfs (futex's run.sh and static_keys' script with busybox sh),
# and finish quickly under TCG. Guest seconds per collection under run_kselftest.sh, x86_64,
# Debian 6.1.0-57, TCG, -smp 2: proc 13, syscall_user_dispatch 12 (sud_benchmark), futex 10,
# timens 2.5, the other ones under 1 each. Left out as slow: pidfd (150), ptrace (vmaccess
# 31), rtc (minutes). Left out as broken in such an initramfs: mount and sysctl (#!/bin/bash),
# mincore (fails under TCG), vDSO (two tests not static). Not buildable here: capabilities,
# clone3, exec, memfd, mqueue, openat2, prctl, safesetid (libcap, popt, fuse, static PIE).
# Config-fragment skips on Debian's kernel: sync (CONFIG_SW_SYNC unset) and static_keys
# (CONFIG_TEST_STATIC_KEYS=m, no modules in tapboot's image); syscall_user_dispatch on arm64
# (CONFIG_GENERIC_ENTRY is x86 and s390 only in 6.1).
DEFAULT_TARGETS="core futex ipc kcmp membarrier nsfs pid_namespace proc sigaltstack size static_keys sync syscall_user_dispatch timens tmpfs"

usage() {
	echo "usage: scripts/kselftest-build.sh ARCH [TARGETS...]   (ARCH: x86_64 or arm64)" >&2
	exit 2
}

[ $# -ge 1 ] || usage
arch=$1
shift
case $arch in
x86_64) karch=x86_64 ;;
arm64) karch=arm64 ;;
-h | --help) usage ;;
*) echo "kselftest-build: unsupported architecture '$arch' (x86_64 or arm64)" >&2; exit 2 ;;
esac
targets=${*:-$DEFAULT_TARGETS}
# One canonical spelling of the target list: sorted, one space apart.
targets=$(printf '%s\n' $targets | sort -u | tr '\n' ' ' | sed 's/ $//')

top=$(cd "$(dirname "$0")/.." && pwd)
host=$(uname -m)
if [ "$arch" = "$host" ] || { [ "$arch" = arm64 ] && [ "$host" = aarch64 ]; }; then
	cross=
else
	cross=$(sed -n 's/^cross_compile[[:space:]]*=[[:space:]]*//p' "$top/configs/$arch.conf")
fi
command -v "${cross}gcc" >/dev/null || {
	echo "kselftest-build: no compiler '${cross}gcc' (scripts/install-deps.sh demo installs it)" >&2
	exit 2
}
for tool in rsync make dpkg apt-get; do
	command -v $tool >/dev/null || {
		echo "kselftest-build: '$tool' is missing (apt-get install $tool)" >&2
		exit 2
	}
done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/kselftest
mkdir -p "$cache"
hash=$(printf '%s' "$targets" | md5sum | cut -c1-10)
install=$cache/install/$arch-$hash
if [ -f "$install/.tapboot-complete" ]; then
	echo "$install"
	exit 0
fi

log() { echo "kselftest-build: $*" >&2; }
now() { date +%s; }
t0=$(now)

# 1. The source package (architecture all), once.
deb=$(ls "$cache"/linux-source-6.1_*_all.deb 2>/dev/null | tail -1 || true)
if [ -z "$deb" ]; then
	log "apt-get download linux-source-6.1 into $cache"
	# As root, apt would drop to _apt, which cannot write the cache: say so instead of warning.
	sandbox=
	[ "$(id -u)" -ne 0 ] || sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	(cd "$cache" && apt-get download -q $sandbox linux-source-6.1 >&2)
	deb=$(ls "$cache"/linux-source-6.1_*_all.deb | tail -1)
fi

# 2. The source tree, unpacked once (a stamp marks a complete unpack).
src=$cache/src/linux-source-6.1
if [ ! -f "$cache/src/.complete" ]; then
	log "unpacking $(basename "$deb")"
	rm -rf "$cache/src" "$cache/deb"
	mkdir -p "$cache/src"
	dpkg -x "$deb" "$cache/deb"
	tar -xaf "$cache"/deb/usr/src/linux-source-6.1.tar.* -C "$cache/src"
	rm -rf "$cache/deb"
	touch "$cache/src/.complete"
fi

# 3. Kernel headers for ARCH, into the object tree the selftests build in (O=).
obj=$cache/build/$arch
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f "$obj/.headers-complete" ]; then
	log "make headers_install ARCH=$karch"
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" ARCH="$karch" headers_install >&2
	touch "$obj/.headers-complete"
fi

# 4. The collections, linked statically (the initramfs has no libc), into a fresh install tree.
log "building $arch: $targets"
mkdir -p "$cache/install"
tmp=$(mktemp -d "$cache/install/.$arch-$hash.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
blog=$cache/build-$arch-$hash.log
# KHDR_INCLUDES points at the headers from step 3 (selftests derive it from O= too; explicit
# so an older make -C invocation cannot fall back to the host's /usr/include).
if ! make -C "$src/tools/testing/selftests" -j"$jobs" O="$obj" ARCH="$karch" \
	CROSS_COMPILE="$cross" TARGETS="$targets" LDFLAGS=-static \
	KHDR_INCLUDES="-isystem $obj/usr/include" INSTALL_PATH="$tmp" install >"$blog" 2>&1; then
	tail -20 "$blog" >&2
	log "build failed; full log in $blog"
	exit 1
fi
# The selftests Makefile succeeds when at least one target built: name the ones that did not.
for t in $targets; do
	grep -q "^$t:" "$tmp/kselftest-list.txt" 2>/dev/null ||
		log "warning: collection '$t' has no tests in kselftest-list.txt (did it build? see $blog)"
done
echo "$targets" >"$tmp/.tapboot-targets"
touch "$tmp/.tapboot-complete"
rm -rf "$install"
mv "$tmp" "$install"
trap - EXIT
log "built $(wc -l <"$install/kselftest-list.txt") tests in $(($(now) - t0)) s"
echo "$install"
