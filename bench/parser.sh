#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# parser.sh: the parser benchmark. 1) tap_parser's throughput on a synthetic console log of
# MEGABYTES (default 100) in tapboot's protocol with kernel lines between and inside test lines
# (bench/parser_gen.c, bench/parser_bench.c, one core, CPU time). 2) side by side with
# kunit_tool's parser (tools/testing/kunit/kunit.py parse, from Debian's linux-source package)
# on a KUnit-style log of KUNIT_MB (default 20): `tapboot parse` against `kunit.py parse`, wall
# time of each whole command.
# usage: bench/parser.sh [MEGABYTES]   (OUT= build directory, default build; TAPBOOT= the tool;
#        KUNIT_PY= a kunit.py to use instead of extracting /usr/src/linux-source-*.tar.xz)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$src/build}/bench
tapboot=${TAPBOOT:-$src/build/tapboot}
mb=${1:-100}
kmb=${KUNIT_MB:-20}
mkdir -p "$out"
cc=${CC:-gcc}
$cc -std=gnu11 -O2 -o "$out/parser_gen" "$src/bench/parser_gen.c"
$cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$src/lib" -I"$src/results" -o "$out/parser_bench" \
	"$src/bench/parser_bench.c" "$src/results/tap_parser.c" "$src/results/results.c" \
	"$src/lib/json_read.c" "$src/lib/json.c" "$src/lib/fs.c" "$src/lib/strlist.c" "$src/lib/error.c" \
	"$src/lib/strbuf.c" "$src/lib/verdict.c" "$src/lib/line_tag.c" "$src/lib/base64.c"
log=$out/console-${mb}M.log
[ -s "$log" ] || "$out/parser_gen" "$mb" >"$log"
"$out/parser_bench" "$log" 3

kunit=${KUNIT_PY:-}
if [ -z "$kunit" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)
	if [ -z "$tarball" ]; then
		echo "kunit_tool: not found: install linux-source-6.1 (scripts/install-deps.sh all)" >&2
		exit 1
	fi
	ver=$(basename "$tarball" .tar.xz)
	kunit=$out/$ver/tools/testing/kunit/kunit.py
	[ -f "$kunit" ] || tar -xJf "$tarball" -C "$out" "$ver/tools/testing/kunit"
fi
klog=$out/kunit-${kmb}M.log
[ -s "$klog" ] || "$out/parser_gen" "$kmb" ktap >"$klog"
now() { date +%s.%N; }
t0=$(now)
"$tapboot" parse "$klog" >/dev/null || true
t1=$(now)
python3 "$kunit" parse "$klog" >"$out/kunit-parse.out" 2>&1 || true
t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v mb="$(stat -c %s "$klog")" 'BEGIN {
	t = b - a; k = c - b;
	printf "tapboot parse: %.1f MB in %.3f s: %.0f MB/s\n", mb / 1e6, t, mb / 1e6 / t;
	printf "kunit.py parse: %.1f MB in %.3f s: %.1f MB/s\n", mb / 1e6, k, mb / 1e6 / k;
	printf "tapboot parse is %.0fx kunit_tool\n", k / t }'
grep -E "Ran [0-9]+ tests" "$out/kunit-parse.out" | sed 's/^\[[0-9:]*\] /kunit.py: /'
"$tapboot" parse --format json "$klog" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(len(t.get("subtests", [])) for t in d["tests"])
print("tapboot: %d suites, %d cases" % (len(d["tests"]), n))'
