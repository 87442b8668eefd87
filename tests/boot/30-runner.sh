#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 30-runner.sh: issue 5's failure detection and runner features with real kernels and a real
# QEMU: a guest hang, an init that cannot start, SIGTERM mid-run, QEMU killed, KVM's fallback,
# -j sharding, disruptive isolation, a kernel build directory, live progress on a terminal.
. "$(dirname "$0")/lib.sh"

k=$(kernel x86_64)
g=$GUEST/x86_64/static

# A guest that hangs with no timeout: the idle limit stops it; the running test is crash.
d=$WORK/idle
"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 0 --idle-timeout 8 "$g/pass" "$g/hang" "$g/skip" >/dev/null 2>"$WORK/e-idle"
is "$?" 3 "guest hang: exit 3"
is "$(verdict "$d" pass)" pass "guest hang: the test before is kept"
is "$(verdict "$d" hang)" crash "guest hang: the running test is crash"
like "$(reason "$d" hang)" "no console output for 8 s" "guest hang: reason names the idle limit"
is "$(verdict "$d" skip)" missing "guest hang: the test after is missing"
like "$(cat "$WORK/e-idle")" "hangs" "guest hang: said on stderr"

# An init that cannot start (the kernel command line points rdinit at nothing): the kernel
# panics looking for a root file system; every test is missing.
d=$WORK/noinit
"$TAPBOOT" run --kernel "$k" -o "$d" -q --append "rdinit=/does-not-exist" "$g/pass" >/dev/null 2>"$WORK/e-noinit"
is "$?" 3 "no init: exit 3"
is "$(verdict "$d" pass)" missing "no init: the test is missing"
like "$(jq -r .error "$d/results.json")" "crashed|never reached" "no init: results.json says why"
like "$(cat "$d/console.log")" "Kernel panic|No working init|VFS" "no init: the kernel's words are in console.log"

# SIGTERM to tapboot mid-run: QEMU stopped, partial results written, exit 130.
d=$WORK/term
"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 60 "$g/pass" "$g/hang" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 120); do grep -q "tapboot: run 2" "$d/console.log" 2>/dev/null && break; sleep 0.5; done
# tapboot's own QEMU child (a VM restored from a snapshot has no -initrd to match on)
qpid=$(pgrep -P "$pid" -f qemu-system)
kill -TERM $pid
wait $pid
is "$?" 130 "SIGTERM: exit 130"
is "$(verdict "$d" pass)" pass "SIGTERM: the finished test is kept"
is "$(verdict "$d" hang)" interrupted "SIGTERM: the running test is interrupted (issue 41: it was crash), not passed"
like "$(jq -r .error "$d/results.json")" "interrupted" "SIGTERM: results.json says interrupted"
like "$qpid" '^[0-9]+$' "SIGTERM: tapboot had one QEMU child while the test ran"
ok "$(kill -0 "${qpid:-0}" 2>/dev/null; test $? -ne 0; echo $?)" "SIGTERM: no QEMU outlives the run"

# QEMU killed under the run (a fault injected into a real QEMU): exit 3, results kept.
d=$WORK/qkill
"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 60 "$g/pass" "$g/hang" >/dev/null 2>"$WORK/e-qkill" &
pid=$!
for _ in $(seq 1 120); do grep -q "tapboot: run 2" "$d/console.log" 2>/dev/null && break; sleep 0.5; done
# tapboot's own QEMU child: a VM restored from a snapshot has no -initrd to match on
pkill -KILL -P "$pid" -f qemu-system
wait $pid
is "$?" 3 "QEMU killed: exit 3"
is "$(verdict "$d" pass)" pass "QEMU killed: the finished test is kept"
is "$(verdict "$d" hang)" crash "QEMU killed: the running test is crash"

# QEMU missing: a clear message, exit 3 (the VM failed), nothing silent.
d=$WORK/noqemu
"$TAPBOOT" run --kernel "$k" -o "$d" -q --qemu qemu-system-nonexistent "$g/pass" >/dev/null 2>"$WORK/e-noqemu"
is "$?" 3 "QEMU missing: exit 3"
like "$(cat "$WORK/e-noqemu")" "cannot run 'qemu-system-nonexistent'" "QEMU missing: named"

# --accel auto on this machine: /dev/kvm opens but guests do not boot (FACTS.md); auto falls
# back to TCG by itself, says why, and remembers it for the next run.
if [ -e /dev/kvm ]; then
	cache=$WORK/cache
	mkdir -p "$cache"
	d=$WORK/kvm1
	XDG_CACHE_HOME=$cache "$TAPBOOT" run --kernel "$k" -o "$d" "$g/pass" >/dev/null 2>"$WORK/e-kvm1"
	rc=$?
	if [ "$(jq -r .accel "$d/results.json")" = kvm ]; then
		is "$rc" 0 "KVM works here: the run passes under it"
	else
		is "$rc" 0 "KVM broken here: the run still passes, under TCG"
		like "$(cat "$WORK/e-kvm1")" "accelerator: tcg \(KVM did not reach the init" "auto says why it fell back"
		is "$(jq -r .accel "$d/results.json")" tcg "results.json records tcg"
		XDG_CACHE_HOME=$cache "$TAPBOOT" run --kernel "$k" -o "$WORK/kvm2" "$g/pass" >/dev/null 2>"$WORK/e-kvm2"
		like "$(cat "$WORK/e-kvm2")" "failed to boot a guest here before" "the next run goes straight to TCG"
	fi
fi
"$TAPBOOT" run --kernel "$(kernel arm64)" -o "$WORK/cross" "$GUEST/arm64/static/pass" >/dev/null 2>"$WORK/e-cross"
like "$(cat "$WORK/e-cross")" "accelerator: tcg \(an arm64 guest on an? " "a foreign guest is TCG, and the run says why"

# -j 2: the same verdicts as -j 1, in plan order.
tests="$g/pass $g/fail $g/skip $g/xfail $g/segv $g/own_tap"
"$TAPBOOT" run --kernel "$k" -o "$WORK/j1" -q --timeout 5 $tests >/dev/null 2>&1
# --smp 2: the default under TCG is one vCPU (configs' smp_tcg); two make the VMs share the host
"$TAPBOOT" run --kernel "$k" -o "$WORK/j2" -q --timeout 5 -j 2 --smp 2 $tests >/dev/null 2>&1
is "$?" 1 "-j 2: exit status as -j 1"
is "$(jq -c '[.tests[] | [.name, .result]]' "$WORK/j2/results.json")" "$(jq -c '[.tests[] | [.name, .result]]' "$WORK/j1/results.json")" "-j 2: same verdicts in plan order as -j 1"
ok "$(test -s "$WORK/j2/console.1.log" && test -s "$WORK/j2/console.2.log"; echo $?)" "-j 2: one console log per VM"
like "$(cat "$WORK/j2/reproduce.sh")" "tapboot.only=[0-9,-]+" "-j 2: shards balanced with the durations the -j 1 run recorded"
# 2 VMs of 2 vCPUs at once: on a host with fewer than 4 CPUs each VM gets one TCG thread.
want_threads=multi
[ "$(getconf _NPROCESSORS_ONLN)" -lt 4 ] && want_threads=single
is "$(grep -o 'thread=[a-z]*' "$WORK/j2/reproduce.sh" | sort -u)" "thread=$want_threads" \
	"-j 2: TCG thread=$want_threads for 2 VMs x 2 vCPUs on $(getconf _NPROCESSORS_ONLN) CPUs"
is "$(grep -o 'thread=[a-z]*' "$WORK/j1/reproduce.sh")" "thread=multi" "-j 1: TCG thread=multi"
is "$(( $(grep -c 'tapboot: run' "$WORK/j2/console.1.log") + $(grep -c 'tapboot: run' "$WORK/j2/console.2.log") ))" 6 "-j 2: each test ran in exactly one VM"
is "$("$TAPBOOT" parse --format json "$WORK/j2/console.log" | jq -c '[.tests[] | .result] | sort')" "$(jq -c '[.tests[] | .result] | sort' "$WORK/j2/results.json")" "-j 2: tapboot parse of the merged console.log agrees"
# -j auto: one VM more than the host's CPUs, as many as MemAvailable holds (512 MiB guests
# plus 128 MiB of QEMU each), no more than the tests.
"$TAPBOOT" run --kernel "$k" -o "$WORK/jauto" -q --timeout 5 -j auto $tests >/dev/null 2>&1
is "$?" 1 "-j auto: exit status as -j 1"
want=$(( $(getconf _NPROCESSORS_ONLN) + 1 ))
fit=$(awk '/^MemAvailable:/ { print int($2 / 1024 / 640) }' /proc/meminfo)
[ "$fit" -lt "$want" ] && want=$((fit > 0 ? fit : 1))
[ "$want" -gt 6 ] && want=6
is "$(find "$WORK/jauto" -maxdepth 1 -name 'console.*.log' | wc -l)" "$want" "-j auto: $want VMs on $(getconf _NPROCESSORS_ONLN) CPUs"
is "$(jq -c '[.tests[] | [.name, .result]]' "$WORK/jauto/results.json")" "$(jq -c '[.tests[] | [.name, .result]]' "$WORK/j1/results.json")" "-j auto: same verdicts in plan order as -j 1"

# Disruptive tests: skipped unless asked; with --disruptive each runs in a VM of its own, so
# one that panics the kernel takes nothing else down.
m=$WORK/man
mkdir -p "$m"
cp "$g/pass" "$g/panic" "$g/skip" "$m/"
cat >"$m/tests.manifest" <<EOT
tapboot-manifest 1
test pass pass
test panic panic
    flag disruptive
test skip skip
EOT
d=$WORK/dis0
"$TAPBOOT" run --kernel "$k" -o "$d" -q "$m/tests.manifest" >/dev/null 2>&1
is "$?" 0 "disruptive not asked for: not run, the run passes"
is "$(verdict "$d" panic)" skip "disruptive not asked for: skip"
like "$(reason "$d" panic)" "disruptive" "disruptive not asked for: the reason says so"
d=$WORK/dis1
"$TAPBOOT" run --kernel "$k" -o "$d" -q --disruptive "$m/tests.manifest" >/dev/null 2>&1
is "$?" 3 "--disruptive: the panicking test's VM fails the run"
is "$(verdict "$d" panic)" crash "--disruptive: the panic is a crash"
is "$(verdict "$d" pass)" pass "--disruptive: the other VM's test before it passes"
is "$(verdict "$d" skip)" skip "--disruptive: the test after it still ran (not missing)"
is "$(jq -c '[.tests[] | .name]' "$d/results.json")" '["pass","panic","skip"]' "--disruptive: plan order kept"

# A kernel build directory (O=): the image under arch/ARCH/boot, the arch and config from its
# .config; a .config elsewhere (the source tree) is not read.
b=$WORK/build-arm64
mkdir -p "$b/arch/arm64/boot"
ln -s "$(kernel arm64)" "$b/arch/arm64/boot/Image"
cp "$(dirname "$(kernel arm64)")"/config-* "$b/.config"
cp "$(dirname "$k")"/config-* "$WORK/.config"
d=$WORK/odir
"$TAPBOOT" run --kernel "$b" -o "$d" -q "$GUEST/arm64/static/pass" >/dev/null 2>&1
is "$?" 0 "O= build directory: boots"
is "$(jq -r .arch "$d/results.json")" arm64 "O= build directory: arch from its .config"
mkdir -p "$WORK/emptybuild"
"$TAPBOOT" run --kernel "$WORK/emptybuild" -o "$WORK/eb" "$g/pass" 2>"$WORK/e-eb"
is "$?" 2 "a build directory without .config: exit 2"
like "$(cat "$WORK/e-eb")" "no readable .config" "a build directory without .config: says so"

# No -o: a new uniquely named directory under ./tapboot-out/ each time, never /tmp.
mkdir -p "$WORK/cwd"
(cd "$WORK/cwd" && "$TAPBOOT" run --kernel "$k" -q "$g/pass" >/dev/null 2>&1 && "$TAPBOOT" run --kernel "$k" -q "$g/pass" >/dev/null 2>&1)
is "$?" 0 "default results directory: both runs pass"
is "$(ls "$WORK/cwd/tapboot-out" | grep -cE '^[0-9]{8}-[0-9]{6}-x86_64-......$')" 2 "default results directory: two distinct new directories under ./tapboot-out/"

# A matrix: two kernels of two architectures in one command, {arch} in the test paths.
d=$WORK/matrix
"$TAPBOOT" run --kernel "$k" --kernel "$(kernel arm64)" -o "$d" -q "$GUEST/{arch}/static/pass" "$GUEST/{arch}/static/fail" >"$WORK/out-matrix" 2>&1
is "$?" 1 "matrix: the worst run decides the exit status"
is "$(jq -r .arch "$d/1/results.json") $(jq -r .arch "$d/2/results.json")" "x86_64 arm64" "matrix: one run per kernel, each its own arch"
is "$(jq -c '[.runs[].exit]' "$d/matrix.json")" "[1,1]" "matrix: matrix.json has each run's exit status"
is "$(verdict "$d/2" pass)" pass "matrix: {arch} picked the arm64 binaries for the arm64 kernel"

# Live progress on a terminal: the running test and each verdict as it comes.
if command -v script >/dev/null; then
	script -qec "'$TAPBOOT' run --kernel '$k' -o '$WORK/tty' --timeout 5 '$g/pass' '$g/fail'" "$WORK/typescript" >/dev/null 2>&1
	like "$(tr -d '\r' <"$WORK/typescript")" "running +pass" "terminal: shows what is running"
	like "$(tr -d '\r' <"$WORK/typescript")" "fail +[0-9.]+s +fail" "terminal: one line per finished test"
fi
done_testing
