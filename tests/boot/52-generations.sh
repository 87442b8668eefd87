#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 52-generations.sh: two kernel generations, Debian 12's 6.1 and Debian 13's 6.12, on x86_64 and
# arm64 give the same verdicts for the same tests (pass, fail, skip, xfail, a test's own KTAP, a
# kernel warning, a panic), so a change in the kernel's console format, taint reporting or image
# headers is caught. One boot per kernel; the panic comes last since it ends the run.
. "$(dirname "$0")/lib.sh"

want='[["pass","pass"],["fail","fail"],["skip","skip"],["xfail","xfail"],["own_tap","fail"],["warn","fail"],["panic","crash"]]'
for arch in x86_64 arm64; do
	g=$GUEST/$arch/static
	[ -x "$g/warn" ] || bail "guest tests for $arch are not built ($g): make INIT_ARCHES=$arch"
	for rel in bookworm trixie; do
		k=$("$TOP/scripts/fetch-kernel.sh" "$arch" "$rel") ||
			bail "no $rel kernel for $arch: scripts/fetch-kernel.sh $arch $rel failed (needs Debian's archive)"
		d=$WORK/$arch-$rel
		"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 20 "$g/pass" "$g/fail" "$g/skip" \
			"$g/xfail" "$g/own_tap" "$g/warn" "$g/panic" >/dev/null 2>"$WORK/err-$arch-$rel"
		is "$?" 3 "$arch $rel: a panic ends the run with exit 3"
		is "$(jq -c '[.tests[] | [.name, .result]]' "$d/results.json")" "$want" "$arch $rel: verdicts"
		like "$(reason "$d" warn)" "^kernel (warning|tainted)" "$arch $rel: the warning is the kernel's"
		like "$(reason "$d" panic)" "^Kernel panic - not syncing: sysrq triggered crash" \
			"$arch $rel: the panic's reason is the kernel's report"
		is "$(jq -r '[.tests[] | select(.name == "own_tap") | .subtests | length] | .[0]' "$d/results.json")" 3 \
			"$arch $rel: the test's own TAP gives 3 subtests"
	done
	like "$(jq -r .kernel_release "$WORK/$arch-bookworm/results.json")" '^6\.1\.0-' "$arch: bookworm is 6.1"
	like "$(jq -r .kernel_release "$WORK/$arch-trixie/results.json")" '^6\.12\.[0-9]+\+deb13-' "$arch: trixie is 6.12"
	is "$(jq -c '[.tests[] | [.name, .result, ((.subtests // []) | map(.result))]]' "$WORK/$arch-trixie/results.json")" \
		"$(jq -c '[.tests[] | [.name, .result, ((.subtests // []) | map(.result))]]' "$WORK/$arch-bookworm/results.json")" \
		"$arch: 6.12 and 6.1 agree test by test and subtest by subtest"
done
# 6.12's x86_64 bzImage still has the PVH entry: its vmlinux is unpacked on the host and booted
# like 6.1's; arm64's Image is booted as it is.
like "$(sed -n 's/^# boot image //p' "$WORK/x86_64-trixie/reproduce.sh")" '/vmlinux/[0-9a-f]{64}$' \
	"x86_64 trixie: the PVH vmlinux unpacked on the host is booted"
is "$(sed -n 's/^# boot image //p' "$WORK/arm64-trixie/reproduce.sh")" "$("$TOP/scripts/fetch-kernel.sh" arm64 trixie)" \
	"arm64 trixie: the Image is booted as it is"
# A release fetch-kernel.sh does not know is bad input, named.
"$TOP/scripts/fetch-kernel.sh" x86_64 woody >/dev/null 2>"$WORK/err-rel"
is "$?" 2 "fetch-kernel.sh with an unknown release: exit 2"
is "$(cat "$WORK/err-rel")" "fetch-kernel: unknown Debian release 'woody' (usage: fetch-kernel.sh ARCH [bookworm|trixie])" \
	"fetch-kernel.sh with an unknown release: the message names it and the known ones"
done_testing
