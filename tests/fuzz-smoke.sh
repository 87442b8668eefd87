#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fuzz-smoke.sh: a short fuzz run of every harness in fuzz/ (make check); `make fuzz` runs
# longer. Each harness is one TAP test: it builds, replays fuzz/regress/, and fuzzes for a
# few seconds without a crash.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SECONDS:-4}
n=0
failed=0
for h in tap_parser sequencing plan json arch_config kselftest_settings inputs; do
	n=$((n + 1))
	if log=$("$top/fuzz/run.sh" "$secs" "$h" 2>&1); then
		echo "ok $n - fuzz $h (${secs}s, $(echo "$log" | sed -n 's/.*executions: //p') executions)"
	else
		echo "not ok $n - fuzz $h"
		echo "$log" | tail -20 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
