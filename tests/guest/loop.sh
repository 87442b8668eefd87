#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# loop.sh N: the baseline of the init benchmark: runs /tests/empty N times from a busybox shell
# loop between two /tests/clock calls. Expected verdict: pass (exit 0).
n=${1:-100}
/tests/clock
i=0
while [ "$i" -lt "$n" ]; do
	/tests/empty || exit 1
	i=$((i + 1))
done
/tests/clock
