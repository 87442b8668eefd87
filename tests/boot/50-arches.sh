#!/bin/bash
# 50-arches.sh: real boots on every other architecture Debian 12 ships a kernel and a cross
# compiler for (i386, arm, ppc64le; x86_64 and arm64 boot in the other tests): static, dynamic
# and shell-script tests, the architecture read from each kernel image.
. "$(dirname "$0")/lib.sh"

for arch in i386 arm ppc64le; do
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
done_testing
