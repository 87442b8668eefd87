#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 60-repro.sh: tapboot repro run on the crash-on-demand kernel (scripts/build-test-kernel.sh,
# LKDTM through debugfs): a WARNING report against the WARNING test is reproduced, against a
# test that does nothing it is not, against the EXCEPTION test it is "other"; --bisect's codes;
# -n 3 counts; tapboot parse of the crash gives its title and ids in results.json.
. "$(dirname "$0")/lib.sh"

kdir=$("$TOP/scripts/build-test-kernel.sh" x86_64) || bail "cannot build the test kernel: scripts/build-test-kernel.sh x86_64 (needs linux-source-6.1, flex, bison, bc)"
fx=$TOP/tests/fixtures/repro
report=$fx/robot-warning.txt
id=WARNING:at_drivers/misc/lkdtm/bugs.c:#lkdtm_WARNING

printf '#!/bin/sh\necho WARNING > /sys/kernel/debug/provoke-crash/DIRECT\n' >"$WORK/lkdtm_warning"
printf '#!/bin/sh\necho EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT\n' >"$WORK/lkdtm_exception"
printf '#!/bin/sh\nexit 0\n' >"$WORK/nothing"
chmod +x "$WORK/lkdtm_warning" "$WORK/lkdtm_exception" "$WORK/nothing"

# The WARNING test reproduces the WARNING report: exit 1, "reproduced 1/1", its results kept.
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/w" "$WORK/lkdtm_warning" >"$WORK/o-w" 2>"$WORK/e-w"
is "$?" 1 "WARNING report, WARNING test: reproduced, exit 1"
like "$(cat "$WORK/o-w")" "^reproduced 1/1: $id" "WARNING: says reproduced 1/1 with the id"
like "$(cat "$WORK/o-w")" "attempt 1: reproduced: $id \($WORK/w/attempt-1/console.log:[0-9]+\)" "WARNING: names the console line"
ok "$(test -s "$WORK/w/attempt-1/reproduce.sh"; echo $?)" "WARNING: the attempt's reproduce.sh is written"
like "$(cat "$WORK/o-w")" "^report: $id on commit 5a6d0d2b7c1e9f4a3b2c1d0e9f8a7b6c5d4e3f21" "WARNING: names the report's signature and commit"
ok "$(grep -q '^config:' "$WORK/o-w"; test $? -ne 0; echo $?)" "WARNING: the kernel has what the signature implies (LKDTM): no config line"

# tapboot parse of that console: results.json names the crash.
"$TAPBOOT" parse --format json "$WORK/w/attempt-1" >"$WORK/parse.json" 2>/dev/null
is "$(jq -r .crash.title "$WORK/parse.json")" "WARNING in lkdtm_WARNING" "tapboot parse: results.json crash title"
is "$(jq -r '.crash.ids[0]' "$WORK/parse.json")" "$id" "tapboot parse: results.json crash id"

# A test that does nothing: not reproduced, exit 0; with --bisect: good (0).
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/n" --bisect "$WORK/nothing" >"$WORK/o-n" 2>&1
is "$?" 0 "do-nothing test: not reproduced, exit 0 (--bisect: good)"
like "$(cat "$WORK/o-n")" "^not reproduced 0/1" "do-nothing test: says not reproduced 0/1"

# The EXCEPTION test: another crash, "other", exit 3; with --bisect 125 (cannot test).
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/x" "$WORK/lkdtm_exception" >"$WORK/o-x" 2>&1
is "$?" 3 "EXCEPTION test: other, exit 3"
like "$(cat "$WORK/o-x")" "attempt 1: other: BUG:kernel_NULL_pointer_dereference,address" "EXCEPTION test: names the other crash"
"$TAPBOOT" repro match "$report" "$WORK/x/attempt-1/console.log" >"$WORK/o-m" 2>&1
is "$?" 3 "repro match on the EXCEPTION console: other, exit 3"
"$TAPBOOT" parse --format json "$WORK/x/attempt-1" >"$WORK/parse-x.json" 2>/dev/null
is "$(jq -r .crash.title "$WORK/parse-x.json")" "BUG: unable to handle kernel NULL pointer dereference in lkdtm_EXCEPTION" "tapboot parse: the Oops's title"
like "$(jq -r '.crash.ids | join(" ")' "$WORK/parse-x.json")" "RIP:lkdtm_EXCEPTION" "tapboot parse: the Oops's RIP id"

# --bisect: bad (1) for the WARNING; a bad report aborts the bisection (255).
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/b" --bisect "$WORK/lkdtm_warning" >/dev/null 2>&1
is "$?" 1 "--bisect: reproduced is bad (1)"
"$TAPBOOT" repro run "$fx/bad-not-a-report.txt" --kernel "$kdir" --bisect "$WORK/lkdtm_warning" >/dev/null 2>"$WORK/e-b"
is "$?" 255 "--bisect: a bad report aborts (255)"
"$TAPBOOT" repro run "$fx/bad-not-a-report.txt" --kernel "$kdir" "$WORK/lkdtm_warning" >/dev/null 2>&1
is "$?" 2 "a bad report without --bisect: exit 2"
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/xb" --bisect "$WORK/lkdtm_exception" >/dev/null 2>&1
is "$?" 125 "--bisect: another crash first is cannot-test (125)"

# -n 3 --all counts every attempt, here with the multipart report: its config has
# PROVE_LOCKING, which the test kernel lacks; its job-script's command line is used.
"$TAPBOOT" repro run "$fx/multipart.eml" --kernel "$kdir" -o "$WORK/n3" -n 3 --all "$WORK/lkdtm_warning" >"$WORK/o-n3" 2>&1
is "$?" 1 "-n 3 --all: exit 1"
like "$(cat "$WORK/o-n3")" "^reproduced 3/3: $id" "-n 3 --all: reproduced 3/3"
is "$(ls -d "$WORK/n3"/attempt-* | wc -l)" 3 "-n 3 --all: three results directories"
like "$(cat "$WORK/o-n3")" "^config: the kernel lacks what the report's config has: CONFIG_PROVE_LOCKING$" "config gap: PROVE_LOCKING named"
like "$(cat "$WORK/o-n3")" "^machine: the report's 16384 MB of memory capped at 2048 MB$" "machine: the report's memory capped, said"
like "$(cat "$WORK/n3/attempt-1/reproduce.sh")" "initcall_debug vmalloc=256M" "the job-script's command line reaches the kernel"
"$TAPBOOT" repro run "$report" --kernel "$kdir" -o "$WORK/n3b" -n 3 "$WORK/nothing" >"$WORK/o-n3b" 2>&1
is "$?" 0 "-n 3 with the do-nothing test: exit 0"
like "$(cat "$WORK/o-n3b")" "^not reproduced 0/3" "-n 3 with the do-nothing test: not reproduced 0/3"
done_testing
