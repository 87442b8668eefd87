#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 90-bench.sh: keeps `make bench` from rotting (issue 8): runs bench/run.sh once in quick mode
# (one repetition, no warm-up, small inputs) and checks that every row of the table is printed
# with numbers on both sides and a numeric ratio. It asserts no timing.
. "$(dirname "$0")/lib.sh"

need qemu-system-x86_64 qemu-system-x86
need qemu-system-aarch64 qemu-system-arm
need qemu-system-s390x qemu-system-misc
need qemu-system-riscv64 qemu-system-misc
need cpio cpio
need bsdcpio libarchive-tools
need zstd zstd
need jq jq
need python3 python3
[ -x /bin/busybox ] || bail "/bin/busybox is missing: apt-get install busybox-static"

BENCH_QUICK=1 BENCH_RESULTS=$WORK/results.md OUT=$OUT TAPBOOT=$TAPBOOT "$TOP/bench/run.sh" \
	>"$WORK/out" 2>"$WORK/err"
rc=$?
is "$rc" 0 "bench/run.sh in quick mode exits 0"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$WORK/err" | tail -20
ok "$(cmp -s "$WORK/out" "$WORK/results.md"; echo $?)" "the printed table is the one written to BENCH_RESULTS"
like "$(head -1 "$WORK/results.md")" "QUICK MODE" "a quick run's table says so"
like "$(sed -n 3,4p "$WORK/results.md")" "[0-9]+ CPUs \(.*\), Linux .*, QEMU emulator version" \
	"the machine is named: CPUs, CPU model, kernel, QEMU version"

# row PREFIX: the table row whose first cell starts with PREFIX (cells split on " | ").
row() { grep -F -- "| $1" "$WORK/results.md" | head -1; }
num='[0-9]+(\.[0-9]+)?'
for r in \
	"image build, uncompressed (kselftest tree" \
	"image build, uncompressed: tapboot build vs GNU cpio" \
	"image build, uncompressed: tapboot build vs bsdcpio" \
	"image build, zstd -3: tapboot build (cold cache) vs gen_init_cpio" \
	"image build, zstd -3: tapboot build (cold cache) vs GNU cpio" \
	"image build, zstd -3: tapboot build (cold cache) vs bsdcpio" \
	"incremental rebuild, zstd" \
	"boot to result, x86_64, one test: tapboot run --no-snapshot vs minimal" \
	"boot to result, x86_64, one test: tapboot run --no-snapshot vs naive" \
	"boot to result, arm64, one test: tapboot run --no-snapshot vs minimal" \
	"boot to result, arm64, one test: tapboot run --no-snapshot vs naive" \
	"boot to result, x86_64, one test, cold: tapboot run --no-snapshot (default vCPUs" \
	"boot to result, arm64, one test, cold: tapboot run --no-snapshot (default vCPUs" \
	"boot to result, arm (armv7), one test: tapboot run --no-snapshot (Image unpacked" \
	"boot to result, s390x, one test: tapboot run --no-snapshot vs minimal" \
	"boot to result, riscv64, one test: tapboot run --no-snapshot vs minimal" \
	"per-test time in the guest, x86_64" \
	"per-test time in the guest, arm64" \
	"kselftest suite, x86_64 (" \
	"kselftest suite, x86_64: tapboot --kselftest -j auto" \
	"kselftest suite, x86_64: tapboot --kselftest --isolate -j auto" \
	"kselftest suite, x86_64: the longest test's own time" \
	"warm snapshot, x86_64, one test" \
	"warm snapshot, arm64, one test" \
	"-j 2 vs -j 1" \
	"parser throughput, tapboot parse" \
	"parser throughput, same log: tapboot parse vs kunit.py" \
	"gate of the kselftest suite, x86_64, one kernel against itself" \
	"one gate rerun, x86_64: one test of four by --filter"; do
	line=$(row "$r")
	# | what | tapboot | peer | ratio | goal | met | min-max | min-max |
	cells=$(printf '%s' "$line" | awk -F' [|] ' '{ print $2 "\t" $3 "\t" $4 }')
	IFS=$'\t' read -r tb peer ratio <<<"$cells"
	like "$tb" "^$num (s|ms|MB/s)$" "$r: tapboot's median is a number"
	like "$peer" "^$num (s|ms|MB/s)" "$r: the peer's median is a number"
	like "$ratio" "^$num""x$" "$r: the ratio is a number"
done
is "$(grep -c '^| .*n/a' "$WORK/results.md")" 0 "no row is n/a"
like "$(cat "$WORK/results.md")" "kselftest verdicts" "the kselftest verdicts are compared"
like "$(cat "$WORK/results.md")" "Cold-boot peer, arm64 [^:]*: \`qemu-system-aarch64 -M virt -cpu cortex-a57 -nographic -kernel [^ ]* -initrd [^ ]* -append console=ttyAMA0\`" \
	"the arm64 cold-boot peer is the line issue 18 quotes, named in a note"
for a in x86_64 arm64; do
	like "$(row "per-test time in the guest, $a")" "\| <= 1.0 x \|" "per-test time, $a: the goal is issue 18's"
	like "$(row "boot to result, $a, one test, cold")" "\| <= 1.15 x \|" "cold boot, $a: the goal is issue 18's"
done

# BENCH_SECTIONS: only the sections named (4: the per-test rows), into its own file by default.
rm -f "$OUT/bench/results-sections.md"
BENCH_QUICK=1 BENCH_SECTIONS=4 OUT=$OUT TAPBOOT=$TAPBOOT "$TOP/bench/run.sh" >"$WORK/out4" 2>"$WORK/err4"
is "$?" 0 "BENCH_SECTIONS=4: exits 0"
is "$(grep '^| ' "$OUT/bench/results-sections.md" 2>/dev/null | grep -vc '^| what |')" 2 \
	"BENCH_SECTIONS=4: two rows, written to OUT/bench/results-sections.md"
is "$(grep -c '^| per-test time in the guest' "$WORK/out4")" 2 "BENCH_SECTIONS=4: they are the per-test rows"

done_testing
