#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 50-arches.sh: real boots on every other architecture Debian ships a kernel and a cross compiler
# for (i386, arm, ppc64le, s390x from Debian 12; riscv64 from Debian 13 under Debian's OpenSBI;
# x86_64 and arm64 boot in the other tests): static, dynamic and shell-script tests, the
# architecture read from each kernel image.
. "$(dirname "$0")/lib.sh"

for arch in i386 arm ppc64le s390x riscv64; do
	k=$(kernel "$arch")
	g=$GUEST/$arch
	[ -x "$g/static/pass" ] || bail "guest tests for $arch are not built: make INIT_ARCHES=$arch (needs its cross compiler)"
	d=$WORK/$arch
	"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 10 "$g/static/pass" "$g/static/fail" \
		"$g/static/skip" "$g/dynamic/xfail" "$g/scripts/hello.sh" >/dev/null 2>"$WORK/err-$arch"
	is "$?" 1 "$arch: exit 1 (one test fails)"
	is "$(jq -r .arch "$d/results.json")" "$arch" "$arch: arch from the kernel image"
	is "$(jq -c '[.tests[] | [.name, .result]]' "$d/results.json")" \
		'[["pass","pass"],["fail","fail"],["skip","skip"],["xfail","xfail"],["hello.sh","pass"]]' \
		"$arch: static, dynamic and script verdicts"
	is "$(jq -r .complete "$d/results.json")" true "$arch: complete"
done

# s390x: Debian 12's 6.1; riscv64: Debian 13's 6.12 started by Debian's OpenSBI (package opensbi)
like "$(jq -r .kernel_release "$WORK/s390x/results.json")" '^6\.1\.0-[0-9]+-s390x$' "s390x: Debian 12's kernel"
like "$(jq -r .kernel_release "$WORK/riscv64/results.json")" '^6\.12\.[0-9]+\+deb13-riscv64$' "riscv64: Debian 13's kernel"
like "$(grep '^exec' "$WORK/riscv64/reproduce.sh")" ' -bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic\.bin ' \
	"riscv64: Debian's OpenSBI is the firmware"

# arm: the zImage's Image is unpacked on the host (a uImage in the cache, loaded at RAM +
# TEXT_OFFSET: 0x40208000 for Debian's armmp kernel on virt) and booted above; --boot-as-is
# boots the zImage itself, its own decompressor running in the guest.
boot=$(sed -n 's/^# boot image //p' "$WORK/arm/reproduce.sh")
like "$boot" '/vmlinux/[0-9a-f]{64}-uimage-40000000$' "arm: boots the Image unpacked from the zImage"
is "$(od -A n -t x1 -j 16 -N 4 "$boot" | tr -d ' ')" 40208000 "arm: the uImage loads at RAM + TEXT_OFFSET"
k=$(kernel arm)
"$TAPBOOT" run --kernel "$k" --boot-as-is -o "$WORK/arm-as-is" -q --timeout 10 \
	"$GUEST/arm/static/pass" >/dev/null 2>"$WORK/err-arm-as-is"
is "$?" 0 "arm --boot-as-is: exit 0"
is "$(sed -n 's/^# boot image //p' "$WORK/arm-as-is/reproduce.sh")" "$k" "arm --boot-as-is: boots the zImage"
is "$(jq -c '[.tests[] | [.name, .result]]' "$WORK/arm-as-is/results.json")" '[["pass","pass"]]' \
	"arm --boot-as-is: verdict"
# A guest that never reaches the init after booting what tapboot unpacked (here: cut off by a
# 1 s idle limit, before the quiet kernel prints anything) is reported with the way to rule the
# unpacking out; with --boot-as-is there is nothing to rule out.
"$TAPBOOT" run --kernel "$k" -o "$WORK/arm-cut" -q --idle-timeout 1 "$GUEST/arm/static/pass" \
	>/dev/null 2>"$WORK/err-arm-cut"
is "$?" 3 "arm, cut before the init: exit 3"
like "$(jq -r .error "$WORK/arm-cut/results.json")" \
	"^no console output for 1 s: the guest hangs; QEMU booted the kernel tapboot unpacked on the host \\(.*-uimage-40000000\\): --boot-as-is boots '.*' itself$" \
	"arm, cut before the init: the error names the unpacked image and --boot-as-is"
"$TAPBOOT" run --kernel "$k" --boot-as-is -o "$WORK/arm-cut-as-is" -q --idle-timeout 1 \
	"$GUEST/arm/static/pass" >/dev/null 2>&1
is "$(jq -r .error "$WORK/arm-cut-as-is/results.json")" "no console output for 1 s: the guest hangs" \
	"arm --boot-as-is, cut before the init: no unpacking to name"
done_testing
