#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 75-gate.sh: issue 37's tapboot gate with real boots, Debian 12's 6.1 as A and Debian 13's
# 6.12 as B (x86_64): pass, not612 (fails only on 6.12), coin (fails at random half the
# time) and fail end as pass, regression, flaky and failing, exit 1; without not612 exit 0
# with coin reported flaky; --flaky=fail exit 1; tapboot history's counts are the gates';
# two gates at once on one history file both land every row; a damaged history is a warning
# and the run's results are all there; headless Chromium renders a run's results.html, a
# gate's gate.html and the history's page, and their DOMs hold every test's name and verdict
# (screenshots kept in $OUT/test-logs/75-gate/).
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/install-deps.sh" pages >/dev/null ||
	bail "headless Chromium is missing: scripts/install-deps.sh pages failed (apt-get install chromium)"
need chromium chromium
A=$(kernel x86_64)
B=$("$TOP/scripts/fetch-kernel.sh" x86_64 trixie) ||
	bail "no trixie kernel for x86_64: scripts/fetch-kernel.sh x86_64 trixie failed (needs Debian's archive)"
g=$GUEST/x86_64/static
for t in pass coin not612 fail; do
	[ -x "$g/$t" ] || bail "guest test $g/$t is not built: make guest"
done
SHOTS=$OUT/test-logs/75-gate
rm -rf "$SHOTS"
mkdir -p "$SHOTS"
# 8 reruns: a test failing half the time looks uniform on both sides (and so not flaky) only
# 1 time in 2^16 (results/gate_class.h); the default 5 would be 1 in 2^10.
R=8

# class GATE_DIR TEST: the test's class in gate.json
class() { jq -r --arg n "$2" '.tests[] | select(.name == $n) | .class' "$1/gate.json"; }
# re TEXT: TEXT as an extended regex that matches only itself (a release holds '.' and '+')
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# ---- the history knows coin as flaky: it is rerun even when its first runs both pass ----
# (without that, a gate whose first two runs of coin both pass, 1 time in 4, calls it pass:
# all a gate can know without the history)
H1=$WORK/h1.sqlite
seed_runs=0 seed_fail=0
for i in $(seq 1 30); do
	"$TAPBOOT" run --kernel "$A" --history "$H1" -q -o "$WORK/seed$i" "$g/coin" >/dev/null 2>>"$WORK/seed.err"
	seed_runs=$((seed_runs + 1))
	[ "$(verdict "$WORK/seed$i" coin)" = fail ] && seed_fail=$((seed_fail + 1))
	[ "$seed_fail" -gt 0 ] && [ "$seed_fail" -lt "$seed_runs" ] && break
done
ok "$([ "$seed_fail" -gt 0 ] && [ "$seed_fail" -lt "$seed_runs" ]; echo $?)" \
	"coin alone: both verdicts within $seed_runs runs ($seed_fail failed)"

# ---- the four tests: pass, regression, flaky, failing; exit 1 ----
"$TAPBOOT" gate --base "$A" --kernel "$B" --reruns $R --history "$H1" -o "$WORK/g1" --timeout 30 \
	"$g/pass" "$g/not612" "$g/coin" "$g/fail" >"$WORK/g1.out" 2>"$WORK/g1.err"
is "$?" 1 "gate 6.1 -> 6.12: exit 1 (a regression)"
is "$(class "$WORK/g1" pass) $(class "$WORK/g1" not612) $(class "$WORK/g1" coin) $(class "$WORK/g1" fail)" \
	"pass regression flaky failing" "gate: classes pass, regression, flaky, failing"
is "$(jq -r '.tests[] | select(.name == "not612") | "\(.base.runs)/\(.base.fail) \(.kernel.runs)/\(.kernel.fail)"' "$WORK/g1/gate.json")" \
	"$((R + 1))/0 $((R + 1))/$((R + 1))" "gate: the regression was rerun $R times a side and the reruns agree"
is "$(jq -r '.tests[] | select(.name == "pass") | "\(.base.runs) \(.kernel.runs)"' "$WORK/g1/gate.json")" "1 1" \
	"gate: a test that passes on both is not rerun"
like "$(jq -r '.tests[] | select(.name == "coin") | "\(.base.verdicts + .kernel.verdicts | join(" "))"' "$WORK/g1/gate.json")" \
	'pass.*fail|fail.*pass' "gate: coin's runs hold both verdicts"
like "$(cat "$WORK/g1.out")" "regression +not612: A $((R + 1))/$((R + 1)) passed, B 0/$((R + 1)) passed" \
	"gate's output: the regression with its counts"
like "$(cat "$WORK/g1.out")" 'flaky +coin: A [0-9]+/[0-9]+ passed, B [0-9]+/[0-9]+ passed' "gate's output: flaky with k/N of each side"
is "$(jq -r .base.kernel_release "$WORK/g1/gate.json") $(jq -r .kernel.kernel_release "$WORK/g1/gate.json")" \
	"$(jq -r .kernel_release "$WORK/g1/base/results.json") $(jq -r .kernel_release "$WORK/g1/kernel/results.json")" \
	"gate.json names both kernels' releases"
like "$(jq -r .kernel_release "$WORK/g1/kernel/results.json")" '^6\.12\.' "B is 6.12"
like "$(jq -r .rule "$WORK/g1/gate.json")" '^k/N rule' "gate.json states the rule"
# reruns of the 6.1 side restore from the snapshot (a rerun keeps the plan: --filter is on the
# handoff line)
like "$(head -qn1 "$WORK"/g1/rerun-*-base/console.log | grep -c '^tapboot: VM 1 started from snapshot ')" '^[1-9]' \
	"A's reruns start from the snapshot"

# ---- the history answers with the gate's counts ----
"$TAPBOOT" history --history "$H1" --json >"$WORK/h1.json" 2>"$WORK/h1.err"
is "$?" 0 "tapboot history --json: exit 0"
relA=$(jq -r .base.kernel_release "$WORK/g1/gate.json")
relB=$(jq -r .kernel.kernel_release "$WORK/g1/gate.json")
# the gate's counts, and coin's runs alone before it on A
want=$(jq -r --arg a "$relA" --arg b "$relB" --argjson sr "$seed_runs" --argjson sf "$seed_fail" \
	'[.tests[] | (if .name == "coin" then {r: $sr, f: $sf} else {r: 0, f: 0} end) as $s |
	  "\(.name) \($a) \(.base.runs + $s.r) \(.base.fail + $s.f)", "\(.name) \($b) \(.kernel.runs) \(.kernel.fail)"] | sort | join(",")' \
	"$WORK/g1/gate.json")
got=$(jq -r '[.tests[] | "\(.test) \(.kernel_release) \(.runs) \(.fail)"] | sort | join(",")' "$WORK/h1.json")
is "$got" "$want" "tapboot history: runs and failures per test and kernel are the gate's (and coin's own runs)"
is "$(jq -r '[.tests[] | select(.flaky) | .test] | unique | join(" ")' "$WORK/h1.json")" "coin" \
	"tapboot history: coin is the flaky one"
like "$(jq -r --arg b "$relB" '.tests[] | select(.test == "not612" and .kernel_release == $b) | .first_failure.dir' "$WORK/h1.json")" \
	"/g1/kernel\$" "tapboot history: not612's first failure is B's first run"
"$TAPBOOT" history --history "$H1" --kernel "$relB" not612 >"$WORK/h1.txt"
like "$(cat "$WORK/h1.txt")" "not612 +$(re "$relB") +$((R + 1)) +0 +$((R + 1)) +0%" "tapboot history --kernel K TEST: one row, its counts"
is "$(grep -c '^not612 ' "$WORK/h1.txt")" 1 "tapboot history --kernel K TEST: that row alone"
"$TAPBOOT" history --history "$H1" --html "$WORK/history.html" >/dev/null
is "$?" 0 "tapboot history --html: exit 0"

# ---- without the B-only test: exit 0, the flaky one reported ----
"$TAPBOOT" gate --base "$A" --kernel "$B" --reruns $R --history "$H1" -o "$WORK/g2" --timeout 30 \
	"$g/pass" "$g/coin" "$g/fail" >"$WORK/g2.out" 2>"$WORK/g2.err"
is "$?" 0 "gate without not612: exit 0"
is "$(class "$WORK/g2" pass) $(class "$WORK/g2" coin) $(class "$WORK/g2" fail)" "pass flaky failing" \
	"gate without not612: pass, flaky, failing"
like "$(cat "$WORK/g2.out")" '^flaky +coin: .*\(known flaky' "gate: coin is known flaky from the history"
like "$(cat "$WORK/g2.out")" 'flaky is reported, does not fail the gate' "gate: says flaky does not fail it"

# ---- --flaky=fail ----
"$TAPBOOT" gate --base "$A" --kernel "$B" --reruns $R --history "$H1" --flaky=fail -o "$WORK/g3" \
	--timeout 30 "$g/pass" "$g/coin" >"$WORK/g3.out" 2>"$WORK/g3.err"
is "$?" 1 "gate --flaky=fail with a flaky test: exit 1"
is "$(class "$WORK/g3" coin)" flaky "gate --flaky=fail: coin is flaky"

# ---- --base-results: an earlier run of A as A's first run (A not rerun without --base) ----
"$TAPBOOT" gate --base-results "$WORK/g1/base" --kernel "$B" --reruns 1 --no-history -o "$WORK/gb" \
	--timeout 30 "$g/pass" "$g/not612" >"$WORK/gb.out" 2>"$WORK/gb.err"
is "$?" 1 "gate --base-results: exit 1 (a regression)"
is "$(jq -r '.tests[] | select(.name == "not612") | "\(.class) \(.base.runs) \(.kernel.runs)"' "$WORK/gb/gate.json")" \
	"regression 1 2" "gate --base-results: not612 a regression, A's one run reused, B rerun once"
ok "$([ ! -e "$WORK/gb/base" ] && [ ! -e "$WORK/gb/rerun-1-base" ]; echo $?)" "gate --base-results: no run of A"

# ---- bad input: exit 2, run's message shown ----
"$TAPBOOT" gate --base "$A" --kernel "$B" -o "$WORK/g4" "$WORK/no-such-test" >/dev/null 2>"$WORK/g4.err"
is "$?" 2 "gate with a missing test file: exit 2"
like "$(cat "$WORK/g4.err")" "no-such-test" "gate: the run's message names the missing file"
"$TAPBOOT" gate --kernel "$B" "$g/pass" >/dev/null 2>"$WORK/g5.err"
is "$?" 2 "gate without --base: exit 2"

# ---- an interrupt: passed to the running run, which writes its partial results; exit 130 ----
"$TAPBOOT" gate --base "$A" --kernel "$B" --no-history -o "$WORK/gi" --timeout 300 "$g/pass" "$GUEST/x86_64/static/hang" \
	>"$WORK/gi.out" 2>"$WORK/gi.err" &
pi=$!
for _ in $(seq 1 120); do
	grep -qs '^# tapboot: run 2 ' "$WORK/gi/base/console.log" && break
	sleep 1
done
kill -INT $pi
wait $pi
is "$?" 130 "gate interrupted while a test hangs: exit 130"
is "$(verdict "$WORK/gi/base" pass)" pass "gate interrupted: the running run's results.json is written"
like "$(cat "$WORK/gi.err")" "gate: interrupted; the runs so far are in '$WORK/gi/'" "gate interrupted: says where the runs are"
ok "$([ ! -e "$WORK/gi/kernel" ]; echo $?)" "gate interrupted: no run after it"

# ---- two gates at once on one history file: every row lands ----
H2=$WORK/h2.sqlite
"$TAPBOOT" gate --base "$A" --kernel "$A" --reruns 2 --history "$H2" -o "$WORK/c1" "$g/pass" "$g/fail" \
	>"$WORK/c1.out" 2>&1 &
p1=$!
"$TAPBOOT" gate --base "$A" --kernel "$A" --reruns 2 --history "$H2" -o "$WORK/c2" "$g/pass" "$g/fail" \
	>"$WORK/c2.out" 2>&1 &
p2=$!
wait $p1
s1=$?
wait $p2
s2=$?
is "$s1 $s2" "0 0" "two gates at once of 6.1 against itself: both exit 0 (failing on both is not a regression)"
ok "$(grep -c -i warning "$WORK/c1.out" "$WORK/c2.out" | grep -vc ':0$')" "two gates at once: no history warning"
# each gate: pass runs twice (base, kernel), fail 2 + 2 reruns a side = 6; two gates
"$TAPBOOT" history --history "$H2" --json >"$WORK/h2.json"
is "$(jq -r '[.tests[] | "\(.test) \(.runs) \(.fail)"] | sort | join(",")' "$WORK/h2.json")" "fail 12 12,pass 4 0" \
	"two gates at once: the history holds every row of both"

# ---- a damaged history: a warning, the results all there; names that need escaping ----
head -c 8192 /dev/urandom >"$WORK/damaged.sqlite"
cp "$WORK/damaged.sqlite" "$WORK/damaged.copy"
m=$WORK/m
mkdir -p "$m"
cp "$g/pass" "$g/fail" "$m/"
cat >"$m/manifest" <<'EOT'
tapboot-manifest 1
test "x<&\"y'z" pass
test fail fail
EOT
"$TAPBOOT" run --kernel "$A" --history "$WORK/damaged.sqlite" -q -o "$WORK/r1" "$m/manifest" \
	>/dev/null 2>"$WORK/r1.err"
is "$?" 1 "a run with a damaged history: exit 1 (its failing test), not a history error"
like "$(cat "$WORK/r1.err")" "warning: results history '$WORK/damaged.sqlite'.*not a database" \
	"a damaged history: a warning naming the file"
is "$(jq -c '[.tests[] | .result]' "$WORK/r1/results.json")" '["pass","fail"]' "a damaged history: results.json is complete"
ok "$(cmp -s "$WORK/damaged.sqlite" "$WORK/damaged.copy"; echo $?)" "a damaged history: the file is left as it was"
ok "$([ -s "$WORK/r1/results.html" ]; echo $?)" "results.html is written"

# ---- the pages in a real browser: every test's name and verdict in the DOM ----
# dom PAGE NAME: the DOM Chromium builds, and a screenshot in $SHOTS
dom() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" \
		2>>"$WORK/chromium.err" >"$WORK/$2.dom"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,900 \
		--screenshot="$SHOTS/$2.png" "file://$1" >>"$WORK/chromium.err" 2>&1
	cat "$WORK/$2.dom"
}
# cell DOM TEXT: the DOM has a table cell with exactly this text
cell() { grep -Fc ">$2</td>" <<<"$1"; }
d=$(dom "$WORK/g1/kernel/results.html" results)
for t in pass not612 coin fail; do
	ok "$([ "$(cell "$d" "$t")" -ge 1 ]; echo $?)" "results.html in Chromium: test $t"
	v=$(verdict "$WORK/g1/kernel" "$t")
	like "$d" "<td class=\"name\">$t</td><td class=\"v $v\">$v</td>" "results.html in Chromium: $t's verdict $v"
done
like "$d" '<svg[^>]*aria-label="timeline"' "results.html: the timeline is an inline SVG"
ok "$(grep -qi '<script' <<<"$d"; [ $? -ne 0 ]; echo $?)" "results.html: no scripts"
d=$(dom "$WORK/r1/results.html" escaped)
like "$d" '<td class="name">x&lt;&amp;"y'"'"'z</td><td class="v pass">pass</td>' \
	"results.html in Chromium: a name with < & and quotes is text, its verdict pass"
d=$(dom "$WORK/g1/gate.html" gate)
for t in pass not612 coin fail; do
	c=$(class "$WORK/g1" "$t")
	like "$d" "<td class=\"name\">$t</td><td class=\"v $c\">$c" "gate.html in Chromium: $t is $c"
done
like "$d" "$(re "$relA")" "gate.html: kernel A's release"
like "$d" "$(re "$relB")" "gate.html: kernel B's release"
like "$d" "$((R + 1))/$((R + 1)) passed" "gate.html: the rerun counts"
d=$(dom "$WORK/history.html" history)
for t in pass not612 coin fail; do
	ok "$([ "$(cell "$d" "$t")" -ge 2 ]; echo $?)" "history page in Chromium: $t on both kernels"
done
like "$d" '<td class="v flaky">[0-9]+% flaky</td>' "history page: a flaky pass rate"
like "$d" '<td class="v fail">0% fail</td>' "history page: a 0% pass rate"
for s in results escaped gate history; do
	ok "$([ -s "$SHOTS/$s.png" ]; echo $?)" "a screenshot of the $s page kept ($SHOTS/$s.png)"
done

done_testing
