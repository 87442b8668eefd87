#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 70-install.sh: issue 16: make install into an empty DESTDIR, the tree moved to another
# prefix and run from there as a normal user with an empty cache and the source tree hidden
# (Debian's kernel fetched by --kernel debian:x86_64); make uninstall; the .deb built, installed,
# the example tests run with /usr/bin/tapboot on x86_64 and arm64 through --kernel
# debian:ARCH, the package purged with nothing left; the man pages lint clean; the small
# things (results once, "an arm64 guest", --help's stdout checked).
. "$(dirname "$0")/lib.sh"

need mandoc mandoc
# ---- man pages ----
lint=$(mandoc -T lint -W warning "$TOP"/docs/man/*.1 2>&1)
is "$?:$lint" "0:" "the man pages lint clean (mandoc -T lint -W warning)"
for p in tapboot tapboot-run tapboot-build tapboot-parse tapboot-compare tapboot-kernel; do
	[ -f "$TOP/docs/man/$p.1" ] || nopage="${nopage:-} $p"
done
is "${nopage:-}" "" "a page for tapboot and each of run, build, parse, compare, kernel"

need dpkg-buildpackage dpkg-dev
need lintian lintian
need unshare util-linux
need setpriv util-linux
[ "$(id -u)" = 0 ] || bail "70-install installs and purges the .deb and hides the source tree (unshare -m): run it as root"
host=$(uname -m | sed -e 's/aarch64/arm64/')
an() { case $1 in [aeiox]*) echo an ;; *) echo a ;; esac; }

# ---- the example tests, copied out of the tree ----
for arch in x86_64 arm64; do
	g=$GUEST/$arch
	[ -x "$g/static/pass" ] || bail "guest tests for $arch are not built ($g): make INIT_ARCHES=$arch"
	mkdir -p "$WORK/tests/$arch"
	cp "$g/static/pass" "$g/dynamic/xfail" "$g/scripts/hello.sh" "$g/static/skip" "$WORK/tests/$arch/"
done
# examples DIR ARCH WHAT: the example run's verdicts and exit status
examples() {
	is "$(jq -r '[.tests[] | "\(.name)=\(.result)"] | join(" ")' "$1/results.json" 2>&1)" \
		"pass=pass xfail=xfail hello.sh=pass skip=skip" "$3: the example tests' verdicts on $2"
	is "$(jq -r .arch "$1/results.json")" "$2" "$3: ran on $2"
}

# ---- make install into an empty directory, uninstall ----
dest=$WORK/dest
mkdir "$dest"
make -s -C "$TOP" O="$OUT" DESTDIR="$dest" install >"$WORK/install.log" 2>&1
is "$?" 0 "make install DESTDIR=... succeeds"
for f in bin/tapboot libexec/tapboot/init/x86_64/init libexec/tapboot/init/arm64/init \
	libexec/tapboot/fetch-kernel.sh libexec/tapboot/fetch-busybox.sh libexec/tapboot/apt-state.sh \
	share/tapboot/configs/arm64.conf share/tapboot/kselftest-disruptive.txt \
	share/man/man1/tapboot-run.1 share/bash-completion/completions/tapboot; do
	[ -f "$dest/usr/local/$f" ] || missing="${missing:-} $f"
done
is "${missing:-}" "" "make install writes the binary, inits, helpers, configs, list, man pages, completion under PREFIX"
is "$(cd "$dest" && find . -mindepth 1 -maxdepth 2 | sort | tr '\n' ' ')" "./usr ./usr/local " \
	"nothing outside DESTDIR/PREFIX"
cp -a "$dest" "$WORK/dest2"
make -s -C "$TOP" O="$OUT" DESTDIR="$WORK/dest2" uninstall >/dev/null 2>&1
is "$?:$(find "$WORK/dest2" -type f | wc -l)" "0:0" "make uninstall removes every file install wrote"

# ---- relocated: moved to another prefix, run as nobody, source tree hidden, empty cache ----
moved=$WORK/elsewhere/opt/tb
mkdir -p "${moved%/*}"
mv "$dest/usr/local" "$moved"
rmdir "$dest/usr" "$dest"
mkdir -p "$WORK/cwd" "$WORK/ucache"
chown nobody "$WORK/cwd" "$WORK/ucache"
chmod 755 "$WORK" "$WORK/tests" "$WORK/tests/x86_64" "$WORK/tests/arm64" "$WORK/elsewhere" "$WORK/elsewhere/opt"
hide=$(printf 'mount -t tmpfs none %q && ' "$TOP")
case $OUT in "$TOP"/*) ;; *) hide="$hide$(printf 'mount -t tmpfs none %q && ' "$OUT")" ;; esac
t=$WORK/tests/x86_64
# shellcheck disable=SC2016
unshare -m sh -c "$hide"'cd "$1" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
	env -u TAPBOOT_CONFIGS -u TAPBOOT_INIT_DIR -u TAPBOOT_SRCDIR HOME=/nonexistent \
	XDG_CACHE_HOME="$2" "$3/bin/tapboot" run --kernel debian:x86_64 -o "$1/out" --timeout 20 \
	"$4/pass" "$4/xfail" "$4/hello.sh" "$4/skip" >"$1/stdout" 2>"$1/stderr"; rc=$?
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -u TAPBOOT_CONFIGS -u TAPBOOT_INIT_DIR \
	-u TAPBOOT_SRCDIR HOME=/nonexistent XDG_CACHE_HOME="$2" "$3/bin/tapboot" build --arch arm64 \
	-o "$1/bb.cpio" "$6/hello.sh" >/dev/null 2>"$1/bb.err"; bbrc=$?
	echo "$rc $(test -e "$5/Makefile"; echo $?) $bbrc"' \
	sh "$WORK/cwd" "$WORK/ucache" "$moved" "$t" "$TOP" "$WORK/tests/arm64" >"$WORK/reloc.rc"
read -r rc visible bbrc <"$WORK/reloc.rc"
is "$rc:$visible" "0:1" "relocated tree as nobody, source tree hidden: run exits 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/cwd/stderr" | tail -20
examples "$WORK/cwd/out" x86_64 "relocated"
like "$(cat "$WORK/cwd/stderr")" "fetch-kernel: downloading linux-image-[^ ]*:amd64 .*MiB.* into $WORK/ucache/tapboot/kernels/x86_64" \
	"--kernel debian:x86_64 on an empty cache says what it downloads, into the user's cache"
is "$(stat -c %U "$WORK/ucache/tapboot/kernels/x86_64/image" 2>&1)" nobody "the kernel was fetched as the normal user"
is "$(grep -c 'known failure, tracked upstream' "$WORK/cwd/stdout"; grep -c 'known failure, tracked upstream' "$WORK/cwd/stderr")" "1
1" "stdout apart from stderr: the table on stdout, the live lines on stderr"
# the builder runs the installed fetch-busybox.sh: no busybox for arm64 here yet
is "$bbrc" 0 "relocated, as nobody: tapboot build of a script test for arm64 exits 0"
like "$(cat "$WORK/cwd/bb.err")" "fetch-busybox: downloading busybox-static:arm64" \
	"relocated, as nobody: a script test for arm64 fetches busybox with the installed helper"
is "$(bsdtar -tf "$WORK/cwd/bb.cpio" 2>&1 | grep -c '^bin/busybox$')" 1 "the image has the fetched busybox"
XDG_CACHE_HOME=$WORK/ucache "$moved/bin/tapboot" kernel list >"$WORK/list" 2>&1
like "$(cat "$WORK/list")" "^x86_64 +bookworm +[0-9][^ ]+-amd64 +$WORK/ucache/tapboot/kernels/x86_64/.*/boot/vmlinuz-" \
	"tapboot kernel list shows the fetched kernel"
# another Debian release into its own cache directory (the usual cache: fetched once per machine)
tk=$(cd "$WORK/cwd" && "$moved/bin/tapboot" kernel fetch x86_64 --release trixie 2>"$WORK/trixie.err")
is "$?" 0 "tapboot kernel fetch x86_64 --release trixie exits 0"
like "$tk" "/tapboot/kernels/x86_64-trixie/linux-image-[^/]+\+deb13-amd64/boot/vmlinuz-[^/]+$" \
	"trixie's kernel, in its own cache directory; the path on stdout"
tk_re=$(printf '%s' "$tk" | sed 's/[][\.*^$+?(){}|]/\\&/g')
like "$("$moved/bin/tapboot" kernel list 2>&1)" "x86_64 +trixie +[^ ]+deb13-amd64 +$tk_re" "kernel list names its release"
out=$("$moved/bin/tapboot" kernel fetch x86_64 --release 'bad name' 2>&1)
is "$?:$out" "2:tapboot: 'bad name' is no Debian release name (bookworm, trixie, ...)" "a bad release name: exit 2"
out=$("$moved/bin/tapboot" run --kernel debian:sparc "$WORK/tests/x86_64/pass" 2>&1)
like "$?:$out" "^2:tapboot: unknown architecture 'sparc' \(no $moved/bin/../share/tapboot/configs/sparc.conf; known: arm arm64 i386" \
	"--kernel debian:sparc: exit 2 naming the installed configs"
# the moved tree's own files are the ones used: an init it lacks is named at its new place
mv "$moved/libexec/tapboot/init/arm64" "$WORK/arm64-init"
out=$(cd "$WORK/cwd" && env -u TAPBOOT_INIT_DIR -u TAPBOOT_SRCDIR -u TAPBOOT_CONFIGS \
	"$moved/bin/tapboot" build --arch arm64 -o "$WORK/x.cpio" "$WORK/tests/arm64/pass" 2>&1)
is "$?" 2 "an installed tree without the arm64 init: exit 2"
like "$out" "no init for arm64 at '$moved/bin/../libexec/tapboot/init/arm64/init': this tapboot was installed without it.*tapboot package.*make INIT_ARCHES=arm64 install.*gcc-aarch64-linux-gnu" \
	"the message names the moved tree's path, the package and the make target"
[ ! -e "$WORK/x.cpio" ]
is "$?" 0 "nothing written"
mv "$WORK/arm64-init" "$moved/libexec/tapboot/init/arm64"
out=$(TAPBOOT_INIT_DIR=$WORK/empty "$TAPBOOT" build --arch arm64 -o "$WORK/x.cpio" "$WORK/tests/arm64/pass" 2>&1)
like "$?:$out" "^2:tapboot: no init for arm64 at '$WORK/empty/arm64/init': build it with 'make INIT_ARCHES=arm64' \(needs gcc-aarch64-linux-gnu" \
	"from the build tree, a missing init names the make target and the cross compiler package"

# ---- small things ----
out=$("$TAPBOOT" run --help 2>&1 >/dev/full)
is "$?:$out" "2:tapboot: cannot write to standard output" "run --help checks stdout at exit"

# ---- the Debian package ----
dpkg-query -W -f='${Status}' tapboot 2>/dev/null | grep -q 'ok installed' &&
	bail "the tapboot package is installed already: remove it before make check"
before=$(sha256sum "$TAPBOOT" "$OUT/init/x86_64/init")
deb=$(make -s -C "$TOP" O="$OUT" deb 2>"$WORK/deb.log")
is "$?" 0 "make deb: dpkg-buildpackage -us -uc -b and lintian without errors"
is "$(sha256sum "$TAPBOOT" "$OUT/init/x86_64/init")" "$before" "make deb builds in its copy, never in this build directory"
[ -f "$deb" ] || { sed 's/^/#   /' "$WORK/deb.log" | tail -20; bail "no .deb built"; }
like "$(basename "$deb")" "^tapboot_[0-9.]+_(amd64|arm64)\.deb$" "the package is tapboot_VERSION_ARCH.deb"
like "$(dpkg-deb -f "$deb" Depends)" "qemu-system-(x86|arm)" "Depends names this architecture's QEMU"
like "$(dpkg-deb -f "$deb" Suggests)" "gcc-aarch64-linux-gnu" "Suggests the cross compilers"
apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "$deb" >"$WORK/apt.log" 2>&1
is "$?" 0 "the .deb installs"
dpkg -L tapboot >"$WORK/files" 2>&1
for arch in x86_64 arm64; do
	d=$WORK/deb-$arch
	(cd "$WORK/cwd" && env -u TAPBOOT_CONFIGS -u TAPBOOT_INIT_DIR -u TAPBOOT_SRCDIR \
		/usr/bin/tapboot run --kernel "debian:$arch" -o "$d" --timeout 20 \
		"$WORK/tests/$arch/pass" "$WORK/tests/$arch/xfail" "$WORK/tests/$arch/hello.sh" \
		"$WORK/tests/$arch/skip" >"$WORK/deb-out-$arch" 2>&1)
	is "$?" 0 "/usr/bin/tapboot run --kernel debian:$arch exits 0"
	examples "$d" "$arch" "/usr/bin/tapboot"
	# stdout and stderr are one file here: each result is shown once (live), then the totals
	is "$(grep -c 'known failure, tracked upstream' "$WORK/deb-out-$arch")" 1 \
		"$arch: stdout and stderr the same file: each result shown once"
	like "$(cat "$WORK/deb-out-$arch")" "4 tests: 2 pass, 0 fail, 1 skip, 1 xfail" "$arch: the totals are printed"
	[ "$arch" = "$host" ] ||
		like "$(cat "$WORK/deb-out-$arch")" "tcg \($(an "$arch") $arch guest on $(an "$host") $host host\)" \
			"$arch: '$(an "$arch") $arch guest on $(an "$host") $host host'"
done
like "$(man -w tapboot-kernel 2>&1)" "^/usr/share/man/man1/tapboot-kernel\.1\.gz$" "man tapboot-kernel finds the installed page"
apt-get purge -y -q -o DPkg::Lock::Timeout=600 tapboot >>"$WORK/apt.log" 2>&1
is "$?" 0 "the package is purged"
left=$(while read -r f; do [ "$f" = /. ] || [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done <"$WORK/files"
	for dir in /usr/libexec/tapboot /usr/share/tapboot /usr/share/doc/tapboot; do [ ! -e "$dir" ] || echo "$dir"; done)
is "$(wc -l <"$WORK/files"):$left" "$(wc -l <"$WORK/files"):" "nothing dpkg -L listed is left behind"
dpkg-query -W -f='${Status}' tapboot >"$WORK/status" 2>&1
like "$(cat "$WORK/status")" "not-installed|no packages found" "dpkg knows no tapboot any more"

done_testing
