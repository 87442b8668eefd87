#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh: builds the libFuzzer harnesses (clang -fsanitize=fuzzer,address,undefined) and runs
# each for SECONDS (default 10) on a corpus seeded from tests/fixtures, configs/ and fuzz/seeds.
# Crashes are saved under $OUT/fuzz/artifacts/<harness>/ and make the script fail; copy such a
# file to fuzz/regress/<harness>/ and it is replayed on every run (and the tap_parser ones by
# tests/unit/test_tap_parser_regress.c).
# usage: fuzz/run.sh [SECONDS] [HARNESS...]   (OUT= build directory, default build; CC=clang)
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$src/build}/fuzz
secs=${1:-10}
shift || true
cc=${FUZZ_CC:-clang}
all="tap_parser sequencing plan json arch_config kselftest_settings inputs repro"
harnesses=${*:-$all}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz/run.sh: $cc not found: install clang (scripts/install-deps.sh check)" >&2
	exit 2
fi
flags="-std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-D_GNU_SOURCE -DTAPBOOT_VERSION=\"fuzz\" -DTAPBOOT_SRCDIR=\"$src\"
	-DTAPBOOT_LIBEXECDIR=\"$out\" -DTAP_MISSING_CAP=64 -I$src/lib -I$src/qemu -I$src/results -I$src/builder -I$src/lkp"
lib="$src/lib/error.c $src/lib/strbuf.c $src/lib/verdict.c $src/lib/plan.c $src/lib/tap.c $src/lib/fs.c $src/lib/strlist.c $src/lib/arch_config.c $src/lib/cache.c $src/lib/proc.c $src/lib/paths.c
	$src/lib/line_tag.c $src/lib/base64.c $src/lib/json.c $src/lib/json_read.c $src/lib/kconfig.c $src/lib/text.c"

sources() {
	case $1 in
	tap_parser) echo "$src/results/tap_parser.c $src/results/report_json.c $src/results/report_tap.c
		$src/results/report_junit.c $src/results/report_summary.c $src/results/report_util.c
		$src/results/results.c $src/results/report_kcidb.c
		$src/results/crash_sig.c $src/results/crash_id.c" ;;
	sequencing) echo "$src/results/tap_parser.c $src/results/results.c" ;;
	plan) echo "" ;;
	json) echo "" ;;
	repro) echo "$src/results/crash_sig.c $src/results/crash_id.c $src/qemu/machine_line.c
		$src/lkp/report.c $src/lkp/report_fields.c $src/lkp/mail.c $src/lkp/decode.c
		$src/lkp/job_script.c $src/lkp/report_text.c $src/lkp/report_json.c $src/lkp/match.c" ;;
	arch_config) echo "" ;;
	kselftest_settings | inputs)
		# the builder's parsers and what they call (libarchive, libelf)
		ls "$src"/builder/*.c | tr '\n' ' ' ;;
	esac
}
libs() {
	case $1 in
	kselftest_settings | inputs) pkg-config --libs libarchive libelf nettle 2>/dev/null ||
		echo "-larchive -lelf -lnettle" ;;
	repro) pkg-config --libs liblzma 2>/dev/null || echo "-llzma" ;;
	*) echo "-lm" ;;
	esac
}
seed() {
	local h=$1 dir=$2
	mkdir -p "$dir"
	cp "$src"/fuzz/seeds/"$h"/* "$dir"/ 2>/dev/null
	case $h in
	tap_parser)
		# the first byte is the harness's mode byte (chunk size, nonce, cut)
		for f in "$src"/tests/fixtures/tap/*; do
			[ -f "$f" ] || continue
			{ printf '\007'; cat "$f"; } >"$dir/fixture-$(basename "$f")"
		done ;;
	arch_config) cp "$src"/configs/*.conf "$dir"/ 2>/dev/null ;;
	repro) find "$src"/tests/fixtures/repro -type f ! -name '*.sh' ! -name '*.xz' -exec cp {} "$dir"/ \; ;;
	esac
	return 0
}

status=0
mkdir -p "$out"
for h in $harnesses; do
	bin=$out/fuzz_$h
	echo "fuzz: building $h"
	# shellcheck disable=SC2046,SC2086
	if ! $cc $flags -o "$bin" "$src/fuzz/fuzz_$h.c" $(sources "$h") $lib $(libs "$h"); then
		echo "fuzz: cannot build $h" >&2
		status=1
		continue
	fi
	corpus=$out/corpus/$h
	art=$out/artifacts/$h/
	mkdir -p "$art"
	seed "$h" "$corpus"
	# found crashes, kept as regression inputs: each must pass now
	if [ -d "$src/fuzz/regress/$h" ] && [ -n "$(ls -A "$src/fuzz/regress/$h" 2>/dev/null)" ]; then
		if ! "$bin" -runs=0 -close_fd_mask=2 "$src/fuzz/regress/$h"/* >"$out/$h-regress.log" 2>&1; then
			echo "fuzz: $h: a regression input fails again, see $out/$h-regress.log" >&2
			status=1
		fi
	fi
	echo "fuzz: running $h for ${secs}s"
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-close_fd_mask=2 \
		-artifact_prefix="$art" -print_final_stats=1 "$corpus" >"$out/$h.log" 2>&1; then
		echo "fuzz: $h found a problem: $(ls -t "$art" | head -1) (log: $out/$h.log)" >&2
		tail -30 "$out/$h.log" >&2
		status=1
	else
		grep -E '^stat::number_of_executed_units' "$out/$h.log" |
			sed "s/^stat::number_of_executed_units: */fuzz: $h: executions: /"
	fi
done
exit $status
