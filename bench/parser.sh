#!/bin/sh
# parser.sh: the parser benchmark: generates a synthetic console log (bench/parser_gen.c) and
# prints tap_parser's throughput on it (bench/parser_bench.c, one core).
# usage: bench/parser.sh [MEGABYTES]   (default 100; OUT= build directory, default build)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$src/build}/bench
mb=${1:-100}
mkdir -p "$out"
cc=${CC:-gcc}
$cc -std=gnu11 -O2 -o "$out/parser_gen" "$src/bench/parser_gen.c"
$cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$src/lib" -I"$src/qemu" -o "$out/parser_bench" \
	"$src/bench/parser_bench.c" "$src/qemu/tap_parser.c" "$src/lib/error.c" \
	"$src/lib/strbuf.c" "$src/lib/verdict.c"
log=$out/console-${mb}M.log
[ -s "$log" ] || "$out/parser_gen" "$mb" >"$log"
"$out/parser_bench" "$log" 3
