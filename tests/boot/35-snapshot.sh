#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 35-snapshot.sh: issue 18's snapshot boot with real boots: the VM saved at the init's ready
# point and restored on every architecture make check boots; results identical to cold boots
# for the example, panic, hang and warning tests; --isolate against a test that leaves kernel
# state behind; two restored VMs reading /dev/urandom; a damaged or truncated state file found
# and saved again; a changed test (another binary under the same name) keeping the snapshot;
# saving that fails (a fake QEMU for that fault only) falling back to cold boots with the same
# results.
. "$(dirname "$0")/lib.sh"

declare -A K
for a in x86_64 arm64 i386 arm ppc64le s390x riscv64; do
	K[$a]=$(kernel "$a")
done
# A cache of this script's own: which runs save and which restore is then known exactly (the
# kernels above are fetched already; the unpacked-kernel cache fills again here).
export XDG_CACHE_HOME=$WORK/cache
mkdir -p "$XDG_CACHE_HOME"
snaps() { ls "$XDG_CACHE_HOME"/tapboot/snapshots/*.state 2>/dev/null | wc -l; }
# verdicts DIR [sort]: "name=result(reason)" for every test, in order (or sorted). The CPU a
# warning's NMI backtrace names is the scheduler's pick, in a cold boot as in a restored one.
verdicts() {
	jq -r '[.tests[] | "\(.name)=\(.result)(\(.reason // ""))"] | if $s then sort else . end | join(" ")' \
		--argjson s "$([ "${2:-}" = sort ] && echo true || echo false)" "$1/results.json" |
		sed 's/backtrace for cpu [0-9]*/backtrace for cpu N/'
}
# restored DIR: how many of the run's consoles start with the snapshot line
restored() {
	local f=("$1"/console.[0-9]*.log)
	[ -e "${f[0]}" ] || f=("$1/console.log")
	head -qn1 "${f[@]}" | grep -c '^tapboot: VM [0-9]* started from snapshot '
}

g=$GUEST/x86_64/static
k=${K[x86_64]}

# ---- results as a cold boot's: example, warning, hang, panic (the panic ends the VM) ----
m=$WORK/suite
mkdir -p "$m"
cp "$g/pass" "$g/fail" "$g/skip" "$g/xfail" "$g/warn" "$g/hang" "$g/segv" "$g/panic" "$m/"
cat >"$m/manifest" <<EOT
tapboot-manifest 1
test pass pass
test fail fail
test skip skip
test xfail xfail
test warn warn
test hang hang
    timeout 3
test segv segv
test panic panic
test after_panic pass
EOT
"$TAPBOOT" run --kernel "$k" -o "$WORK/cold" -q --no-snapshot "$m/manifest" >/dev/null 2>"$WORK/e-cold"
st_cold=$?
cold=$(verdicts "$WORK/cold")
like "$cold" '^pass=pass\(\) fail=fail\(exit 1\) skip=skip.* warn=fail.* hang=timeout.* segv=fail\(killed by SIGSEGV\) panic=.* after_panic=' \
	"cold: the suite's verdicts ($cold)"
for i in 1 2 3; do
	"$TAPBOOT" run --kernel "$k" -o "$WORK/snap$i" "$m/manifest" >/dev/null 2>"$WORK/e-snap$i"
	eval "st$i=$?"
done
# The panic test's own line has been lost once here, cold and restored alike, on a loaded host
# (the run then says "console output ended while the test was running"; seen on arm64 6.12
# cold before snapshot boot existed): a restored run that differs from the cold boot runs once
# more, restored again, and that run must match exactly.
if [ "$(verdicts "$WORK/snap3")" != "$cold" ]; then
	echo "# run 3 differed from the cold boot: $(verdicts "$WORK/snap3"); once more"
	rm -rf "$WORK/snap3"
	"$TAPBOOT" run --kernel "$k" -o "$WORK/snap3" "$m/manifest" >/dev/null 2>"$WORK/e-snap3"
	st3=$?
fi
is "$(restored "$WORK/snap1")/$(restored "$WORK/snap2")/$(restored "$WORK/snap3")" "0/0/1" \
	"one VM: the first run boots cold, the second saves, the third starts from the snapshot"
like "$(cat "$WORK/e-snap2")" "saved the VM at the init's ready point \\([0-9.]+ MB of state, [0-9]+ MB of RAM, in " "the save is said"
is "$(snaps)" 1 "one state file in the cache"
for i in 1 2 3; do
	is "$(verdicts "$WORK/snap$i")" "${cold:-no verdicts from the cold boot}" \
		"run $i: the same verdicts and reasons as the cold boot"
	is "$(eval echo \$st$i)" "$st_cold" "run $i: the same exit status as the cold boot ($st_cold)"
	is "$(jq -r '.complete, .error' "$WORK/snap$i/results.json" | tr '\n' ' ')" \
		"$(jq -r '.complete, .error' "$WORK/cold/results.json" | tr '\n' ' ')" \
		"run $i: the same completeness and run error as the cold boot"
done
like "$(grep -c '~tb:' "$WORK/snap3/console.log")" '^[1-9][0-9]*$' \
	"restored: the init's lines are tagged (the secret came with the handoff line)"
ok "$(! grep -q 'tapboot\.key=' "$WORK/snap3/console.log" "$WORK/snap3/reproduce.sh"; echo $?)" \
	"the secret is in neither console.log nor reproduce.sh"
sh "$WORK/snap3/reproduce.sh" >"$WORK/repro-out" 2>&1 </dev/null
like "$(grep -c '^ok \|^not ok ' "$WORK/repro-out")" '^[1-9]' "reproduce.sh boots the run cold by itself"

# ---- --isolate: a test that leaves kernel state behind (the host name) ----
m=$WORK/iso
mkdir -p "$m"
cp "$g/damage" "$g/undamaged" "$m/"
"$TAPBOOT" run --kernel "$k" -o "$WORK/shared" -q "$m/damage" "$m/undamaged" >/dev/null 2>&1
is "$?" 1 "shared VM: exit 1"
is "$(verdicts "$WORK/shared")" "damage=pass() undamaged=fail(exit 1)" \
	"shared VM: the second test sees what the first left"
for i in 1 2; do
	"$TAPBOOT" run --kernel "$k" -o "$WORK/iso$i" -q --isolate -j 2 "$m/damage" "$m/undamaged" \
		>/dev/null 2>"$WORK/e-iso$i"
	is "$?" 0 "--isolate -j 2, run $i: exit 0"
	is "$(verdicts "$WORK/iso$i")" "damage=pass() undamaged=pass()" \
		"--isolate -j 2, run $i: each test in a kernel of its own"
	is "$(ls "$WORK/iso$i"/console.*.log | wc -l)" 2 "--isolate -j 2, run $i: two VMs"
done
is "$(restored "$WORK/iso1")/$(restored "$WORK/iso2")" "0/2" \
	"--isolate: the first run saves (two VMs), the second starts both from the snapshot"
like "$(grep -h 'host name' "$WORK/iso2/tests/undamaged.log")" "host name: '[^']*'" \
	"--isolate: undamaged saw a fresh host name"

# ---- two restored VMs read /dev/urandom ----
m=$WORK/rng
mkdir -p "$m"
cp "$g/urandom" "$m/"
cat >"$m/manifest" <<EOT
tapboot-manifest 1
test rng_a urandom
test rng_b urandom
EOT
for i in 1 2; do
	"$TAPBOOT" run --kernel "$k" -o "$WORK/rng$i" -q --isolate -j 2 "$m/manifest" >/dev/null 2>&1
	is "$?" 0 "urandom, run $i: exit 0"
done
is "$(restored "$WORK/rng2")" 2 "urandom: both VMs of the second run started from the snapshot"
a=$(grep -ho 'urandom: [0-9a-f]*' "$WORK/rng2/tests/rng_a.log")
b=$(grep -ho 'urandom: [0-9a-f]*' "$WORK/rng2/tests/rng_b.log")
like "$a" '^urandom: [0-9a-f]{32}$' "urandom: VM 1 read 16 bytes ($a)"
like "$b" '^urandom: [0-9a-f]{32}$' "urandom: VM 2 read 16 bytes ($b)"
ok "$([ "$a" != "$b" ]; echo $?)" "urandom: two VMs from one snapshot read different bytes"
ok "$(grep -q 'cannot reseed' "$WORK/rng2/console.1.log" "$WORK/rng2/console.2.log"; [ $? -eq 1 ]; echo $?)" \
	"urandom: the init reseeded the kernel's RNG without a complaint"

# ---- a damaged or truncated state file is found, removed and saved again ----
state=$(ls -t "$XDG_CACHE_HOME"/tapboot/snapshots/*.state | head -1)
size=$(stat -c %s "$state")
printf '\x55\xaa' | dd of="$state" bs=1 seek=$((size / 2)) conv=notrunc status=none
"$TAPBOOT" run --kernel "$k" -o "$WORK/bad1" --isolate -j 2 "$m/manifest" >/dev/null 2>"$WORK/e-bad1"
is "$?" 0 "damaged state: the run passes"
like "$(cat "$WORK/e-bad1")" "snapshot '.*' is not usable: its checksum does not match \\(the file is damaged\\); saving it again" \
	"damaged state: found by its checksum, said"
is "$(restored "$WORK/bad1")" 0 "damaged state: never booted (both VMs cold, one saves again)"
"$TAPBOOT" run --kernel "$k" -o "$WORK/bad1b" -q --isolate -j 2 "$m/manifest" >/dev/null 2>&1
is "$(restored "$WORK/bad1b")" 2 "after the damaged state: the next run starts from the new one"
truncate -s $((size / 3)) "$state"
"$TAPBOOT" run --kernel "$k" -o "$WORK/bad2" --isolate -j 2 "$m/manifest" >/dev/null 2>"$WORK/e-bad2"
is "$?" 0 "truncated state: the run passes"
like "$(cat "$WORK/e-bad2")" "snapshot '.*' is not usable: it is truncated; saving it again" \
	"truncated state: found, said"
is "$(restored "$WORK/bad2")" 0 "truncated state: never booted"
"$TAPBOOT" run --kernel "$k" -o "$WORK/bad3" -q --isolate -j 2 "$m/manifest" >/dev/null 2>&1
is "$(restored "$WORK/bad3")" 2 "after the truncated state: the next run starts from the new one"

# ---- a changed test keeps the snapshot: on x86_64 the tests reach the VM after the restore,
# from an ivshmem device the saved state leaves out (configs' snapshot_tests) ----
c=$WORK/chg
mkdir -p "$c"
cp "$g/pass" "$c/t"
cp "$g/fail" "$c/u"
cat >"$c/manifest" <<EOT
tapboot-manifest 1
test changed t
test same u
EOT
n0=$(snaps)
"$TAPBOOT" run --kernel "$k" -o "$WORK/chg1" -j 2 "$c/manifest" >/dev/null 2>"$WORK/e-chg1"
is "$(verdicts "$WORK/chg1")" "changed=pass() same=fail(exit 1)" "changed test, run 1: verdicts"
saved=$(sed -n "s/^tapboot: saved the VM at the init's ready point ([^)]*): //p" "$WORK/e-chg1")
like "$saved" '/snapshots/[0-9a-f]{64}\.state$' "changed test, run 1: saves a snapshot"
# the same tests again: the saved guest holds them (the saver booted with them in its
# initramfs), so the restored VMs are told to keep them and read nothing
"$TAPBOOT" run --kernel "$k" -o "$WORK/chg1b" -q -j 2 "$c/manifest" >/dev/null 2>&1
is "$(verdicts "$WORK/chg1b")" "changed=pass() same=fail(exit 1)" "unchanged tests, run 1b: verdicts"
is "$(head -qn1 "$WORK"/chg1b/console.[12].log | grep -c "started from snapshot $saved (saved at the init's ready point, with this run's tests;")" \
	2 "unchanged tests, run 1b: both VMs keep the tests the snapshot holds"
ls "$WORK"/chg1b/.initramfs+tests.cpio "$WORK"/chg1/.initramfs+tests.cpio >/dev/null 2>&1
is "$?" 2 "the saver's initramfs with the tests is not left in the results directory"
cp "$g/skip" "$c/t" # the test rebuilt: another binary under the same name
"$TAPBOOT" run --kernel "$k" -o "$WORK/chg2" -q -j 2 "$c/manifest" >/dev/null 2>"$WORK/e-chg2"
is "$?" 1 "changed test, run 2: exit 1 (same fails)"
is "$(head -qn1 "$WORK"/chg2/console.[12].log | sed 's/^tapboot: VM [12] started from snapshot \([^ ]*\) .*/\1/' | sort -u)" \
	"$saved" "changed test, run 2: both VMs start from run 1's snapshot"
is "$(head -qn1 "$WORK"/chg2/console.[12].log | grep -c ", the tests from this run's tests image;")" 2 \
	"changed test, run 2: both VMs replace the snapshot's tests with the run's"
like "$(verdicts "$WORK/chg2")" '^changed=skip\(skip: the frobnicator is not present\) same=fail\(exit 1\)$' \
	"changed test, run 2: the new binary's verdict"
is "$(snaps)" $((n0 + 1)) "changed test: one state file for both runs"
ls "$WORK"/chg2/tests.cpio >/dev/null 2>&1
is "$?" 0 "changed test: the run's tests image is in its results directory"

# ---- saving fails: a fake QEMU (the real one, whose files may not grow past 64 KiB: the state
# it writes (about 200 KB, the RAM apart) finds the "disk" full; SIGXFSZ ignored, so the write
# fails with EFBIG) ----
fake=$WORK/fakeqemu
mkdir -p "$fake"
cat >"$fake/qemu-system-x86_64" <<EOT
#!/bin/sh
trap '' XFSZ
ulimit -f 64
exec $(command -v qemu-system-x86_64) "\$@"
EOT
chmod +x "$fake/qemu-system-x86_64"
n0=$(snaps)
"$TAPBOOT" run --kernel "$k" -o "$WORK/nosave" --qemu "$fake/qemu-system-x86_64" -j 2 \
	"$WORK/suite/manifest" >/dev/null 2>"$WORK/e-nosave"
is "$?" "$st_cold" "saving fails: the same exit status as the cold boot"
is "$(grep -c 'snapshot boot off for this run: saving the VM failed' "$WORK/e-nosave")" 1 \
	"saving fails: said once"
like "$(cat "$WORK/e-nosave")" "saving the VM failed: .*; the VMs boot cold \\(the same results\\)" \
	"saving fails: the message says what happens"
is "$(verdicts "$WORK/nosave" sort)" "$(verdicts "$WORK/cold" sort)" \
	"saving fails: the same verdicts as the cold boot (two VMs)"
is "$(snaps)" "$n0" "saving fails: no state file kept"
is "$(ls -A "$XDG_CACHE_HOME"/tapboot/snapshots | grep -c '^\.')" 0 "saving fails: no temporary file left"

# ---- every architecture make check boots: saved by a two-VM run, restored by the next ----
for a in x86_64 arm64 i386 arm ppc64le s390x riscv64; do
	ga=$GUEST/$a/static
	[ -x "$ga/urandom" ] || bail "guest tests for $a are not built: make INIT_ARCHES=$a"
	for i in 1 2; do
		"$TAPBOOT" run --kernel "${K[$a]}" -o "$WORK/$a-$i" -q -j 2 "$ga/pass" "$ga/fail" \
			>/dev/null 2>"$WORK/e-$a-$i"
		is "$?" 1 "$a, run $i: exit 1 (one test fails)"
		is "$(verdicts "$WORK/$a-$i")" "pass=pass() fail=fail(exit 1)" "$a, run $i: verdicts"
	done
	is "$(restored "$WORK/$a-1")/$(restored "$WORK/$a-2")" "0/2" \
		"$a: saved by the first run, both VMs of the second start from it"
done

done_testing
