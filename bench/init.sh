#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# init.sh [ARCH] [N]: the guest init's per-test overhead (fork, exec, wait, output capture,
# clean-up sweep, kernel-health checks, console lines) against a busybox shell loop running the
# same empty test N times, both timed with CLOCK_MONOTONIC inside the guest (TCG), in
# BENCH_INIT_ROUNDS (4) alternating rounds in one boot.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$TOP/build}
TAPBOOT=${TAPBOOT:-$OUT/tapboot}
arch=${1:-x86_64}
n=${2:-${BENCH_QUICK:+20}}
n=${n:-100}
g=$OUT/guest/$arch
for f in "$g/static/empty" "$g/static/clock" "$g/scripts/loop.sh" "$TAPBOOT"; do
	[ -x "$f" ] || { echo "bench/init.sh: $f is not built: run make" >&2; exit 2; }
done
kernel=$("$TOP/scripts/fetch-kernel.sh" "$arch")
work=$(mktemp -d "${TMPDIR:-/tmp}/tapboot-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# In R alternating rounds (init k tests, then the shell loop k times, R times; k = N/R): the
# host's speed drifts within one boot (a neighbour's load comes and goes), and one block of each
# side lets that drift land on one side only.
r=${BENCH_INIT_ROUNDS:-4}
k=$(( (n + r - 1) / r ))
{
	echo "tapboot-manifest 1"
	echo "file $g/static/empty /tests/empty 0755"
	echo "file $g/static/clock /tests/clock 0755"
	echo "file $g/scripts/loop.sh /tests/loop.sh 0755"
	for j in $(seq "$r"); do
		echo "test clock_start_$j /tests/clock"
		for i in $(seq -w 1 "$k"); do echo "test empty_${j}_$i /tests/empty"; done
		echo "test clock_end_$j /tests/clock"
		echo "test shell_loop_$j /tests/loop.sh"
		echo "    arg $k"
	done
} >"$work/manifest"
"$TAPBOOT" run --kernel "$kernel" --busybox -q -o "$work/out" "$work/manifest" \
	>/dev/null || { echo "bench/init.sh: the run failed, see $work/out" >&2; trap - EXIT; exit 1; }
# four clock lines a round: the init's block starts and ends, the shell loop's starts and ends
tr -d '\r' <"$work/out/console.log" | sed -n 's/^ *# clock: \([0-9.]*\)$/\1/p' >"$work/clocks"
[ "$(wc -l <"$work/clocks")" -eq $((4 * r)) ] ||
	{ echo "bench/init.sh: expected $((4 * r)) clock lines, got $(wc -l <"$work/clocks")" >&2; exit 1; }
awk -v k="$k" -v r="$r" -v arch="$arch" '{ t[NR] = $1 } END {
	for (i = 1; i <= NR; i += 4) { a += t[i + 1] - t[i]; b += t[i + 3] - t[i + 2] }
	# between the two clock readings of a round: k tests and the clock test itself; the loop: k
	init = a / (r * (k + 1)) * 1000; shell = b / (r * k) * 1000
	printf "%-8s %-34s %8.2f ms/test\n", arch, "init (" r "x" k " empty tests)", init
	printf "%-8s %-34s %8.2f ms/test\n", arch, "busybox sh loop (same test)", shell
	printf "%-8s %-34s %8.2f ms/test\n", arch, "init overhead over the loop", init - shell
}' "$work/clocks"
