#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh: runs each test program (TAP on stdout), keeps its log, and prints the totals.
# A program that exits non-zero, or whose plan does not match its test lines, counts as failed.
set -u
logdir=${OUT:-build}/test-logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0
failed_names=()
for t in "$@"; do
	name=$(basename "$t")
	log="$logdir/$name.log"
	start=$(date +%s)
	if [ -x "$t" ]; then
		"$t" </dev/null >"$log" 2>&1
		rc=$?
	else
		echo "not ok 1 - $t is not executable" >"$log"
		rc=1
	fi
	secs=$(($(date +%s) - start))
	p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+([^\\#]|\\.)*# (SKIP|skip)' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	plan=$(grep -E '^1\.\.[0-9]+' "$log" | tail -1 | sed 's/^1\.\.//; s/ .*//')
	p=$((p - s))
	status=ok
	if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
		status=FAIL
	elif [ -z "$plan" ] || [ "$plan" -ne $((p + s + f)) ]; then
		status="FAIL (plan ${plan:-none}, ran $((p + s + f)))"
		f=$((f + 1))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-28s %4d passed %3d failed %3d skipped %4ds  %s\n' "$name" "$p" "$f" "$s" "$secs" "$status"
	if [ "$status" != ok ]; then
		failed_names+=("$name")
		grep -E '^(not ok|# )' "$log" | head -40 | sed 's/^/    /'
		echo "    (full log: $log)"
	fi
done
[ ${#failed_names[@]} -gt 0 ] && echo "failed programs: ${failed_names[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#failed_names[@]} -eq 0 ]
