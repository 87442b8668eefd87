#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 56-build.sh: from a kernel tree to a verdict (issue 34), on Debian's linux-source-6.1:
# - tapboot kernel config: the minimal x86_64 test kernel's .config is what it writes (scripts/
#   build-test-kernel.sh configures and builds through it: 55-kernel-config.sh boots them on
#   x86_64 and arm64); an option with an unmet dependency is refused by name with what it
#   depends on; an option the tree does not have; --debug sets; bad input.
# - tapboot series on a git repository of the tree (tests/boot/kernel-git.sh): base, a good
#   commit, one that breaks /proc/version, one that fixes it: the table, the second named,
#   exit 1; incremental builds in one build directory.
# - run --build --bisect on a commit that does not build: 125 (git bisect's skip) with the
#   compiler's error; without --bisect exit 2.
. "$(dirname "$0")/lib.sh"

declare -A kdirs
for arch in x86_64; do
	kdir=$("$TOP/scripts/build-test-kernel.sh" "$arch" 2>"$WORK/build-$arch") ||
		bail "cannot build the minimal $arch kernel: scripts/build-test-kernel.sh $arch ($(tail -3 "$WORK/build-$arch"))"
	kdirs[$arch]=$kdir
done
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)
src=$(dirname "$kdir")/src-$srcver
[ -f "$src/Makefile" ] || bail "no unpacked linux-source-6.1 at $src"

# -- kernel config -- (each olddefconfig costs 10-25 s: as few as say what they must)
d=$WORK/cfg-x86_64
"$TAPBOOT" kernel config "$src" -O "$d" --arch x86_64 --minimal \
	"$TOP/configs/test-kernel/common.config" >"$WORK/o" 2>"$WORK/e"
is "$?" 0 "kernel config x86_64: exit 0"
is "$(cat "$WORK/o")" "$d/.config" "kernel config x86_64: prints the config's path"
cmp -s <(grep -v '^#' "${kdirs[x86_64]}/.config") <(grep -v '^#' "$d/.config")
ok "$?" "kernel config x86_64: the same .config as the cached test kernel's (its options)"
grep -qx 'CONFIG_DEVTMPFS=y' "$d/tapboot.config"
ok "$?" "kernel config x86_64: tapboot.config in the build directory holds the init's needs"
grep -qx 'CONFIG_SERIAL_8250_CONSOLE=y' "$d/tapboot.config"
ok "$?" "kernel config x86_64: the arch's console in tapboot.config"

printf 'CONFIG_DRM_I915=y\nCONFIG_TAPBOOT_NO_SUCH_OPTION=y\n' >"$WORK/bad.config"
"$TAPBOOT" kernel config "$src" -O "$WORK/cfg-bad" --arch x86_64 "$WORK/bad.config" >/dev/null 2>"$WORK/e"
is "$?" 2 "options that do not stick: exit 2"
like "$(cat "$WORK/e")" "2 options did not stick in '$WORK/cfg-bad/.config'" "options that do not stick: how many, where"
like "$(cat "$WORK/e")" "CONFIG_DRM_I915=y \(from $WORK/bad.config\) is (absent|not set) in the result: it depends on [^;]*DRM" \
	"unmet dependency: the option named, and its 'depends on' line"
like "$(cat "$WORK/e")" "off here:.* CONFIG_DRM( |$)" "unmet dependency: CONFIG_DRM named as off"
like "$(cat "$WORK/e")" "CONFIG_TAPBOOT_NO_SUCH_OPTION=y .*not an option of this tree" \
	"an option the tree does not have: said so"

"$TAPBOOT" kernel config "$src" -O "$WORK/cfg-kfence" --arch x86_64 --minimal --debug kfence >/dev/null 2>"$WORK/e"
is "$?" 0 "--debug kfence: exit 0"
grep -qx 'CONFIG_KFENCE=y' "$WORK/cfg-kfence/.config"
ok "$?" "--debug kfence: CONFIG_KFENCE=y in .config"

"$TAPBOOT" kernel config "$src" -O "$WORK/cfg-bad" --arch x86_64 --debug nosuch >/dev/null 2>"$WORK/e"
is "$?" 2 "--debug nosuch: exit 2"
like "$(cat "$WORK/e")" "unknown name 'nosuch' \(known: kasan, kfence" "--debug nosuch: the known names"
printf 'CONFIG_FOO\n' >"$WORK/badline.config"
"$TAPBOOT" kernel config "$src" -O "$WORK/cfg-bad" --arch x86_64 "$WORK/badline.config" >/dev/null 2>"$WORK/e"
is "$?" 2 "a fragment with a bad line: exit 2"
like "$(cat "$WORK/e")" "$WORK/badline.config:1: expected 'CONFIG_NAME=VALUE'" "a fragment with a bad line: file and line"
"$TAPBOOT" kernel config "$WORK" -O "$WORK/cfg-bad" --arch x86_64 >/dev/null 2>"$WORK/e"
is "$?" 2 "not a kernel tree: exit 2"
like "$(cat "$WORK/e")" "is not a kernel tree" "not a kernel tree: said"
"$TAPBOOT" kernel build "$src" -O "$WORK/empty" --arch x86_64 >/dev/null 2>"$WORK/e"
is "$?" 2 "kernel build without a .config: exit 2"
like "$(cat "$WORK/e")" "no .config in '$WORK/empty': make one first" "kernel build without a .config: what to do"

# -- a series, and bisect's skip --
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/test-kernels
repo=$cache/git-$srcver
read -r base good broken fixed nobuild < <("$TOP/tests/boot/kernel-git.sh" "$src" "$repo" 2>"$WORK/git.err") ||
	bail "cannot make the kernel git fixture: $(tail -3 "$WORK/git.err")"
t=$GUEST/x86_64/scripts/procversion.sh
out=$WORK/series
"$TAPBOOT" series "$base..$fixed" --build "$repo" --arch x86_64 -o "$out" -q --timeout 30 "$t" \
	>"$WORK/series.out" 2>"$WORK/series.err"
is "$?" 1 "series: exit 1 (a commit broke a test that passed at the base)"
like "$(cat "$WORK/series.out")" "procversion.sh broke at ${broken:0:12} proc: /proc/version says broken \(fail there, pass at the base\)" \
	"series: the breaking commit named"
is "$(grep -c 'broke at' "$WORK/series.out")" 1 "series: only that one"
is "$(jq -r '[.commits[] | "\(.commit[0:7]) \(.exit)"] | join(" ")' "$out/series.json")" \
	"${base:0:7} 0 ${good:0:7} 0 ${broken:0:7} 1 ${fixed:0:7} 0" "series.json: every commit, base first, with its run's exit"
is "$(jq -r '.broken[0].commit' "$out/series.json")" "$broken" "series.json: the breaking commit"
for c in 00 01 02 03; do
	[ -f "$(ls -d "$out/$c"-* | head -1)/results.json" ]
	ok "$?" "series: commit $c has a results directory"
done
like "$(grep -E "^${broken:0:12} " "$WORK/series.out")" "fail" "series: the table says fail at the breaking commit"
wt=$(ls -d "$cache/../series/git-$srcver-"* 2>/dev/null | head -1)
[ -d "$wt/.git" ] || [ -f "$wt/.git" ]
ok "$?" "series: the worktree is kept for the next series ($wt)"
is "$(git -C "$repo" rev-parse HEAD)" "$base" "series: the tree's own checkout is left alone"

# bisect's skip: the worktree at the commit that does not build, built incrementally
git -C "$wt" checkout -q --detach "$nobuild"
"$TAPBOOT" run --build "$wt" --arch x86_64 --bisect -q "$t" >"$WORK/b.out" 2>"$WORK/b.err"
is "$?" 125 "run --build --bisect: a commit that does not build exits 125"
like "$(cat "$WORK/b.err")" "lib/list_sort.c:2:2: error: #error \"tapboot test: this commit does not build\"" \
	"run --build: the compiler's first error"
"$TAPBOOT" run --build "$wt" --arch x86_64 -q "$t" >/dev/null 2>"$WORK/b2.err"
is "$?" 2 "run --build without --bisect: a build error is exit 2"
git -C "$wt" checkout -q --detach "$base"
"$TAPBOOT" run --build "$wt" --kernel debian:x86_64 -q "$t" >/dev/null 2>"$WORK/e"
is "$?" 2 "--build and --kernel: exit 2"
like "$(cat "$WORK/e")" "--build SRC or --kernel, not both" "--build and --kernel: said"

done_testing
