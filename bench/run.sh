#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh: `make bench`: every performance claim of issues 3-7 measured side by side against its
# peer in one run on this machine, printed as one table and written to bench/results.md.
#
# Method: per row a warm-up of both sides, then REPS runs with the two sides interleaved and
# the order turned every round (A B, B A, A B, ...) so that drift on a shared machine hits both
# and neither side always runs just after the other; medians, min and max. The ratio is
# tapboot's median over the peer's, in the row's unit (seconds: lower is better; MB/s: higher).
# Peers come from Debian packages at bench time (linux-source-6.1 through
# scripts/kselftest-build.sh: usr/gen_init_cpio.c, kunit_tool, run_kselftest.sh and the
# kselftests; GNU cpio, bsdcpio, busybox-static, zstd) and bench/minimal-boot.sh.
#
# Environment: OUT, TAPBOOT (from make); BENCH_QUICK=1 one repetition, no warm-up, smaller
# inputs (make check runs that to keep the bench working); BENCH_REPS (default 5),
# BENCH_BOOT_REPS (11: one boot here varies 1.6-2.6 s on both sides, in phases that last
# minutes, so a median of five moved the arm64 ratio between 0.96x and 1.18x in four runs of
# one day while 16 pairs taken A B B A said 1.03x), BENCH_KSELFTEST_REPS (5; one sud_benchmark run alone varies by seconds); BENCH_RESULTS: the markdown file (default
# bench/results.md, or $OUT/bench/results-quick.md in quick mode so that a check does not
# overwrite the committed table, $OUT/bench/results-sections.md with BENCH_SECTIONS);
# BENCH_SECTIONS: the numbers of the sections to run (e.g. "3 4"; default all: 1 image build,
# 3 boot to result, 4 per-test time in the guest, 5 kselftest suite (with --isolate), 6 -j,
# 7 parser and 8 repro (7 and 8 run together), 9 warm snapshot, 10 gate); BENCH_GATE_REPS
# (default 3): repetitions of section 10's kselftest gate.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$TOP/build}
TAPBOOT=${TAPBOOT:-$OUT/tapboot}
QUICK=${BENCH_QUICK:-}
[ "$QUICK" = 0 ] && QUICK=
if [ -n "$QUICK" ]; then
	REPS=1 BOOT_REPS=1 KS_REPS=1 WARM=0 PARSE_MB=20 SLEEPERS=6
	RESULTS=${BENCH_RESULTS:-$OUT/bench/results-quick.md}
else
	REPS=${BENCH_REPS:-5} BOOT_REPS=${BENCH_BOOT_REPS:-11} KS_REPS=${BENCH_KSELFTEST_REPS:-5}
	WARM=1 PARSE_MB=100 SLEEPERS=20
	RESULTS=${BENCH_RESULTS:-$TOP/bench/results.md}
fi
SECTIONS=${BENCH_SECTIONS:-}
[ -n "$SECTIONS" ] && [ -z "${BENCH_RESULTS:-}" ] && RESULTS=$OUT/bench/results-sections.md
# want N: section N is to run. A section's body is not indented under its guard: the guard is
# one line before it and one after.
want() { [ -z "$SECTIONS" ] || [[ " $SECTIONS " == *" $1 "* ]]; }
pr=$REPS
[ -z "$QUICK" ] && pr=3
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot
mkdir -p "$OUT/bench"
OUT=$(cd "$OUT" && pwd)
BOUT=$OUT/bench
W=$(mktemp -d "${TMPDIR:-/tmp}/tapboot-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
LOG=$W/log
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

say() { echo "bench: $*" >&2; }
[ -x "$TAPBOOT" ] || { echo "bench: $TAPBOOT is not built: run make" >&2; exit 2; }

# ---- timing ----
# now: microseconds (bash's clock, no fork); secs START: the seconds since START, into V.
now() { local t=$EPOCHREALTIME; echo "${t/./}"; }
T0=
start() { T0=${EPOCHREALTIME/./}; }
stop() {
	local d=$((${EPOCHREALTIME/./} - T0))
	printf -v V '%d.%06d' $((d / 1000000)) $((d % 1000000))
}
# cpu_of FILE: user+sys seconds that bash's time wrote with TIMEFORMAT='%3U %3S' (>= 0.001).
cpu_of() { awk '{ v = $1 + $2; if (v < 0.001) v = 0.001; printf "%.3f", v }' "$1"; }

# ---- rows ----
ROWS=()   # markdown lines
NOTES=()  # footnotes
# stats VALUES...: "median min max"
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%g %g %g", m, v[1], v[NR] }'; }
fmt() { awk -v v="$1" 'BEGIN { if (v >= 100) printf "%.0f", v; else if (v >= 10) printf "%.1f", v;
	else if (v >= 1) printf "%.2f", v; else printf "%.3f", v }'; }
# emit WHAT UNIT GOAL ("<= 1.3", ">= 20" or "-") A-SAMPLES B-SAMPLES [PEER-LABEL]
# (samples space-separated). PEER-LABEL replaces the peer's figures (a fixed goal).
emit() {
	local what=$1 unit=$2 goal=$3 a b ratio met pl=${6:-}
	read -r am amin amax <<<"$(stats $4)"
	read -r bm bmin bmax <<<"$(stats $5)"
	ratio=$(awk -v a="$am" -v b="$bm" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	case $goal in
	"<= "*) met=$(awk -v r="$ratio" -v g="${goal#<= }" 'BEGIN { print (r + 0 <= g + 0 ? "yes" : "NO") }') ;;
	">= "*) met=$(awk -v r="$ratio" -v g="${goal#>= }" 'BEGIN { print (r + 0 >= g + 0 ? "yes" : "NO") }') ;;
	*) met="-" ;;
	esac
	a="$(fmt "$am") $unit"
	b="$(fmt "$bm") $unit"
	[ -n "$pl" ] && b=$pl
	local ar br
	ar="$(fmt "$amin")-$(fmt "$amax")"
	br="$(fmt "$bmin")-$(fmt "$bmax")"
	[ -n "$pl" ] && br="-"
	[ "$goal" = - ] && goal="- (reported)" || goal="$goal x"
	ROWS+=("| $what | $a | $b | ${ratio}x | $goal | $met | $ar | $br |")
	say "$what: tapboot $a, peer $b, ratio ${ratio}x"
}
na() { # na WHAT REASON
	ROWS+=("| $1 | n/a ($2) | | n/a | | | | |")
	say "$1: n/a ($2)"
}
# pair WHAT UNIT GOAL FN-A FN-B [REPS]: warm-up, REPS interleaved runs, emit. Each FN sets V
# (the sample, in UNIT) and returns non-zero on failure (then the row is n/a, reason in ERR).
ERR=
pair() {
	local what=$1 unit=$2 goal=$3 fa=$4 fb=$5 n=${6:-$REPS} i sa= sb=
	ERR=
	if [ "$WARM" = 1 ]; then
		$fa || { na "$what" "${ERR:-$fa failed}"; return; }
		$fb || { na "$what" "${ERR:-$fb failed}"; return; }
	fi
	for ((i = 0; i < n; i++)); do
		if ((i % 2)); then
			$fb || { na "$what" "${ERR:-$fb failed}"; return; }
			sb+=" $V"
		fi
		$fa || { na "$what" "${ERR:-$fa failed}"; return; }
		sa+=" $V"
		if ((i % 2 == 0)); then
			$fb || { na "$what" "${ERR:-$fb failed}"; return; }
			sb+=" $V"
		fi
	done
	emit "$what" "$unit" "$goal" "$sa" "$sb"
}
# run_q CMD...: the command with its output in the log; fails with ERR naming it.
run_q() {
	"$@" >>"$LOG" 2>&1 || { ERR="$(basename "$1") exited $?, see the log"; return 1; }
}

# ---- the peers from linux-source ----
TREE=
if want 1 || want 5 || want 7 || want 10; then
	say "kselftest tree and linux-source (scripts/kselftest-build.sh x86_64)"
	TREE=$("$TOP/scripts/kselftest-build.sh" x86_64 2>>"$LOG") || TREE=
fi
SRC=$CACHE/kselftest/src/linux-source-6.1
GIC=$BOUT/gen_init_cpio
if want 1 && [ -f "$SRC/usr/gen_init_cpio.c" ]; then
	[ -x "$GIC" ] && [ "$GIC" -nt "$SRC/usr/gen_init_cpio.c" ] ||
		gcc -O2 -o "$GIC" "$SRC/usr/gen_init_cpio.c" >>"$LOG" 2>&1 || rm -f "$GIC"
fi
KX86=$("$TOP/scripts/fetch-kernel.sh" x86_64 2>>"$LOG") || KX86=
KARM=$("$TOP/scripts/fetch-kernel.sh" arm64 2>>"$LOG") || KARM=

# gen_init_cpio's list for a tree (directories, files, symlinks as they are).
gic_list() { # gic_list TREE > LIST
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort) | while IFS= read -r p; do
		local f=$1/${p#./} n=/${p#./}
		if [ -L "$f" ]; then echo "slink $n $(readlink "$f") 0777 0 0"
		elif [ -d "$f" ]; then echo "dir $n $(stat -c %a "$f") 0 0"
		elif [ -f "$f" ]; then echo "file $n $f $(stat -c %a "$f") 0 0"
		fi
	done
}

# ---- 1. image build ----
if want 1; then
# Each side writes a new file: the previous output is removed before the clock starts, since
# replacing a 43 MB file is the file system's work, not the writer's, and costs each way its
# own (ext4 here: tapboot's atomic rename over the old image flushes the new one and frees
# the old inside rename(), 15-27 ms; the shell's O_TRUNC for the peers 3-13 ms). The row
# "replacing the previous image" keeps that cost in, for both.
b_tb_over() { start; run_q "$TAPBOOT" build -o "$W/tb.cpio" "$TREE" || return 1; stop; }
b_gic_over() { start; "$GIC" "$W/list" >"$W/gic.cpio" 2>>"$LOG" || { ERR="gen_init_cpio failed"; return 1; }; stop; }
b_tb_none() { rm -f "$W/tb.cpio"; b_tb_over; }
b_gic_none() { rm -f "$W/gic.cpio"; b_gic_over; }
b_cpio_none() {
	rm -f "$W/gnu.cpio"
	start
	(cd "$SAME" && find . | cpio -o -H newc --quiet >"$W/gnu.cpio") 2>>"$LOG" || { ERR="GNU cpio failed"; return 1; }
	stop
}
b_bsd_none() {
	rm -f "$W/bsd.cpio"
	start
	(cd "$SAME" && find . | bsdcpio -o --format newc >"$W/bsd.cpio") 2>>"$LOG" || { ERR="bsdcpio failed"; return 1; }
	stop
}
COLD=0
b_tb_zstd() { # a cold segment cache each time: a first build
	COLD=$((COLD + 1))
	rm -f "$W/tb.zst"
	start
	XDG_CACHE_HOME=$W/cold$COLD run_q "$TAPBOOT" build --compress zstd -o "$W/tb.zst" "$TREE" || return 1
	stop
	rm -rf "$W/cold$COLD"
}
b_gic_zstd() {
	rm -f "$W/gic.zst"
	start
	{ "$GIC" "$W/list" | zstd -3 -T0 -q >"$W/gic.zst"; } 2>>"$LOG" || { ERR="gen_init_cpio | zstd failed"; return 1; }
	stop
}
b_cpio_zstd() {
	rm -f "$W/gnu.zst"
	start
	(cd "$SAME" && find . | cpio -o -H newc --quiet | zstd -3 -T0 -q >"$W/gnu.zst") 2>>"$LOG" || { ERR="GNU cpio | zstd failed"; return 1; }
	stop
}
b_bsd_zstd() {
	rm -f "$W/bsd.zst"
	start
	(cd "$SAME" && find . | bsdcpio -o --format newc | zstd -3 -T0 -q >"$W/bsd.zst") 2>>"$LOG" || { ERR="bsdcpio | zstd failed"; return 1; }
	stop
}
if [ -z "$TREE" ] || [ ! -x "$GIC" ]; then
	for r in "image build, uncompressed" "image build, zstd" "incremental rebuild"; do
		na "$r" "no kselftest tree or gen_init_cpio: scripts/kselftest-build.sh x86_64 failed"
	done
else
	# The peers pack the same files tapboot does (the tree plus tapboot's init, plan and the
	# busybox its shell tests need): tapboot's image, unpacked, is their input.
	SAME=$W/same
	mkdir -p "$SAME"
	"$TAPBOOT" build -o "$W/same.cpio" "$TREE" >>"$LOG" 2>&1
	(cd "$SAME" && bsdcpio -id --quiet <"$W/same.cpio") 2>>"$LOG"
	gic_list "$SAME" >"$W/list"
	sz=$(du -sm "$TREE" | cut -f1)
	nf=$(find "$TREE" -type f | wc -l)
	in="kselftest tree, $sz MB in $nf files"
	say "1. image build ($in)"
	pair "image build, uncompressed ($in), a new file: tapboot build vs gen_init_cpio" s "<= 1.3" b_tb_none b_gic_none
	pair "image build, uncompressed, replacing the previous image (tapboot: atomic rename; gen_init_cpio: shell O_TRUNC) (extra)" s - b_tb_over b_gic_over
	pair "image build, uncompressed: tapboot build vs GNU cpio" s "<= 0.333" b_tb_none b_cpio_none
	pair "image build, uncompressed: tapboot build vs bsdcpio (extra)" s - b_tb_none b_bsd_none
	pair "image build, zstd -3: tapboot build (cold cache) vs gen_init_cpio \\| zstd -T0" s - b_tb_zstd b_gic_zstd
	pair "image build, zstd -3: tapboot build (cold cache) vs GNU cpio \\| zstd -T0" s - b_tb_zstd b_cpio_zstd
	pair "image build, zstd -3: tapboot build (cold cache) vs bsdcpio \\| zstd -T0 (extra)" s - b_tb_zstd b_bsd_zstd
	mbs() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }
	NOTES+=("Image sizes (every writer packs the same files: the tree plus tapboot's init, plan and the busybox its shell tests need): tapboot $(mbs "$W/tb.cpio"), gen_init_cpio $(mbs "$W/gic.cpio"), GNU cpio $(mbs "$W/gnu.cpio"), bsdcpio $(mbs "$W/bsd.cpio"); zstd: tapboot $(mbs "$W/tb.zst"), gen_init_cpio $(mbs "$W/gic.zst").")

	# ---- 2. incremental rebuild: one test changes (a byte appended), zstd, warm cache ----
	say "2. incremental rebuild"
	cp -a "$TREE" "$W/tree"
	first=$(head -1 "$W/tree/kselftest-list.txt")
	victim=$W/tree/${first%%:*}/${first#*:}
	gic_list "$W/tree" >"$W/list2"
	XDG_CACHE_HOME=$W/warm "$TAPBOOT" build --compress zstd -o "$W/inc.zst" "$W/tree" >>"$LOG" 2>&1
	b_tb_inc() {
		printf '\0' >>"$victim"
		start
		XDG_CACHE_HOME=$W/warm run_q "$TAPBOOT" build --compress zstd -o "$W/inc.zst" "$W/tree" || return 1
		stop
	}
	b_gic_inc() {
		start
		{ "$GIC" "$W/list2" | zstd -3 -T0 -q >"$W/gic2.zst"; } 2>>"$LOG" || { ERR="gen_init_cpio failed"; return 1; }
		stop
	}
	pair "incremental rebuild, zstd, one test changed ($first): tapboot build vs gen_init_cpio \\| zstd (full)" s - b_tb_inc b_gic_inc
	seg=$(grep -o '[0-9]* segments ([0-9]* cached)' "$LOG" | tail -1)
	NOTES+=("Incremental rebuild: tapboot's last rebuild reported ${seg:-no segment count} (only the changed test's collection is re-packed).")
fi

fi # want 1

# tb_boot ARCH KERNEL [OPTION [TEST]]: one `tapboot run` of the trivial test (or TEST), timed to
# its exit (sections 3 and 9; OPTION: --no-snapshot for a cold boot, or empty). With TB_EXPECT
# set, the run's console.log must hold that text (how section 9 knows what a VM restored).
RUNS=0
tb_boot() {
	RUNS=$((RUNS + 1))
	start
	run_q "$TAPBOOT" run --kernel "$2" -q -o "$W/boot$RUNS" ${3:-} "${4:-$OUT/guest/$1/static/pass}" || return 1
	stop
	if [ -n "${TB_EXPECT:-}" ] && ! grep -qF "$TB_EXPECT" "$W/boot$RUNS/console.log"; then
		ERR="console.log of a timed run lacks '$TB_EXPECT'"
		return 1
	fi
	rm -rf "$W/boot$RUNS"
}

# boot_kernel ARCH ROW: x86_64's or arm64's kernel into k; false, with ROW n/a, when it or the
# guest tests are missing.
boot_kernel() {
	[ "$1" = x86_64 ] && k=$KX86 || k=$KARM
	[ -n "$k" ] && [ -x "$OUT/guest/$1/static/pass" ] && return 0
	na "$2" "no kernel (scripts/fetch-kernel.sh $1) or guest tests not built"
	return 1
}

# ---- 3. boot to result, one trivial test ----
if want 3; then
mb_boot() { # mb_boot ARCH MODE [RELEASE]
	start
	run_q "$TOP/bench/minimal-boot.sh" "$@" || return 1
	stop
}
for arch in x86_64 arm64; do
	boot_kernel "$arch" "boot to result, $arch" || continue
	say "3. boot to result, $arch"
	eval "a_$arch() { tb_boot $arch $k --no-snapshot; }; m_$arch() { mb_boot $arch minimal; }; n_$arch() { mb_boot $arch naive; }; o_$arch() { mb_boot $arch onecpu; }"
	[ "$arch" = x86_64 ] && how="q35, qboot, PVH vmlinux" || how="-cpu cortex-a57"
	[ "$arch" = x86_64 ] && naive="-M pc, bzImage" || naive="-cpu max"
	pair "boot to result, $arch, one test: tapboot run --no-snapshot vs minimal QEMU line ($how, 20-line static init)" s "<= 1.15" "a_$arch" "m_$arch" "$BOOT_REPS"
	# issue 18's cold boot: against the line a user would type, with QEMU's one vCPU
	[ "$arch" = x86_64 ] && one="the minimal line above with -smp 1" ||
		one="qemu-system-aarch64 -M virt -cpu cortex-a57 -nographic -kernel Image -initrd init.cpio -append console=ttyAMA0"
	pair "boot to result, $arch, one test, cold: tapboot run --no-snapshot (default vCPUs: smp_tcg, one) vs one vCPU: $one" s "<= 1.15" "a_$arch" "o_$arch" "$BOOT_REPS"
	NOTES+=("Cold-boot peer, $arch (bench/minimal-boot.sh $arch onecpu): \`$(MINIMAL_BOOT_PRINT=1 "$TOP/bench/minimal-boot.sh" "$arch" onecpu 2>>"$LOG")\`.")
	pair "boot to result, $arch, one test: tapboot run --no-snapshot vs naive boot ($naive, busybox sh init)" s "<= 0.5" "a_$arch" "n_$arch" "$BOOT_REPS"
done
# arm (armv7): tapboot unpacks the zImage's Image on the host; the peer boots the zImage, whose
# decompressor then runs under TCG (no goal in the issue: reported)
KARMHF=$("$TOP/scripts/fetch-kernel.sh" arm 2>>"$LOG") || KARMHF=
if [ -z "$KARMHF" ] || [ ! -x "$OUT/guest/arm/static/pass" ]; then
	na "boot to result, arm" "no kernel (scripts/fetch-kernel.sh arm) or guest tests not built (make INIT_ARCHES=arm)"
else
	say "3. boot to result, arm"
	a_arm() { tb_boot arm "$KARMHF" --no-snapshot; }
	z_arm() { mb_boot arm zimage; }
	pair "boot to result, arm (armv7), one test: tapboot run --no-snapshot (Image unpacked on the host) vs minimal QEMU line booting the zImage (-cpu cortex-a15, 20-line static init)" s - a_arm z_arm "$BOOT_REPS"
fi

# s390x (Debian 12) and riscv64 (Debian 13, Debian's OpenSBI): the peer boots the same kernel
# with the same machine, CPU and firmware tapboot's config names.
for arch in s390x riscv64; do
	k=$("$TOP/scripts/fetch-kernel.sh" "$arch" 2>>"$LOG") || k=
	if [ -z "$k" ] || [ ! -x "$OUT/guest/$arch/static/pass" ]; then
		na "boot to result, $arch" "no kernel (scripts/fetch-kernel.sh $arch) or guest tests not built (make INIT_ARCHES=$arch)"
		continue
	fi
	say "3. boot to result, $arch"
	eval "a_$arch() { tb_boot $arch $k --no-snapshot; }; m_$arch() { mb_boot $arch minimal; }"
	[ "$arch" = s390x ] && how="s390-ccw-virtio, Debian 12's image" || how="virt, Debian 13's image, Debian's OpenSBI"
	pair "boot to result, $arch, one test: tapboot run --no-snapshot vs minimal QEMU line ($how, 20-line static init)" s - "a_$arch" "m_$arch" "$BOOT_REPS"
done
# The second kernel generation: Debian 13's 6.12 on x86_64 (bzImage, its vmlinux through PVH)
# and arm64 (Image), the same boot paths as 6.1. Not in quick mode (make check): the code paths
# are the 6.1 rows', and four boots would add about 30 s to every check.
for arch in $([ -z "$QUICK" ] && echo x86_64 arm64); do
	k=$("$TOP/scripts/fetch-kernel.sh" "$arch" trixie 2>>"$LOG") || k=
	if [ -z "$k" ] || [ ! -x "$OUT/guest/$arch/static/pass" ]; then
		na "boot to result, $arch, Debian 13" "no kernel (scripts/fetch-kernel.sh $arch trixie) or guest tests not built"
		continue
	fi
	say "3. boot to result, $arch, Debian 13"
	eval "t_$arch() { tb_boot $arch $k --no-snapshot; }; mt_$arch() { mb_boot $arch minimal trixie; }"
	pair "boot to result, $arch, Debian 13 (6.12), one test: tapboot run --no-snapshot vs minimal QEMU line (same settings as 6.1)" s - "t_$arch" "mt_$arch" "$BOOT_REPS"
done

fi # want 3

# ---- 4. per-test overhead in the guest (bench/init.sh: one boot gives both sides) ----
if want 4; then
SHELL_MS=
pt_init() { # pt_init ARCH
	local o
	o=$(OUT=$OUT TAPBOOT=$TAPBOOT BENCH_QUICK=$QUICK "$TOP/bench/init.sh" "$1" 2>>"$LOG") ||
		{ ERR="bench/init.sh $1 failed, see the log"; return 1; }
	echo "$o" >>"$LOG"
	V=$(echo "$o" | awk '/init \(/ { print $(NF-1) }')
	SHELL_MS=$(echo "$o" | awk '/busybox sh loop/ { print $(NF-1) }')
	[ -n "$V" ] && [ -n "$SHELL_MS" ] || { ERR="bench/init.sh printed no figures"; return 1; }
}
pt_shell() { V=$SHELL_MS; }
for arch in x86_64 arm64; do
	say "4. per-test overhead, $arch"
	eval "pi_$arch() { pt_init $arch; }"
	nt=100
	[ -n "$QUICK" ] && nt=20
	pair "per-test time in the guest, $arch ($nt empty tests): tapboot init vs busybox sh loop (same boot, default vCPUs)" ms "<= 1.0" "pi_$arch" pt_shell "$REPS"
done

fi # want 4

# ---- 5. kselftest suite vs run_kselftest.sh ----
ks_row() {
	local what="kselftest suite, x86_64"
	if [ -z "$TREE" ] || [ -z "$KX86" ]; then
		na "$what" "no kselftest tree or kernel"
		return
	fi
	if ! "$TAPBOOT" run --help 2>&1 | grep -q -- --kselftest; then
		na "$what" "tapboot run has no --kselftest"
		return
	fi
	local kcfg=$CACHE/kernels/x86_64/config targets cs=() t i sa1= sa2= sb= nvms=
	# Quick mode: a few fast collections; else the whole demo tree.
	if [ -n "$QUICK" ]; then
		targets="core,kcmp,size,sigaltstack"
		for t in ${targets//,/ }; do cs+=(-c "$t"); done
	fi
	local tbargs=(--kselftest "$TREE" --kselftest-src "$SRC/tools/testing/selftests"
		--kernel "$KX86" --memory 1024 --smp 2 -q)
	[ -f "$kcfg" ] && tbargs+=(--config "$kcfg")
	[ -n "$QUICK" ] && tbargs+=(--targets "$targets")
	ks_tb() { # ks_tb JOBS DIR [MORE OPTIONS]
		rm -rf "$2"
		start
		"$TAPBOOT" run "${tbargs[@]}" -j "$1" -o "$2" "${@:3}" >>"$LOG" 2>&1
		stop
		[ "$(jq -r .complete "$2/results.json" 2>/dev/null)" = true ] ||
			{ ERR="tapboot --kselftest -j $1 did not complete, see the log"; return 1; }
	}
	# The peer: run_kselftest.sh from a busybox initramfs, booted with tapboot's own QEMU
	# command line (its reproduce.sh) with the initrd and the tapboot.* options replaced.
	ks_tb 1 "$W/ks-tb1" || { na "$what" "$ERR"; return; }
	local p=$W/peer line
	"$TOP/bench/kselftest-peer.sh" "$TREE" "$p" ${cs[*]} 2>>"$LOG" ||
		{ na "$what" "the peer initramfs could not be made"; return; }
	line=$(grep '^exec qemu' "$W/ks-tb1/reproduce.sh") || { na "$what" "no QEMU line in reproduce.sh"; return; }
	eval "set -- ${line#exec }"
	PEER=()
	while [ $# -gt 0 ]; do
		case $1 in
		-initrd) PEER+=(-initrd "$p/peer.cpio"); shift ;;
		-append) PEER+=(-append "$(echo "$2" | sed 's/ *tapboot\.[^ ]*//g')"); shift ;;
		-serial) PEER+=(-serial "file:$p/console.log"); shift ;;
		*) PEER+=("$1") ;;
		esac
		shift
	done
	echo "peer: ${PEER[*]}" >>"$LOG"
	ks_peer() {
		rm -f "$p/console.log"
		start
		timeout 1800 "${PEER[@]}" </dev/null >>"$LOG" 2>&1
		stop
		grep -aq '^# peer: end' "$p/console.log" ||
			{ ERR="run_kselftest.sh did not reach its end, see the log"; return 1; }
	}
	say "5. kselftest: $KS_REPS x (tapboot -j 1, run_kselftest.sh, tapboot -j auto)"
	# Verdicts of one peer console log: "collection:test verdict [reason]" per line, the
	# reason of a failure being the test's last diagnostic line before it.
	peer_verdicts() {
		tr -d '\r' <"$1" | awk '
			/^# / && !/^# (selftests: |exit=|timeout=)/ { last = substr($0, 3) }
			/^(not )?ok [0-9]+ selftests: / {
				n = $0; sub(/^(not )?ok [0-9]+ selftests: /, "", n)
				split(n, f, " "); name = f[1] f[2]
				v = /^ok/ ? (/# SKIP/ ? "skip" : "pass") : (/# TIMEOUT/ ? "timeout" : "fail")
				print name, v (v == "fail" ? " " last : "")
			}'
	}
	# The same from a tapboot results directory, a failure's reason followed by the last
	# diagnostic line of the test's own log.
	tb_verdicts() {
		jq -r '.tests[] | "\(.name)\t\(.result)\t\(.reason // "")"' "$1/results.json" |
			while IFS=$'\t' read -r name v why; do
				if [ "$v" = fail ]; then
					last=$(sed -n 's/^ *# //p' "$1/tests/$name.log" 2>/dev/null | grep -v '^tapboot: ' | tail -1)
					echo "$name $v ${why}${last:+: $last}"
				else
					echo "$name $v"
				fi
			done
	}
	local sa3= isodiff=0 sl= lname=
	# --isolate: every test in a VM of its own, started from the snapshot (warmed here: the
	# -j auto run above saved it, this one uses it)
	ks_tb auto "$W/ks-iso" --isolate || { na "$what" "$ERR"; return; }
	for ((i = 0; i < KS_REPS; i++)); do
		ks_tb 1 "$W/ks-tb1" || { na "$what" "$ERR"; return; }
		sa1+=" $V"
		tb_verdicts "$W/ks-tb1" >"$W/ks-v-tb.$i"
		ks_peer || { na "$what" "$ERR"; return; }
		sb+=" $V"
		peer_verdicts "$p/console.log" >"$W/ks-v-peer.$i"
		ks_tb auto "$W/ks-tb2" || { na "$what" "$ERR"; return; }
		sa2+=" $V"
		nvms=$(find "$W/ks-tb2" -maxdepth 1 -name 'console.*.log' | wc -l)
		# the longest test's own time: no schedule of the suite ends before it
		sl+=" $(jq '[.tests[].duration_s // 0] | max' "$W/ks-tb2/results.json")"
		lname=$(jq -r '.tests | max_by(.duration_s // 0) | .name' "$W/ks-tb2/results.json")
		ks_tb auto "$W/ks-iso" --isolate || { na "$what" "$ERR"; return; }
		sa3+=" $V"
		# the same verdicts as the shared VMs of -j auto, test by test
		cmp -s <(jq -r '.tests[] | "\(.name) \(.result)"' "$W/ks-tb2/results.json" | sort) \
			<(jq -r '.tests[] | "\(.name) \(.result)"' "$W/ks-iso/results.json" | sort) ||
			isodiff=$((isodiff + 1))
	done
	local n
	n=$(jq '.tests | length' "$W/ks-tb1/results.json")
	emit "$what ($n tests${QUICK:+, $targets}): tapboot --kselftest -j 1 vs run_kselftest.sh (busybox initramfs, same QEMU line)" s "<= 1.0" "$sa1" "$sb"
	emit "$what: tapboot --kselftest -j auto ($nvms VMs on $(nproc) CPUs, started from the snapshot) vs run_kselftest.sh" s "<= 0.35" "$sa2" "$sb"
	emit "$what: the longest test's own time in the -j auto runs ($lname: the bound no schedule of this suite beats) vs run_kselftest.sh" s - "$sl" "$sb"
	NOTES+=("kselftest -j auto: $lname alone takes $(awk -v a="$(stats $sl | cut -d' ' -f1)" -v b="$(stats $sb | cut -d' ' -f1)" 'BEGIN { printf "%.3f", a / b }')x of run_kselftest.sh's whole run (its own time, in the guest), so no -j can bring this suite under that ratio; the -j auto row is to be read against it.")
	emit "$what: tapboot --kselftest --isolate -j auto (each test in a VM of its own, from the snapshot) vs tapboot --kselftest -j auto (shared VMs)" s "<= 1.5" "$sa3" "$sa2"
	if [ "$isodiff" = 0 ]; then
		NOTES+=("kselftest --isolate -j auto: the same verdicts as the shared-VM -j auto run, test by test, in all $KS_REPS runs.")
	else
		NOTES+=("kselftest --isolate -j auto: verdicts differed from the shared-VM -j auto run in $isodiff of $KS_REPS runs (the results directories are in the log's runs).")
	fi
	# Verdicts test by test, in every repetition. A test that differs is then run alone on
	# both sides 6 times (same kernel, same QEMU line): if each side gives both verdicts,
	# the test's own verdict varies from run to run and the runners do not disagree.
	local diffs alone=6
	[ -n "$QUICK" ] && alone=1
	# verdicts, one per line, into "fail 1, pass 5"
	tally() { sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }'; }
	diffs=$(for ((i = 0; i < KS_REPS; i++)); do
		awk 'NR == FNR { pv[$1] = $2; pr[$1] = $0; next }
			{ v = ($1 in pv) ? pv[$1] : "absent"
			  if ($2 != v) {
				why = $0; sub(/^[^ ]+ [^ ]+ ?/, "", why)
				pwhy = pr[$1]; sub(/^[^ ]+ [^ ]+ ?/, "", pwhy)
				print $1 "\t" $2 (why != "" ? " (" why ")" : "") "\t" v (pwhy != "" ? " (" pwhy ")" : "")
			  } }' "$W/ks-v-peer.$i" "$W/ks-v-tb.$i"
	done | sort | awk -F'\t' -v reps="$KS_REPS" '
		{ k[$1]++; if (!($1 in d)) d[$1] = "tapboot " $2 ", run_kselftest.sh " $3 }
		END { for (t in k) printf "%s: %s; differed in %d of %d suite runs\n", t, d[t], k[t], reps }' | sort)
	if [ -z "$diffs" ]; then
		NOTES+=("kselftest verdicts: tapboot and run_kselftest.sh agree on all $n tests in all $KS_REPS runs.")
		return
	fi
	NOTES+=("kselftest verdicts that differ (tapboot -j 1 vs run_kselftest.sh, $KS_REPS suite runs; the rest agree), each then run alone $alone times on each side:")
	while IFS= read -r l; do
		local t=${l%%: *} tbc pc a v verdict
		say "5. $t differs: $alone runs alone on each side"
		tbc=$(for ((a = 0; a < alone; a++)); do
			rm -rf "$W/alone-tb"
			"$TAPBOOT" run "${tbargs[@]}" -j 1 -t "$t" -o "$W/alone-tb" </dev/null >>"$LOG" 2>&1
			jq -r '.tests[0].result // "none"' "$W/alone-tb/results.json" 2>/dev/null || echo none
		done | tally)
		rm -rf "$W/alone-peer"
		if "$TOP/bench/kselftest-peer.sh" "$TREE" "$W/alone-peer" -t "$t" </dev/null 2>>"$LOG"; then
			local apeer=()
			for a in "${PEER[@]}"; do
				[ "$a" = "$p/peer.cpio" ] && a=$W/alone-peer/peer.cpio
				[ "$a" = "file:$p/console.log" ] && a=file:$W/alone-peer/console.log
				apeer+=("$a")
			done
			pc=$(for ((a = 0; a < alone; a++)); do
				rm -f "$W/alone-peer/console.log"
				timeout 600 "${apeer[@]}" </dev/null >>"$LOG" 2>&1
				v=$(peer_verdicts "$W/alone-peer/console.log" | awk -v t="$t" '$1 == t { print $2 }')
				echo "${v:-none}"
			done | tally)
		else
			pc="(the peer initramfs could not be made)"
		fi
		if [[ $tbc == *,* && $pc == *,* ]]; then
			verdict="both sides give both verdicts: the test's own verdict varies from run to run, the runners do not disagree"
		else
			verdict="a disagreement of the runners, or a test that varies more rarely than this shows"
		fi
		NOTES+=("- $l; alone: tapboot $tbc; run_kselftest.sh $pc ($verdict)")
	done <<<"$diffs"
}
want 5 && ks_row

# ---- 6. -j 2 vs -j 1, one-second tests ----
if want 6; then
say "6. -j 2 vs -j 1 ($SLEEPERS one-second tests)"
if [ -n "$KX86" ]; then
	printf '#!/bin/sh\nsleep 1\n' >"$W/sleep1.sh"
	chmod 755 "$W/sleep1.sh"
	{
		echo "tapboot-manifest 1"
		echo "file $W/sleep1.sh /tests/sleep1.sh 0755"
		for i in $(seq -w 1 "$SLEEPERS"); do echo "test sleep_$i /tests/sleep1.sh"; done
	} >"$W/sleep.manifest"
	j_run() { # j_run JOBS
		RUNS=$((RUNS + 1))
		start
		run_q "$TAPBOOT" run --kernel "$KX86" --busybox -q -j "$1" -o "$W/j$RUNS" "$W/sleep.manifest" || return 1
		stop
		rm -rf "$W/j$RUNS"
	}
	j2() { j_run 2; }
	j1() { j_run 1; }
	pair "-j 2 vs -j 1, x86_64, $SLEEPERS tests of sleep 1 (tapboot run wall time)" s "<= 0.6" j2 j1 "$REPS"
else
	na "-j 2 vs -j 1" "no x86_64 kernel"
fi

fi # want 6

# ---- 7. parser throughput ----
if want 7 || want 8; then
say "7. parser throughput ($PARSE_MB MB log)"
PLOG=$BOUT/console-${PARSE_MB}M.log
if [ ! -s "$PLOG" ]; then
	gcc -std=gnu11 -O2 -o "$BOUT/parser_gen" "$TOP/bench/parser_gen.c" >>"$LOG" 2>&1 &&
		"$BOUT/parser_gen" "$PARSE_MB" >"$PLOG.tmp" && mv "$PLOG.tmp" "$PLOG"
fi
PMB=$(awk -v b="$(stat -c %s "$PLOG" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')
p_tb() { # CPU time of tapboot parse (exit 1: the log has failing tests)
	local TIMEFORMAT='%3U %3S' rc
	{ time "$TAPBOOT" parse "$PLOG" >/dev/null 2>>"$LOG"; } 2>"$W/time"
	rc=$?
	case $rc in 0 | 1) ;; *) ERR="tapboot parse failed"; return 1 ;; esac
	V=$(awk -v mb="$PMB" -v s="$(cpu_of "$W/time")" 'BEGIN { printf "%.1f", mb / s }')
}
KUNIT=$SRC/tools/testing/kunit/kunit.py
p_ku() {
	# kunit.py changes to the kernel tree: the log's path is absolute. Exit 1: failing tests.
	local TIMEFORMAT='%3U %3S'
	{ time python3 "$KUNIT" parse "$PLOG" >"$W/kunit.out" 2>&1; } 2>"$W/time"
	tail -c 300 "$W/kunit.out" | grep -q 'Testing complete' || {
		tail -5 "$W/kunit.out" >>"$LOG"
		ERR="kunit.py parse did not complete, see the log"
		return 1
	}
	V=$(awk -v mb="$PMB" -v s="$(cpu_of "$W/time")" 'BEGIN { printf "%.1f", mb / s }')
}
if [ ! -s "$PLOG" ]; then
	na "parser throughput" "could not generate the log"
else
	sa=
	[ "$WARM" = 1 ] && p_tb
	for ((i = 0; i < pr; i++)); do p_tb && sa+=" $V"; done
	if [ -n "$sa" ]; then
		emit "parser throughput, tapboot parse, $PMB MB synthetic console log (CPU time, one core)" MB/s ">= 1" "$sa" 200 "200 MB/s (the goal)"
	else
		na "parser throughput" "tapboot parse failed"
	fi
	if [ -f "$KUNIT" ]; then
		pair "parser throughput, same log: tapboot parse vs kunit.py parse (linux-source)" MB/s ">= 20" p_tb p_ku "$pr"
	else
		na "parser vs kunit.py" "no linux-source ($KUNIT)"
	fi
fi

# ---- 8. repro parse and match (issue 14) ----
# The same console as the parser's, with a kernel WARNING appended so it is a report of its own:
# repro parse reads it as a report (its lines are the dmesg, its signatures computed); repro
# match reads it as the console of an attempt against the robot-format fixture.
say "8. repro parse and match ($PMB MB console)"
RLOG=$BOUT/repro-console-${PARSE_MB}M.log
if [ -s "$PLOG" ] && [ ! -s "$RLOG" ]; then
	{ cat "$PLOG"; printf '[ 9999.000001] WARNING: CPU: 0 PID: 1 at drivers/misc/lkdtm/bugs.c:85 lkdtm_WARNING+0x1a/0x20\n'; } >"$RLOG.tmp" &&
		mv "$RLOG.tmp" "$RLOG"
fi
RMB=$(awk -v b="$(stat -c %s "$RLOG" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')
r_time() { # r_time CMD...: V = MB/s of CPU time; exit 0, 1 or 3 are answers
	local TIMEFORMAT='%3U %3S' rc
	{ time "$@" >/dev/null 2>>"$LOG"; } 2>"$W/time"
	rc=$?
	case $rc in 0 | 1 | 3) ;; *) ERR="$2 failed ($rc)"; return 1 ;; esac
	V=$(awk -v mb="$RMB" -v s="$(cpu_of "$W/time")" 'BEGIN { printf "%.1f", mb / s }')
}
if [ -s "$RLOG" ]; then
	for sub in parse match; do
		sa=
		for ((i = 0; i < ${pr:-3}; i++)); do
			if [ $sub = parse ]; then
				r_time "$TAPBOOT" repro parse "$RLOG" && sa+=" $V"
			else
				r_time "$TAPBOOT" repro match "$TOP/tests/fixtures/repro/robot-warning.txt" "$RLOG" && sa+=" $V"
			fi
		done
		if [ -n "$sa" ]; then
			emit "tapboot repro $sub, $RMB MB console (CPU time, one core)" MB/s ">= 1" "$sa" 100 "100 MB/s (the goal)"
		else
			na "tapboot repro $sub" "${ERR:-failed}"
		fi
	done
else
	na "tapboot repro parse/match" "no console log"
fi

fi # want 7 || want 8

# ---- 9. snapshot boot (issue 18): warm snapshot vs a cold boot, one trivial test ----
# Each row has a snapshot cache of its own (XDG_CACHE_HOME under $W), so what it measures does not
# depend on what ran on this machine before: a snapshot another run saved with this test's plan
# but other bytes in its files would make the first row restore with tests=load.
if want 9; then
for arch in x86_64 arm64; do
	boot_kernel "$arch" "warm snapshot, $arch" || continue
	say "9. snapshot boot, $arch"
	# one VM: the first run of an image boots cold, the second saves, the rest restore with the
	# tests in the saved RAM (tapboot.tests=keep)
	XDG_CACHE_HOME=$W/snapcache-$arch tb_boot "$arch" "$k" &&
		XDG_CACHE_HOME=$W/snapcache-$arch tb_boot "$arch" "$k" ||
		{ na "warm snapshot, $arch" "tapboot run failed, see the log"; continue; }
	s_snap() { XDG_CACHE_HOME=$W/snapcache-$arch TB_EXPECT="with this run's tests" tb_boot "$arch" "$k"; }
	c_snap() { XDG_CACHE_HOME=$W/snapcache-$arch tb_boot "$arch" "$k" --no-snapshot; }
	pair "warm snapshot, $arch, one test: tapboot run vs tapboot run --no-snapshot (wall time to exit)" s "<= 0.2" s_snap c_snap "$BOOT_REPS"
	# the same test rebuilt after the save (a new mtime: the plan and so the key are the same,
	# the tests' archive is not): restores, then the init reads the tests image (tests=load)
	mkdir -p "$W/changed-$arch"
	cp "$OUT/guest/$arch/static/pass" "$W/changed-$arch/pass"
	XDG_CACHE_HOME=$W/snapcache-changed-$arch tb_boot "$arch" "$k" "" "$W/changed-$arch/pass" &&
		XDG_CACHE_HOME=$W/snapcache-changed-$arch tb_boot "$arch" "$k" "" "$W/changed-$arch/pass" ||
		{ na "warm snapshot, changed test, $arch" "tapboot run failed, see the log"; continue; }
	touch -d '+1 min' "$W/changed-$arch/pass"
	l_snap() {
		XDG_CACHE_HOME=$W/snapcache-changed-$arch TB_EXPECT="the tests from this run's tests image" \
			tb_boot "$arch" "$k" "" "$W/changed-$arch/pass"
	}
	pair "warm snapshot, $arch, the test changed after the save (tests image read after the restore) vs tapboot run --no-snapshot" s - l_snap c_snap "$BOOT_REPS"
done
fi # want 9

# ---- 10. tapboot gate (issue 37): what a gate costs over one run, and one rerun ----
# A gate of the kselftest suite on one kernel against itself, --reruns 5: its tests that fail
# fail on both sides and are rerun 5 times a side (the flaky ones fewer), against one run.
# Then one rerun: the plan of four tests with --filter picking one, restored from the snapshot
# (its own cache, warm after two runs) against the same booted cold.
if want 10; then
say "10. tapboot gate"
GATE_REPS=${BENCH_GATE_REPS:-3}
[ -n "$QUICK" ] && GATE_REPS=1
if [ -n "$TREE" ] && [ -n "$KX86" ]; then
	gargs=(--kselftest "$TREE" --memory 1024 --smp 2 --no-history -j auto)
	[ -n "$QUICK" ] && gargs+=(--targets core,kcmp,size,sigaltstack)
	g_gate() {
		RUNS=$((RUNS + 1))
		start
		"$TAPBOOT" gate --base "$KX86" --kernel "$KX86" --reruns 5 -o "$W/gate$RUNS" "${gargs[@]}" >>"$LOG" 2>&1
		local st=$?
		stop
		[ "$st" -le 1 ] && [ -s "$W/gate$RUNS/gate.json" ] || { ERR="tapboot gate exited $st, see the log"; return 1; }
		GATE_RERUNS=$(ls -d "$W/gate$RUNS"/rerun-* 2>/dev/null | wc -l)
		rm -rf "$W/gate$RUNS"
	}
	g_run() {
		RUNS=$((RUNS + 1))
		start
		"$TAPBOOT" run --kernel "$KX86" -q -o "$W/grun$RUNS" "${gargs[@]}" >>"$LOG" 2>&1
		local st=$?
		stop
		[ "$st" -le 1 ] || { ERR="tapboot run exited $st, see the log"; return 1; }
		rm -rf "$W/grun$RUNS"
	}
	GATE_RERUNS=
	pair "gate of the kselftest suite, x86_64, one kernel against itself, --reruns 5 vs one tapboot run (wall time)" s - g_gate g_run "$GATE_REPS"
	[ -n "$GATE_RERUNS" ] && NOTES+=("Gate: the last gate of the kselftest suite made $GATE_RERUNS rerun runs (each a tapboot run of the tests that failed or disagreed, both sides).")
else
	na "gate of the kselftest suite" "no kselftest tree or x86_64 kernel"
fi
if boot_kernel x86_64 "one gate rerun from the snapshot"; then
	gg=$OUT/guest/x86_64/static
	r_one() { # r_one [--no-snapshot]
		RUNS=$((RUNS + 1))
		start
		XDG_CACHE_HOME=$W/gatecache "$TAPBOOT" run --kernel "$k" -q --no-history --filter fail -o "$W/rr$RUNS" \
			${1:-} "$gg/pass" "$gg/fail" "$gg/coin" "$gg/not612" >>"$LOG" 2>&1
		local st=$?
		stop
		[ "$st" = 1 ] || { ERR="the rerun exited $st, not 1 (its test fails), see the log"; return 1; }
		if [ -z "${1:-}" ] && ! head -n1 "$W/rr$RUNS/console.log" | grep -q '^tapboot: VM 1 started from snapshot '; then
			ERR="a warm rerun did not start from the snapshot"
			return 1
		fi
		rm -rf "$W/rr$RUNS"
	}
	r_warm() { r_one; }
	r_cold() { r_one --no-snapshot; }
	# the first run of the plan boots cold, the second saves: the rest restore
	XDG_CACHE_HOME=$W/gatecache run_q "$TAPBOOT" run --kernel "$k" -q --no-history -o "$W/rr-a" "$gg/pass" "$gg/fail" "$gg/coin" "$gg/not612"
	XDG_CACHE_HOME=$W/gatecache run_q "$TAPBOOT" run --kernel "$k" -q --no-history -o "$W/rr-b" "$gg/pass" "$gg/fail" "$gg/coin" "$gg/not612"
	rm -rf "$W/rr-a" "$W/rr-b"
	pair "one gate rerun, x86_64: one test of four by --filter, from the snapshot vs booted cold (wall time)" s - r_warm r_cold "$BOOT_REPS"
fi
fi # want 10

# ---- the table ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
qv=$(qemu-system-x86_64 --version 2>/dev/null | head -1)
{
	echo "# tapboot benchmarks${QUICK:+ (QUICK MODE: one repetition, no warm-up, small inputs: not figures to quote)}"
	echo
	echo "Generated by \`make bench\` (bench/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'):"
	echo "$(nproc) CPUs ($cpu), Linux $(uname -r), $qv, TCG (KVM does not boot guests here)."
	echo "Load average at the start: $LOAD0 (a shared machine: ratios are what to read, not absolute times)."
	echo
	echo "Each row: a warm-up of both sides, then runs interleaved A B, B A, A B, ... (repetitions: $REPS for"
	echo "builds, the per-test and -j rows, $pr for the parser, $BOOT_REPS for the boot-to-result rows, $KS_REPS for"
	echo "the kselftest suite); medians, min-max."
	echo "Ratio = tapboot's median / the peer's in the row's unit: for seconds lower is better, for MB/s"
	echo "higher. Goals are the issues' (3: builder, 4: init, 5: runner, 6: parser, 7: kselftest, 14: repro,"
	echo "18: snapshot boot, the cold boot with one vCPU and the init's per-test time)."
	echo
	echo "| what | tapboot | peer | ratio | goal | met | tapboot min-max | peer min-max |"
	echo "|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${ROWS[@]}"
	if [ ${#NOTES[@]} -gt 0 ]; then
		echo
		printf '%s\n' "${NOTES[@]}"
	fi
} >"$W/results.md"
cat "$W/results.md"
mkdir -p "$(dirname "$RESULTS")"
# the section of measurements made by hand (moved from the README) is kept as it is
if [ -f "$RESULTS" ] && grep -q '^## Measured by hand' "$RESULTS"; then
	{ echo; sed -n '/^## Measured by hand/,$p' "$RESULTS"; } >>"$W/results.md"
fi
cp "$W/results.md" "$RESULTS"
echo "bench: written to $RESULTS (log of the commands: kept only on failure)" >&2
if grep -q '| n/a (' "$W/results.md"; then
	cp "$LOG" "$BOUT/bench.log"
	echo "bench: some rows are n/a; the commands' output is in $BOUT/bench.log" >&2
	exit 1
fi
