#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 25-forgery.sh: issue 20's verdict integrity with real boots: tests that write forged results
# (for earlier, current and later tests, to /dev/console and /dev/kmsg, with and without the
# nonce from /proc/cmdline, with made-up tags), a forged early end line, and a test that prints
# its own early `ok` and crashes. Every verdict is the init's, the exit status follows the real
# verdicts, and each forged line is in the forging test's log.
. "$(dirname "$0")/lib.sh"

k=$(kernel x86_64)
g=$GUEST/x86_64/static

# Boot 1: the forgers' real verdicts are failures; their forged ones say pass.
m=$WORK/forge-fail
mkdir -p "$m"
cp "$g/pass" "$g/fail" "$g/forge" "$m/"
names="a_first b_forger c_victim d_early e_last"
cat >"$m/manifest" <<EOT
tapboot-manifest 1
test a_first pass
test b_forger forge
    arg 2
    arg 1
$(for n in $names; do echo "    arg $n"; done)
test c_victim fail
test d_early forge
    arg 4
    arg crash
$(for n in $names; do echo "    arg $n"; done)
test e_last pass
EOT
d=$WORK/r1
# --no-snapshot: a cold boot puts the nonce on the kernel command line, where the forger reads
# it (/proc/cmdline): the strongest forger. Snapshot boot hands it over the console instead,
# out of the tests' reach (boot 2 runs that way).
"$TAPBOOT" run --kernel "$k" -o "$d" -q --no-snapshot "$m/manifest" >"$WORK/o1" 2>"$WORK/e1"
is "$?" 1 "forged passes: exit 1 (the real verdicts failed)"
is "$(jq -r '[.tests[] | "\(.name)=\(.result)"] | join(" ")' "$d/results.json")" \
	"a_first=pass b_forger=fail c_victim=fail d_early=fail e_last=pass" \
	"forged passes: every verdict is the init's, in plan order, one per test"
is "$(reason "$d" b_forger)" "exit 1" "forged passes: the forger's reason is its exit status"
is "$(reason "$d" c_victim)" "exit 1" "forged passes: a later test's forged ok did not make it pass"
is "$(reason "$d" d_early)" "killed by SIGSEGV" "early ok then crash: fail, killed by SIGSEGV"
is "$(jq -r '.complete, .error' "$d/results.json" | tr '\n' ' ')" "true null " \
	"forged end lines neither ended nor completed the run early: it completed at the real end"
is "$(jq -r '.summary | "\(.pass) \(.fail) \(.total)"' "$d/results.json")" "2 3 5" \
	"forged passes: summary counts the init's verdicts only"
# results.tap is clean TAP 13: no tags, no forged line
tap=$(cat "$d/results.tap")
ok "$(printf '%s' "$tap" | grep -c '~tb:' | grep -qx 0; echo $?)" "results.tap carries no tags"
is "$(printf '%s\n' "$tap" | grep -E '^(not )?ok ' | tr '\n' '|')" \
	"ok 1 a_first|not ok 2 b_forger|not ok 3 c_victim|not ok 4 d_early|ok 5 e_last|" \
	"results.tap: the init's five verdict lines, nothing forged"
# console.log keeps the raw bytes: the init's tags, and the forged lines
tr -d '\r' <"$d/console.log" >"$WORK/console1"
like "$(grep -c ' ~tb:[0-9]*:[A-P][A-Za-z0-9_-]\{10\}$' "$WORK/console1")" '^[1-9][0-9]+$' "console.log keeps the init's tags"
# the init's YAML blocks were used (one tag each, on the "  ..." line): durations and exits
is "$(jq -r '[.tests[] | "\(.exit_code // "-"):\(.duration_s != null)"] | join(" ")' "$d/results.json")" \
	"0:true 1:true 1:true -:true 0:true" "the init's blocks: every duration, exit 0 of a plain pass implied"
# the three failures' blocks (and the forger's made-up one); the passes are one line each
like "$(grep -c '^  \.\.\. ~tb:' "$WORK/console1")" '^[4-9]$' "a YAML block is tagged once, on its end line"
is "$(grep -cE '^ok [0-9]+ (a_first|e_last) # time=[0-9]+ms ~tb:[0-9]+:[A-P][A-Za-z0-9_-]{10}$' "$WORK/console1")" 2 \
	"a plain pass is one tagged line with its time"
ok "$(grep -q '^  duration_s: 9.999' "$d/tests/b_forger.log"; echo $?)" "the forged block is in the forger's log"
ok "$(grep -qxF 'ok 3 c_victim' "$WORK/console1"; echo $?)" "console.log keeps the forged lines"
# every forged line is in the forger's log
log=$d/tests/b_forger.log
missing=""
while IFS= read -r want; do
	grep -qF -- "$want" "$log" || missing="$missing [$want]"
done <<EOT
ok 1 a_first
ok 2 b_forger
ok 3 c_victim
ok 4 d_early
ok 5 e_last
# tapboot: run 3 next
# tapboot: run 2 b_forger
ok 2 b_forger ~tb:5:AEjRWeJq83v
ok 3 b_forger ~tb:99999:ffffffffffffffff
  ... ~tb:7:PPPPPPPPPPP
pass=9 fail=0 skip=0 xfail=0 xpass=0 timeout=0
# tapboot: end pass=9 fail=0
timeout=0 ~tb:77:00000000deadbeef
# tapboot: begin nonce=
  exit: 0
EOT
is "$missing" "" "the forger's log has every forged console line"
nonce=$(sed -n 's/.*tapboot: begin nonce=\([0-9a-f]*\) .*/\1/p' "$d/console.log" | head -1)
ok "$(grep -qF "# tapboot: end nonce=$nonce pass=9" "$log"; echo $?)" "the forged end line with the real nonce is in the forger's log"
kl=$(grep -cE '^(ok 2 b_forger|ok 3 later|# tapboot: end nonce=)' "$log")
like "$kl" '^[3-9]$' "the lines forged through /dev/kmsg are in the forger's log too"
ok "$(grep -qF 'ok 4 d_early' "$d/tests/d_early.log"; echo $?)" "the crashing test's early ok is in its log"
like "$(grep -c '' "$d/tests/c_victim.log")" '^[1-9]' "the victim's log is its own"
ok "$(grep -qxF 'ok 3 c_victim' "$d/tests/c_victim.log"; test $? -ne 0; echo $?)" "no forged line lands in the victim's log"

# Boot 2: the forgers' real verdicts pass; their forged ones say fail. Exit 0.
m=$WORK/forge-pass
mkdir -p "$m"
cp "$g/pass" "$g/forge" "$m/"
names="a_first b_forger c_last"
cat >"$m/manifest" <<EOT
tapboot-manifest 1
test a_first pass
test b_forger forge
    arg 2
    arg 0
$(for n in $names; do echo "    arg $n"; done)
test c_last pass
EOT
d=$WORK/r2
"$TAPBOOT" run --kernel "$k" -o "$d" -q "$m/manifest" >"$WORK/o2" 2>"$WORK/e2"
is "$?" 0 "forged failures: exit 0 (the real verdicts passed)"
is "$(jq -r '[.tests[] | "\(.name)=\(.result)"] | join(" ")' "$d/results.json")" \
	"a_first=pass b_forger=pass c_last=pass" "forged failures: every verdict is the init's"
ok "$(grep -qxF 'not ok 3 c_last' "$d/tests/b_forger.log"; echo $?)" "forged failures: in the forger's log"

# tapboot parse of the console: without the key, the tags still tell the init's lines apart
"$TAPBOOT" parse --format json "$WORK/r1/console.log" >"$WORK/p1.json" 2>/dev/null
is "$(jq -r '[.tests[] | "\(.name)=\(.result)"] | join(" ")' "$WORK/p1.json")" \
	"a_first=pass b_forger=fail c_victim=fail d_early=fail e_last=pass" \
	"tapboot parse console.log: the same verdicts without the key"
# QEMU's own fatal message, from a fake QEMU (a fault a real one cannot be made to produce
# here: this host has no working KVM): under -accel kvm it prints KVM's internal error on
# stderr and pauses, as QEMU does; under TCG it is the real QEMU.
qemu=$(sed -n 's/^qemu *= *//p' "$TOP/configs/x86_64.conf")
need "$qemu" qemu-system-x86
fake=$WORK/fake-qemu
cat >"$fake" <<EOT
#!/bin/sh
case " \$* " in
*" -accel kvm "*)
	echo "KVM internal error. Suberror: 1" >&2
	echo "extra data[0]: 0x0000000000000000" >&2
	echo "emulation failure" >&2
	exec sleep 3600 ;;
esac
exec $(command -v "$qemu") "\$@"
EOT
chmod +x "$fake"
# --accel kvm: exit 3 naming KVM, without waiting for the (huge) idle limit; timeout(1) only
# catches a run that would have waited for it
d=$WORK/kvm-fatal
timeout 300 "$TAPBOOT" run --kernel "$k" -o "$d" -q --qemu "$fake" --accel kvm --idle-timeout 3000 \
	"$g/pass" >/dev/null 2>"$WORK/e-kvm"
is "$?" 3 "KVM internal error under --accel kvm: exit 3 (not the idle limit)"
like "$(cat "$WORK/e-kvm")" "QEMU stopped the guest: KVM internal error. Suberror: 1 \(KVM cannot run this guest here; --accel tcg" \
	"KVM internal error under --accel kvm: the error names KVM and the way out"
ok "$(grep -q -- "--boot-as-is" "$WORK/e-kvm"; test $? -ne 0; echo $?)" "KVM internal error: no --boot-as-is hint (the image is not the cause)"
is "$(verdict "$d" pass)" missing "KVM internal error under --accel kvm: the test is missing, not passed"
# --accel auto: QEMU's message makes it fall back to TCG at once; the results are TCG's
d=$WORK/kvm-auto
: >"$WORK/kvm-dev"
TAPBOOT_KVM_DEVICE=$WORK/kvm-dev XDG_CACHE_HOME=$WORK/cache timeout 300 "$TAPBOOT" run --kernel "$k" \
	-o "$d" --qemu "$fake" --idle-timeout 3000 "$g/pass" "$g/fail" >/dev/null 2>"$WORK/e-auto"
is "$?" 1 "KVM internal error under --accel auto: the run goes on under TCG (exit 1: fail fails)"
is "$(jq -r '[.accel, (.tests[] | .result)] | join(" ")' "$d/results.json")" "tcg pass fail" \
	"KVM internal error under --accel auto: TCG's results"
like "$(cat "$WORK/e-auto")" "accelerator: tcg \(KVM failed: QEMU said: KVM internal error. Suberror: 1\)" \
	"KVM internal error under --accel auto: the fallback says why"
ok "$(grep -q "15 s" "$WORK/e-auto"; test $? -ne 0; echo $?)" "the fallback did not wait for the 15 s probe"

# QEMU killed by a signal: the error says so
d=$WORK/qkill
"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 60 "$g/pass" "$g/hang" >/dev/null 2>"$WORK/e-qkill" &
pid=$!
for _ in $(seq 1 120); do grep -q "tapboot: run 2" "$d/console.log" 2>/dev/null && break; sleep 0.5; done
# tapboot's own QEMU child: a VM restored from a snapshot has no -initrd to match on
qpid=$(pgrep -P "$pid" -f qemu-system | head -1)
[ -n "$qpid" ] && kill -KILL "$qpid"
wait $pid
is "$?" 3 "QEMU killed: exit 3"
like "$(jq -r .error "$d/results.json")" "QEMU was killed by SIGKILL" "QEMU killed: results.json names the signal"
is "$(reason "$d" hang)" "QEMU was killed by SIGKILL" "QEMU killed: the running test's reason names it"
like "$(cat "$WORK/e-qkill")" "QEMU was killed by SIGKILL" "QEMU killed: said on stderr"
done_testing
