#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# minimal-boot.sh ARCH minimal|naive|zimage|onecpu [RELEASE]: the boot baselines for bench/run.sh,
# hand-written QEMU command lines booting Debian's kernel (from RELEASE, as
# scripts/fetch-kernel.sh takes it) with one trivial TAP line and powering off.
#   minimal: the best settings known here (README "How a run goes", measured by bench/run.sh): x86_64 q35 with qboot and the PVH vmlinux
#            (tapboot's cached extraction, or scripts/extract-vmlinux from linux-source), arm64
#            -cpu cortex-a57; s390x s390-ccw-virtio with the image as Debian ships it; riscv64
#            virt with Debian's OpenSBI; bench/minimal-init.c as /init in a GNU cpio archive.
#   naive:   x86_64 -M pc with the bzImage, arm64 -cpu max; a busybox sh script as /init.
#   onecpu:  issue 18's cold-boot peer, one vCPU: arm64 the line a user would type,
#            `qemu-system-aarch64 -M virt -cpu cortex-a57 -kernel Image -initrd init.cpio -append
#            console=ttyAMA0` (QEMU's defaults: TCG, one vCPU, 128 MiB; plus -nographic for the
#            console on stdout); x86_64 the minimal line above with -smp 1.
#   zimage:  arm (armv7) only: the zImage as Debian ships it on virt with -cpu cortex-a15 (the
#            way kunit_tool's qemu_configs/arm.py boots), bench/minimal-init.c as /init.
# The image is built once into $OUT/bench/boot/ (not timed by the caller's measurement when it
# ran a warm-up); the QEMU run is checked for the TAP line (exit 1 without it).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$TOP/build}
arch=${1:?usage: minimal-boot.sh ARCH minimal|naive [RELEASE]}
mode=${2:?usage: minimal-boot.sh ARCH minimal|naive [RELEASE]}
release=${3:-}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot
kernel=$("$TOP/scripts/fetch-kernel.sh" "$arch" $release)
dir=$OUT/bench/boot/$arch-$mode${release:+-$release}
cpio=$dir/initramfs.cpio

build_image() {
	local root=$dir/root cross=
	rm -rf "$dir"
	mkdir -p "$root/dev" "$root/bin"
	if [ "$arch" != "$(uname -m)" ]; then
		cross=$(sed -n 's/^cross_compile[[:space:]]*=[[:space:]]*//p' "$TOP/configs/$arch.conf")
	fi
	if [ "$mode" = minimal ] || [ "$mode" = zimage ] || [ "$mode" = onecpu ]; then
		"${cross}gcc" -static -O2 -o "$root/init" "$TOP/bench/minimal-init.c"
	else
		local bb=/bin/busybox
		[ "$arch" = "$(uname -m)" ] || bb=$("$TOP/scripts/fetch-busybox.sh" "$arch")
		cp "$bb" "$root/bin/busybox"
		cat >"$root/init" <<'SH'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec >/dev/console 2>&1
echo "TAP version 13"
echo "1..1"
echo "ok 1 trivial"
/bin/busybox poweroff -f
SH
		chmod 755 "$root/init"
	fi
	(cd "$root" && find . | cpio -o -H newc --quiet >"$cpio.tmp")
	mv "$cpio.tmp" "$cpio"
}

# The PVH entry of the x86_64 kernel: an uncompressed vmlinux.
pvh_vmlinux() {
	local sum v src
	sum=$(sha256sum "$kernel" | cut -d' ' -f1)
	v=$cache/vmlinux/$sum
	if [ ! -s "$v" ]; then
		v=$OUT/bench/boot/vmlinux-$sum
		if [ ! -s "$v" ]; then
			src=$cache/kselftest/src/linux-source-6.1/scripts/extract-vmlinux
			[ -x "$src" ] || {
				echo "minimal-boot: no vmlinux for $kernel: run tapboot once or scripts/kselftest-build.sh" >&2
				exit 2
			}
			"$src" "$kernel" >"$v.tmp" && mv "$v.tmp" "$v"
		fi
	fi
	echo "$v"
}

[ -s "$cpio" ] || build_image
smp=2
[ "$mode" = onecpu ] && smp=1
common=(-accel tcg,thread=multi -m 512 -smp $smp -no-reboot -display none -monitor none
	-serial stdio -initrd "$cpio")
case $arch-$mode in
x86_64-minimal | x86_64-onecpu)
	cmd=(qemu-system-x86_64 -M q35 -cpu qemu64 -bios qboot.rom "${common[@]}" -kernel "$(pvh_vmlinux)"
		-append "console=ttyS0 panic=-1 quiet rdinit=/init mitigations=off no_timer_check tsc=reliable 8250.nr_uarts=1")
	;;
arm64-onecpu)
	cmd=(qemu-system-aarch64 -M virt -cpu cortex-a57 -nographic -kernel "$kernel" -initrd "$cpio"
		-append console=ttyAMA0) ;;
x86_64-naive)
	cmd=(qemu-system-x86_64 -M pc "${common[@]}" -kernel "$kernel"
		-append "console=ttyS0 panic=-1 quiet rdinit=/init") ;;
arm64-minimal)
	cmd=(qemu-system-aarch64 -M virt,gic-version=3 -cpu cortex-a57 "${common[@]}"
		-kernel "$kernel" -append "console=ttyAMA0 panic=-1 quiet rdinit=/init") ;;
arm64-naive)
	cmd=(qemu-system-aarch64 -M virt -cpu max "${common[@]}" -kernel "$kernel"
		-append "console=ttyAMA0 panic=-1 quiet rdinit=/init") ;;
s390x-minimal)
	cmd=(qemu-system-s390x -M s390-ccw-virtio -cpu qemu "${common[@]}" -kernel "$kernel"
		-append "console=ttysclp0 panic=-1 quiet rdinit=/init") ;;
riscv64-minimal)
	cmd=(qemu-system-riscv64 -M virt -cpu rv64 -bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
		"${common[@]}" -kernel "$kernel" -append "console=ttyS0 panic=-1 quiet rdinit=/init") ;;
arm-zimage)
	cmd=(qemu-system-arm -M virt,highmem=off -cpu cortex-a15 "${common[@]}" -kernel "$kernel"
		-append "console=ttyAMA0 panic=-1 quiet rdinit=/init") ;;
*)
	echo "minimal-boot: unsupported '$arch $mode' (x86_64 or arm64: minimal, naive or onecpu; s390x, riscv64: minimal; arm: zimage)" >&2
	exit 2 ;;
esac
# MINIMAL_BOOT_PRINT=1: name the command line (for the bench's notes), do not run it
[ -n "${MINIMAL_BOOT_PRINT:-}" ] && { echo "${cmd[*]}"; exit 0; }
log=$dir/console.log
timeout 300 "${cmd[@]}" </dev/null >"$log" 2>&1 || true
grep -aq '^ok 1 trivial' "$log" || {
	echo "minimal-boot: $arch $mode: no TAP line in $log" >&2
	exit 1
}
