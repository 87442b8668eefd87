#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 55-kernel-config.sh: the kernel's config checked before booting, and kernels a user builds.
# - The minimal kernels scripts/build-test-kernel.sh builds from Debian's linux-source-6.1
#   (tinyconfig + fragment, x86_64 and arm64, cross-compiled) are built once per machine: a second
#   call reuses the cache; each boots through `--kernel O=DIR` (architecture from its .config,
#   image from arch/*/boot).
# - A kernel whose config lacks devtmpfs or its console driver is refused before anything boots
#   (exit 2), the options named with the fragment to add: the build directory's .config with the
#   option taken out (the check reads the config; the kernel itself need not be rebuilt), and a
#   Debian kernel with --config.
# - A kernel that dies before the init gets its last lines and the likely missing option.
. "$(dirname "$0")/lib.sh"

for arch in x86_64 arm64; do
	g=$GUEST/$arch
	[ -x "$g/static/pass" ] || bail "guest tests for $arch are not built: make INIT_ARCHES=$arch"
	kdir=$("$TOP/scripts/build-test-kernel.sh" "$arch" 2>"$WORK/build-$arch") ||
		bail "cannot build the minimal $arch kernel: scripts/build-test-kernel.sh $arch ($(tail -3 "$WORK/build-$arch"))"
	# built once: a second call prints the same directory and builds nothing
	again=$("$TOP/scripts/build-test-kernel.sh" "$arch" 2>"$WORK/build2-$arch")
	is "$again" "$kdir" "$arch minimal kernel: a second build-test-kernel.sh gives the cached build"
	is "$(cat "$WORK/build2-$arch")" "" "$arch minimal kernel: ... without building anything"

	d=$WORK/min-$arch
	"$TAPBOOT" run --kernel "O=$kdir" -o "$d" -q --timeout 20 "$g/static/pass" "$g/static/fail" \
		"$g/scripts/hello.sh" >/dev/null 2>"$WORK/err-min-$arch"
	is "$?" 1 "$arch minimal kernel: exit 1 (one test fails)"
	is "$(jq -r .arch "$d/results.json")" "$arch" "$arch minimal kernel: arch from O=DIR's .config"
	is "$(jq -c '[.tests[] | [.name, .result]]' "$d/results.json")" \
		'[["pass","pass"],["fail","fail"],["hello.sh","pass"]]' "$arch minimal kernel: verdicts"
	like "$(jq -r .kernel "$d/results.json")" "^$kdir/arch/(x86|arm64)/boot/(bzImage|Image)$" \
		"$arch minimal kernel: the image from arch/*/boot"

	# The same build directory with devtmpfs, then the console driver, turned off in .config.
	case $arch in
	x86_64) img=arch/x86/boot/bzImage console=CONFIG_SERIAL_8250_CONSOLE ;;
	arm64) img=arch/arm64/boot/Image console=CONFIG_SERIAL_AMBA_PL011_CONSOLE ;;
	esac
	for opt in CONFIG_DEVTMPFS "$console"; do
		o=$WORK/O-$arch-$opt
		mkdir -p "$o/${img%/*}"
		ln -s "$kdir/$img" "$o/$img"
		sed "s/^$opt=y\$/# $opt is not set/" "$kdir/.config" >"$o/.config"
		"$TAPBOOT" run --kernel "O=$o" -o "$WORK/refused-$arch-$opt" "$g/static/pass" \
			>/dev/null 2>"$WORK/err-refused-$arch-$opt"
		is "$?" 2 "$arch minimal kernel without $opt: refused before booting (exit 2)"
		is "$(head -1 "$WORK/err-refused-$arch-$opt")" \
			"tapboot: kernel config '$o/.config' lacks an option tapboot needs:" \
			"$arch minimal kernel without $opt: the config named"
		is "$(sed -n '2s/:.*//p' "$WORK/err-refused-$arch-$opt")" "  $opt is not set" \
			"$arch minimal kernel without $opt: the option named"
		is "$(tail -1 "$WORK/err-refused-$arch-$opt")" "$opt=y" \
			"$arch minimal kernel without $opt: the fragment to add"
		ok "$(test ! -e "$WORK/refused-$arch-$opt"; echo $?)" \
			"$arch minimal kernel without $opt: nothing written, nothing booted"
	done
done

# A Debian kernel with --config naming a config without what a shell test and --compress need.
k=$(kernel x86_64)
cfg=$(dirname "$k")/config-${k##*/vmlinuz-}
grep -v '^CONFIG_BINFMT_SCRIPT=\|^CONFIG_RD_ZSTD=' "$cfg" >"$WORK/config-less"
"$TAPBOOT" run --kernel "$k" --config "$WORK/config-less" --compress zstd -o "$WORK/less" \
	"$GUEST/x86_64/scripts/hello.sh" >/dev/null 2>"$WORK/err-less"
is "$?" 2 "--config without BINFMT_SCRIPT and RD_ZSTD: exit 2"
is "$(sed -n '2,3p' "$WORK/err-less")" \
	"  CONFIG_BINFMT_SCRIPT is absent: a test is a #! script
  CONFIG_RD_ZSTD is absent: the initramfs is zstd-compressed (--compress)" \
	"--config: each missing option with why the run needs it"
is "$(tail -2 "$WORK/err-less")" $'CONFIG_BINFMT_SCRIPT=y\nCONFIG_RD_ZSTD=y' "--config: the fragment"

# A kernel that dies before the init (here: told to run an init that is not there), with no
# config beside it: a note that nothing was checked, its last lines up to the panic, the likely
# options.
cp "$(kernel arm64)" "$WORK/Image"
"$TAPBOOT" run --kernel "$WORK/Image" -o "$WORK/noinit" --append rdinit=/nonexistent \
	"$GUEST/arm64/static/pass" >/dev/null 2>"$WORK/err-noinit"
is "$?" 3 "a kernel dead before the init: exit 3"
like "$(cat "$WORK/err-noinit")" "tapboot: note: no kernel config .*: the kernel's options are not checked" \
	"no config: the check is skipped with a note"
ok "$(grep -qx "tapboot: the kernel stopped before tapboot's init; its last lines:" "$WORK/err-noinit"; echo $?)" \
	"a kernel dead before the init: said so"
like "$(tail -2 "$WORK/err-noinit" | head -1)" '^tapboot:   \[ *[0-9.]+\] Kernel panic - not syncing: VFS: Unable to mount root fs' \
	"a kernel dead before the init: its last lines end at the panic's reason"
is "$(tail -1 "$WORK/err-noinit")" "tapboot: likely missing: CONFIG_BLK_DEV_INITRD (no kernel config to check: --config FILE)" \
	"a kernel dead before the init: the likely option"
done_testing
