#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 05-plain-clone.sh: a user's clone has no ../shared: the checks that compare with other
# projects' data (KCIDB's schema, lkp's dmesg pairs) skip there, naming the path and
# TAPBOOT_SHARED, and the tests holding them pass. No boot. The tree is cloned into a fresh
# directory and the working tree's changes (tracked and untracked files) laid over it; only
# the affected tests run there: test_crash_sig (built in the clone against this build's
# sanitizer libraries) and 60-kcidb.sh (which also covers lib.sh's kcidb_check_all).
. "$(dirname "$0")/lib.sh"

git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || bail "$TOP is not a git checkout: this test clones it"
for f in libtapboot-san.a libinit-host-san.a; do
	[ -f "$OUT/$f" ] || bail "$OUT/$f is not built: run make unit"
done

C=$WORK/tapboot # so that $C/../shared does not exist
git clone -q "$TOP" "$C" || bail "cannot clone $TOP"
git -C "$TOP" diff HEAD --binary | git -C "$C" apply --allow-empty || bail "cannot apply the working tree's changes"
(cd "$TOP" && git ls-files -z -o --exclude-standard | tar --null -T - -cf -) | tar -C "$C" -xf - ||
	bail "cannot copy the untracked files"
ok $? "a clone of the working tree, without ../shared beside it"

# the sanitizer libraries are this build's (the same sources): only the test is compiled
mkdir -p "$C/build"
cp "$OUT/libtapboot-san.a" "$OUT/libinit-host-san.a" "$C/build/"
make -s -C "$C" O="$C/build" -o "$C/build/libtapboot-san.a" -o "$C/build/libinit-host-san.a" \
	"$C/build/tests/unit/test_crash_sig" >"$WORK/make.log" 2>&1
rc=$?
ok $rc "test_crash_sig builds in the clone"
[ $rc -eq 0 ] || sed 's/^/# /' "$WORK/make.log" | tail -20

env -u TAPBOOT_SHARED TAPBOOT="$TAPBOOT" OUT="$C/build" "$C/tests/run.sh" \
	"$C/build/tests/unit/test_crash_sig" "$C/tests/boot/60-kcidb.sh" >"$WORK/run.out" 2>&1
rc=$?
ok $rc "test_crash_sig and 60-kcidb.sh pass in the clone"
[ $rc -eq 0 ] || sed 's/^/# /' "$WORK/run.out" | tail -30
like "$(tail -1 "$WORK/run.out")" "^[1-9][0-9]* passed, 0 failed, 5 skipped$" \
	"tests/run.sh's closing line counts the 5 checks that need shared data as skipped"

reason_lkp="no lkp dmesg pairs: cannot open $C/../shared/zeroday/lkp-dmesg: No such file or directory (set TAPBOOT_SHARED)"
is "$(grep -c '# SKIP' "$C/build/test-logs/test_crash_sig.log")" 1 "test_crash_sig: one skip"
is "$(sed -n 's/^ok 1 - .* # SKIP //p' "$C/build/test-logs/test_crash_sig.log")" "$reason_lkp" \
	"test_crash_sig: the lkp pairs skip, naming the directory and TAPBOOT_SHARED"
reason_kcidb="no KCIDB schema: '$C/../shared/kcidb/kcidb-io.schema.v5.3.json' does not exist (set TAPBOOT_SHARED)"
is "$(sed -n 's/^ok [0-9]* - .* # SKIP //p' "$C/build/test-logs/60-kcidb.sh.log" | sort -u)" "$reason_kcidb" \
	"60-kcidb.sh: every skip names the schema's path and TAPBOOT_SHARED"
is "$(grep -c '# SKIP' "$C/build/test-logs/60-kcidb.sh.log")" 4 \
	"60-kcidb.sh: 4 skips (validation, the checker's strictness, the server's rejection, kcidb_check_all)"

# the checker itself without its schema: exit 2, the same hint
env -u TAPBOOT_SHARED /usr/bin/python3 "$C/tests/kcidb-check.py" "$TOP/tests/fixtures" >/dev/null 2>"$WORK/check.err"
is "$?" 2 "kcidb-check.py without the schema: exit 2"
like "$(cat "$WORK/check.err")" "^kcidb-check: cannot read the schema '$C/../shared/kcidb/kcidb-io.schema.v5.3.json': .*\(set TAPBOOT_SHARED\)$" \
	"kcidb-check.py without the schema: names it and TAPBOOT_SHARED"
done_testing
