#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 65-lava.sh: tapboot lava-job's jobs run under Debian 12's real lava-run (2023.01, extracted by
# scripts/lava-setup.sh) with real QEMU and Debian's kernels on x86_64 and arm64, and tapboot
# lava-results of LAVA's log gives the verdicts and exit status tapboot run gives (a kernel
# panic and a timeout among them); every exported job passes lava-common's strict schema;
# bad logs (not LAVA's, truncated, never booted, contradicted) are never a pass.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || unshare -r -m true 2>/dev/null ||
	bail "lava-run 2023.01 needs root or a user namespace (unshare -r -m) for its fixed /var/lib/lava"
LAVA=$("$TOP/scripts/lava-setup.sh" 2>"$WORK/lava-setup.err") ||
	bail "scripts/lava-setup.sh failed: $(tail -3 "$WORK/lava-setup.err")"
validate() { # validate JOB.yaml...: lava-common's strict submission schema
	(. "$LAVA/env.sh" && /usr/bin/python3 "$TOP/tests/lava-validate.py" "$@")
}
lava_run() { # lava_run JOBDIR ID: lava-run with a private /var/lib/lava; the log is JOBDIR/lava.log
	mkdir -p "$1/var-lib-lava" "$1/lava-out"
	"$LAVA/lava-run.sh" "$1/var-lib-lava" --job-id "$2" --output-dir "$1/lava-out" \
		--device "$1/device.yaml" --dispatcher "$1/dispatcher.yaml" "$1/job.yaml" 2>"$1/lava.log"
}
verdicts() { jq -c '[.tests[] | [.name, .result]]' "$1/results.json" 2>/dev/null; }

for arch in x86_64 arm64; do
	k=$(kernel "$arch")
	g=$GUEST/$arch/static
	if [ "$arch" = x86_64 ]; then
		set -- "$g/pass" "$g/fail" "$g/skip" "$g/xfail" "$g/hang" "$g/panic" "$GUEST/$arch/scripts/hello.sh"
		want='[["pass","pass"],["fail","fail"],["skip","skip"],["xfail","xfail"],["hang","timeout"],["panic","crash"],["hello.sh","missing"]]'
	else
		set -- "$g/pass" "$g/fail" "$g/hang" "$g/panic"
		want='[["pass","pass"],["fail","fail"],["hang","timeout"],["panic","crash"]]'
	fi

	"$TAPBOOT" run --kernel "$k" -o "$WORK/run-$arch" -q --timeout 3 --kcidb-origin lab_ci "$@" >/dev/null 2>&1
	run_rc=$?
	is "$(verdicts "$WORK/run-$arch")" "$want" "$arch: tapboot run's verdicts"
	is "$(jq -c '[(.builds[0].id | test("^lab_ci:[0-9a-f]{32}:build$")), .tests[0].environment.comment,
		.tests[0].misc.reproduce, (.tests[0].start_time | test("^20[0-9-]{8}T[0-9:]{8}[.][0-9]{3}Z$"))]' \
		"$WORK/run-$arch/kcidb.json")" \
		"[true,\"QEMU $arch -M $(sed -n 's/^machine = //p' "$TOP/configs/$arch.conf"), tcg\",\"reproduce.sh\",true]" \
		"$arch: run --kcidb-origin: ids, environment, misc, start_time"

	j=$WORK/job-$arch
	"$TAPBOOT" lava-job --kernel "$k" -o "$j" -q --timeout 3 "$@" >"$WORK/lava-job.out" 2>&1
	is "$?" 0 "$arch: lava-job writes the job"
	"$TAPBOOT" build --arch "$arch" -o "$WORK/build-$arch.cpio" --timeout 3 "$@" >/dev/null 2>&1
	cmp -s "$j/initramfs.cpio" "$WORK/build-$arch.cpio"
	ok $? "$arch: the job's image is the same bytes as tapboot build's"
	rm -f "$WORK/build-$arch.cpio"
	cmp -s "$j/$(basename "$k")" "$k"
	ok $? "$arch: the job carries the kernel"
	nonce=$(sed -n "s/^  tapboot.nonce: '\([0-9a-f]*\)'$/\1/p" "$j/job.yaml")
	like "$(grep -- '-append' "$j/job.yaml")" "rdinit=/init .*tapboot.nonce=$nonce tapboot.timeout=3\"'$" \
		"$arch: the kernel command line is run's, with the job's nonce"
	is "$(validate "$j/job.yaml")" "$j/job.yaml: ok" "$arch: the job passes lava-common's strict schema"

	lava_run "$j" 1
	is "$?" 0 "$arch: lava-run ends the job cleanly (the panic ends the monitor, not the connection)"
	is "$(tr '\n' ' ' <"$j/lava-out/result.yaml" 2>/dev/null)" "case: job definition: lava result: pass " \
		"$arch: LAVA's job result is pass, no infrastructure error"
	like "$(grep -m1 'Boot command: ' "$j/lava.log")" "qemu-system-[a-z0-9_]+ -nographic .* tapboot.nonce=$nonce " \
		"$arch: LAVA booted real QEMU with the job's command line"

	"$TAPBOOT" lava-results -o "$WORK/lava-$arch" --job "$j/job.yaml" "$j/lava.log" >/dev/null 2>"$WORK/err-$arch"
	is "$?" "$run_rc" "$arch: lava-results exits as tapboot run did ($run_rc)"
	is "$(verdicts "$WORK/lava-$arch")" "$want" "$arch: lava-results gives tapboot run's verdicts"
	is "$(jq -r '.tests[] | select(.name == "panic") | .reason' "$WORK/lava-$arch/results.json")" \
		"$(jq -r '.tests[] | select(.name == "panic") | .reason' "$WORK/run-$arch/results.json")" \
		"$arch: the crash is attributed to panic with run's reason"
	is "$(jq -r '[.tests[] | select(.log_url)] | length' "$WORK/lava-$arch/kcidb.json")" \
		"$(jq -r '.tests | length' "$WORK/lava-$arch/kcidb.json")" "$arch: every KCIDB test has the log as log_url"
	rm -rf "$j/var-lib-lava"
done

# The same log as lavacli jobs logs --raw / the REST logs endpoint give it: a YAML list.
j=$WORK/job-x86_64
sed 's/^/- /' "$j/lava.log" >"$WORK/raw.log"
"$TAPBOOT" lava-results -o "$WORK/lava-raw" --job-url https://lava.example.org/scheduler/job/7 \
	--job "$j/job.yaml" "$WORK/raw.log" >/dev/null 2>&1
is "$?" 3 "lavacli --raw form: exit 3 (the panic)"
is "$(verdicts "$WORK/lava-raw")" "$(verdicts "$WORK/lava-x86_64")" "lavacli --raw form: the same verdicts"
is "$(jq -r '.tests[0].log_url' "$WORK/lava-raw/kcidb.json")" https://lava.example.org/scheduler/job/7 \
	"--job-url is kcidb.json's log_url"
is "$(grep -c '^  reason: "exit 1"$' "$WORK/lava-raw/console.log")" 1 "2023.x's \\\" escaping is undone in the console"

# Bad logs: never a pass.
"$TAPBOOT" lava-results -o "$WORK/bad0" --job "$WORK/job-arm64/job.yaml" "$j/lava.log" >/dev/null 2>"$WORK/err-bad0"
is "$?" 2 "the log of another job: exit 2"
like "$(cat "$WORK/err-bad0")" "^tapboot: '$j/lava.log' is not the log of '$WORK/job-arm64/job.yaml': its boot command carries nonce [0-9a-f]{32}, the job [0-9a-f]{32}$" \
	"the log of another job: said so"
"$TAPBOOT" lava-results -o "$WORK/bad1" "$WORK/run-x86_64/console.log" >/dev/null 2>"$WORK/err-bad1"
is "$?" 2 "not a LAVA log: exit 2"
like "$(cat "$WORK/err-bad1")" "^tapboot: $WORK/run-x86_64/console.log:1: not a LAVA job log line: " \
	"not a LAVA log: the message names the file and line"
[ ! -e "$WORK/bad1" ]
ok $? "not a LAVA log: no results directory left behind"
n=$(grep -n 'tapboot: run 2 ' "$j/lava.log" | cut -d: -f1)
head -n "$n" "$j/lava.log" | head -c -20 >"$WORK/trunc.log"
"$TAPBOOT" lava-results -o "$WORK/bad2" --job "$j/job.yaml" "$WORK/trunc.log" >/dev/null 2>"$WORK/err-bad2"
is "$?" 3 "a truncated log: exit 3"
like "$(cat "$WORK/err-bad2")" "the LAVA log ends before the job's result \(truncated\)" "a truncated log: said so"
is "$(jq -c '[.complete, ([.tests[] | .result] | join(","))]' "$WORK/bad2/results.json")" \
	'[false,"pass,crash,missing,missing,missing,missing,missing"]' "a truncated log: results so far kept, the rest missing"
grep -v '"lvl": "target"' "$j/lava.log" | grep -v '"definition": "tapboot"' >"$WORK/noboot.log"
"$TAPBOOT" lava-results -o "$WORK/bad3" --job "$j/job.yaml" "$WORK/noboot.log" >/dev/null 2>"$WORK/err-bad3"
is "$?" 3 "a job that never booted: exit 3"
like "$(cat "$WORK/err-bad3")" "the job never reached tapboot's init" "a job that never booted: said so"
sed 's/"case": "fail", "definition": "tapboot", "extra": {"test_case_id": "fail"}, "level": "3.1", "result": "fail"/"case": "fail", "definition": "tapboot", "extra": {"test_case_id": "fail"}, "level": "3.1", "result": "pass"/' \
	"$WORK/job-arm64/lava.log" >"$WORK/contra.log"
"$TAPBOOT" lava-results -o "$WORK/bad4" "$WORK/contra.log" >/dev/null 2>"$WORK/err-bad4"
is "$?" 3 "LAVA contradicting tapboot: exit 3"
like "$(cat "$WORK/err-bad4")" "^tapboot: LAVA recorded 'fail' as pass, tapboot's parser as fail$" \
	"LAVA contradicting tapboot: said so"

# Conversions of the same LAVA run keep its ids (KCIDB merges a resubmission instead of counting
# the run twice); each validates on its own. Their kcidb.json are then removed, so that the
# final check of this script (ids distinct across runs) compares distinct runs only.
if [ -f "$KCIDB_SCHEMA" ]; then
	/usr/bin/python3 "$TOP/tests/kcidb-check.py" "$WORK/lava-raw" "$WORK/bad2" "$WORK/bad3" "$WORK/bad4"
	ok $? "kcidb.json of the bad-log and --raw conversions validate against v5.3"
else
	skip "kcidb.json of the bad-log and --raw conversions validate against v5.3" \
		"$(shared_missing "KCIDB schema" "$KCIDB_SCHEMA")"
fi
is "$(jq -r '.builds[0].id' "$WORK/lava-raw/kcidb.json")" "$(jq -r '.builds[0].id' "$WORK/lava-x86_64/kcidb.json")" \
	"the same LAVA run converted twice: the same ids"
isnt_run=$(jq -r '.builds[0].id' "$WORK/run-x86_64/kcidb.json")
[ "$isnt_run" != "$(jq -r '.builds[0].id' "$WORK/lava-x86_64/kcidb.json")" ]
ok $? "tapboot run and the LAVA job of the same tests are two runs: different ids"
rm -f "$WORK/lava-raw/kcidb.json" "$WORK/bad2/kcidb.json" "$WORK/bad3/kcidb.json" "$WORK/bad4/kcidb.json"

# Every architecture's export fits the stock qemu device type and lava-common's strict schema.
jobs=()
for arch in i386 arm ppc64le; do
	k=$(kernel "$arch")
	"$TAPBOOT" lava-job --kernel "$k" -o "$WORK/export-$arch" -q "$GUEST/$arch/static/pass" >/dev/null 2>&1
	ok $? "$arch: lava-job writes the job"
	jobs+=("$WORK/export-$arch/job.yaml")
done
is "$(grep -E '^  (arch|cpu|machine|no_kvm):' "$WORK/export-ppc64le/job.yaml" | tr -d '\n')" "  arch: ppc64  no_kvm: true" \
	"ppc64le: arch ppc64 (2023.01's qemu type has no ppc64le), no_kvm"
like "$(cat "$WORK/export-ppc64le/job.yaml")" "- '-machine pseries,x-vof=on'" "ppc64le: machine in extra_options"
is "$(grep -E '^  (cpu|machine):' "$WORK/export-arm/job.yaml" | tr -d '\n')" "  machine: 'virt,highmem=off'  cpu: 'cortex-a15'" \
	"arm: cpu cortex-a15 (qemu-system-arm 7.2 has no cortex-a57)"
"$TAPBOOT" lava-job --kernel "$(kernel x86_64)" -o "$WORK/export-kvm" --kvm --url-base https://files.example.org/t1 \
	-q "$GUEST/x86_64/static/pass" >/dev/null 2>&1
ok $? "x86_64 --kvm --url-base: written"
jobs+=("$WORK/export-kvm/job.yaml")
like "$(cat "$WORK/export-kvm/job.yaml")" "url: 'https://files.example.org/t1/initramfs.cpio'" "--url-base: the URLs a lab's worker fetches"
is "$(grep -c 'no_kvm' "$WORK/export-kvm/job.yaml")" 0 "--kvm: no no_kvm"
out=$(validate "${jobs[@]}")
is "$(echo "$out" | grep -c ': ok$')" 4 "i386, arm, ppc64le and --kvm jobs pass lava-common's strict schema"
sed 's/^  no_kvm: true$/  no_kvm: true\n  no_network: true/' "$WORK/export-arm/job.yaml" >"$WORK/unknown-ctx.yaml"
like "$(validate "$WORK/unknown-ctx.yaml")" "no_network" "the strict schema rejects a context key it does not know"
cp "$GUEST/x86_64/static/pass" "$WORK/Pass"
"$TAPBOOT" lava-job --kernel "$(kernel x86_64)" -o "$WORK/export-dup" -q "$GUEST/x86_64/static/pass" \
	"$WORK/Pass" >/dev/null 2>"$WORK/err-dup"
is "$?" 2 "two tests LAVA would name alike: exit 2"
like "$(cat "$WORK/err-dup")" "tests 'pass' and 'Pass' are both 'pass' in LAVA" "two tests LAVA would name alike: said so"
[ ! -e "$WORK/export-dup/job.yaml" ]
ok $? "two tests LAVA would name alike: no job left behind"
done_testing
