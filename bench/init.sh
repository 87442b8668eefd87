#!/bin/bash
# init.sh [ARCH] [N]: the guest init's per-test overhead (fork, exec, wait, output capture,
# clean-up sweep, kernel-health checks, console lines) against a busybox shell loop running the
# same empty test N times, both timed with CLOCK_MONOTONIC inside the guest (TCG).
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
{
	echo "tapboot-manifest 1"
	echo "file $g/static/empty /tests/empty 0755"
	echo "file $g/static/clock /tests/clock 0755"
	echo "file $g/scripts/loop.sh /tests/loop.sh 0755"
	echo "test clock_start /tests/clock"
	for i in $(seq -w 1 "$n"); do echo "test empty_$i /tests/empty"; done
	echo "test clock_end /tests/clock"
	echo "test shell_loop /tests/loop.sh"
	echo "    arg $n"
} >"$work/manifest"
"$TAPBOOT" run --kernel "$kernel" --busybox -q -o "$work/out" "$work/manifest" \
	>/dev/null || { echo "bench/init.sh: the run failed, see $work/out" >&2; trap - EXIT; exit 1; }
mapfile -t t < <(tr -d '\r' <"$work/out/console.log" | sed -n 's/^ *# clock: \([0-9.]*\)$/\1/p')
[ "${#t[@]}" -eq 4 ] || { echo "bench/init.sh: expected 4 clock lines, got ${#t[@]}" >&2; exit 1; }
awk -v a="${t[0]}" -v b="${t[1]}" -v c="${t[2]}" -v d="${t[3]}" -v n="$n" -v arch="$arch" 'BEGIN {
	init = (b - a) / (n + 1) * 1000; shell = (d - c) / n * 1000
	printf "%-8s %-34s %8.2f ms/test\n", arch, "init (" n " empty tests)", init
	printf "%-8s %-34s %8.2f ms/test\n", arch, "busybox sh loop (same test)", shell
	printf "%-8s %-34s %8.2f ms/test\n", arch, "init overhead over the loop", init - shell
}'
