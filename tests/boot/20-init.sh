#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 20-init.sh: issue 4's real boots: one boot per architecture (x86_64, arm64) with every guest
# program that tries to break the init (daemon holding stdout, closed stdout, 10 MB flood, bytes
# that are not UTF-8, kill(0, SIGKILL), signals to PID 1, a tainted kernel, a hang). Each gets
# its verdict and every later test still runs. Expected verdicts: tests/guest/*.c headers.
. "$(dirname "$0")/lib.sh"

# field DIR NAME JQ-EXPR: a field of test NAME in DIR/results.json
field() {
	jq -r --arg n "$2" "[.tests[] | select(.name == \$n) | $3] | .[0] // \"absent\"" \
		"$1/results.json" 2>/dev/null || echo "no results.json"
}

order="pass fail skip xfail segv own_tap daemon hang closeout flood badutf8 killpg sigpid1 warn"
for arch in x86_64 arm64; do
	k=$(kernel "$arch")
	g=$GUEST/$arch/static
	[ -x "$g/warn" ] || bail "guest tests for $arch are not built ($g): make INIT_ARCHES=$arch"
	progs=()
	for t in $order; do progs+=("$g/$t"); done
	progs+=("$GUEST/$arch/scripts/hello.sh")
	d=$WORK/init-$arch
	start=$(date +%s)
	"$TAPBOOT" run --kernel "$k" -o "$d" --timeout 10 -q "${progs[@]}" \
		>"$WORK/out-$arch" 2>"$WORK/err-$arch"
	rc=$?
	secs=$(($(date +%s) - start))
	is "$rc" 1 "$arch: the run exits 1 (it has failing tests)"
	is "$(jq -r .complete "$d/results.json" 2>/dev/null)" true "$arch: complete (end line with the nonce)"
	is "$(verdict "$d" pass)" pass "$arch: pass"
	is "$(verdict "$d" fail)" fail "$arch: fail"
	is "$(reason "$d" fail)" "exit 1" "$arch: fail reason"
	is "$(verdict "$d" skip)" skip "$arch: skip"
	is "$(reason "$d" skip)" "skip: the frobnicator is not present" "$arch: the test's skip reason is kept"
	is "$(verdict "$d" xfail)" xfail "$arch: xfail"
	is "$(verdict "$d" segv)" fail "$arch: SIGSEGV is fail"
	is "$(reason "$d" segv)" "killed by SIGSEGV" "$arch: the signal is named"
	is "$(verdict "$d" own_tap)" fail "$arch: own TAP, exit 1"
	is "$(field "$d" own_tap '.subtests | length')" 3 "$arch: own TAP kept as 3 subtests"
	is "$(verdict "$d" daemon)" pass "$arch: a daemon holding stdout does not hold the test"
	ok "$(awk -v s="$(field "$d" daemon .duration_s)" 'BEGIN { exit !(s < 1.5) }'; echo $?)" \
		"$arch: the daemon test ends promptly ($(field "$d" daemon .duration_s) s)"
	is "$(verdict "$d" hang)" timeout "$arch: a hang is timeout"
	like "$(reason "$d" hang)" "^timeout after 10 s" "$arch: timeout reason"
	is "$(verdict "$d" closeout)" pass "$arch: closed stdout is not the end of the test"
	ok "$(awk -v s="$(field "$d" closeout .duration_s)" 'BEGIN { exit !(s >= 1.9) }'; echo $?)" \
		"$arch: closeout was waited for ($(field "$d" closeout .duration_s) s)"
	is "$(verdict "$d" flood)" pass "$arch: 10 MB of output, verdict kept"
	like "$(cat "$d/console.log")" "output truncated: showed [0-9]+ of 10485760 bytes" "$arch: the flood is capped on the console"
	is "$(verdict "$d" badutf8)" pass "$arch: bytes that are not UTF-8"
	like "$(tr -d '\r' <"$d/console.log")" 'bad: \\xff\\xfe ok: é \\x1b\[0m end' "$arch: they are escaped on the console"
	is "$(verdict "$d" killpg)" fail "$arch: kill(0, SIGKILL)"
	is "$(reason "$d" killpg)" "killed by SIGKILL" "$arch: killpg reason"
	is "$(verdict "$d" sigpid1)" pass "$arch: signals to PID 1 are survived"
	is "$(grep -c 'init: got SIG[A-Z0-9]* from pid [0-9]*, ignored' "$d/console.log")" 5 "$arch: each signal to PID 1 is logged"
	is "$(verdict "$d" warn)" fail "$arch: a passing test that tainted the kernel fails"
	like "$(reason "$d" warn)" "^kernel (warning|tainted)" "$arch: the reason names the kernel"
	like "$(tr -d '\r' <"$d/console.log")" "kernel: taint changed from [0-9]+ to [0-9]+ \(new: W\)" "$arch: the taint is shown"
	hello=$(verdict "$d" hello.sh)
	[ "$hello" = absent ] && hello=$(verdict "$d" hello)
	is "$hello" pass "$arch: a shell script test"
	is "$(jq -r '[.tests[] | select(.result == "pass")] | length' "$d/results.json" 2>/dev/null)" 7 \
		"$arch: 7 tests pass (every test after the hang, daemon, flood and killpg ran)"
	is "$(jq -r '.summary | "\(.pass) \(.fail) \(.skip) \(.xfail) \(.timeout) \(.missing)"' "$d/results.json" 2>/dev/null)" \
		"7 5 1 1 1 0" "$arch: summary pass fail skip xfail timeout missing"
	ok "$(test "$secs" -lt 120; echo $?)" "$arch: the boot took ${secs}s (< 120)"
done
done_testing
