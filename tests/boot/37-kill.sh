#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 37-kill.sh: nothing tapboot starts outlives it, SIGKILL included (a CI job's hard timeout):
# tapboot run is killed at random points (during the boot, during the snapshot save, during a
# test, with -j 2), 10 times each, and no process of its own may be left. Its own processes
# are found by a marker in their environment (TAPBOOT_KILL_MARK=..., inherited by every
# child: QEMU, helper scripts), since QEMU runs in a process group of its own and an orphan's
# parent is no longer tapboot. x86_64, TCG.
. "$(dirname "$0")/lib.sh"

k=$(kernel x86_64)
g=$GUEST/x86_64/static
[ -x "$g/hang" ] || bail "$g/hang is not built: run make"
# A cache of this script's own: every save below is a new key, and no other run's snapshots
# are pushed out of the shared cache (the kernel above is fetched already).
export XDG_CACHE_HOME=$WORK/cache
mkdir -p "$XDG_CACHE_HOME"
ROUNDS=${KILL_ROUNDS:-10}

# survivors MARK: "PID(comm)" of every live process whose environment holds the marker
survivors() {
	local f p out=""
	for f in $(grep -lzx "TAPBOOT_KILL_MARK=$1" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f#/proc/}
		p=${p%/environ}
		# a zombie waits for its reaper only; it holds no memory or CPU
		[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
		out+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"
	done
	echo "${out# }"
}
has_qemu() { survivors "$1" | grep -q 'qemu-system'; }
rand_ms() { echo $((RANDOM % ($2 - $1 + 1) + $1)); } # rand_ms MIN MAX
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
consoles_have() { grep -qs -- "$2" "$1"/console*.log; } # consoles_have DIR TEXT

# kill_run NAME WAIT MIN MAX ARGS...: starts `tapboot run ARGS` with a marker, waits until the
# function WAIT (given the marker and the results directory) says the moment has come, sleeps
# MIN-MAX ms (with STOP set, tapboot is stopped during them), SIGKILLs tapboot and checks
# that within 5 s nothing carrying the marker is left. PHASE gets what the consoles said at
# the kill.
kill_run() {
	local name=$1 wait=$2 min=$3 max=$4 mark pid d left t=0 ms
	shift 4
	mark=kill-$$-$name-$_n
	d=$WORK/$mark
	env TAPBOOT_KILL_MARK="$mark" "$TAPBOOT" run --kernel "$k" -o "$d" -q "$@" >/dev/null 2>"$d.err" &
	pid=$!
	while ! "$wait" "$mark" "$d"; do
		if ! kill -0 "$pid" 2>/dev/null || [ $t -ge 6000 ]; then
			wait "$pid"
			ok 1 "$name: the moment to kill came (waited $((t / 100)) s; tapboot: $(tail -2 "$d.err" | tr '\n' ' '))"
			return
		fi
		sleep 0.01
		t=$((t + 1))
	done
	[ -n "${STOP:-}" ] && kill -STOP "$pid"
	ms=$(rand_ms "$min" "$max")
	sleep_ms "$ms"
	if consoles_have "$d" '# tapboot: run 1 '; then
		PHASE=test
	elif consoles_have "$d" 'tapboot-init: ready'; then
		PHASE=ready
	else
		PHASE=boot
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	for _ in $(seq 50); do
		left=$(survivors "$mark")
		[ -z "$left" ] && break
		sleep 0.1
	done
	is "$left" "" "$name: SIGKILL ${ms} ms after the moment ($([ -n "${STOP:-}" ] && echo "tapboot stopped" || echo "$PHASE")): no process of tapboot's is left"
	# kill what is left so that the next round starts clean
	for p in $left; do kill -KILL "${p%%(*}" 2>/dev/null; done
	rm -rf "$d" "$d.err"
}

cp "$g/hang" "$g/pass" "$WORK/"
manifest() { # manifest FILE TESTNAME...: a test for each name (hang: 20 s timeout)
	local f=$1 n
	shift
	echo "tapboot-manifest 1" >"$f"
	for n in "$@"; do
		case $n in
		hang*) printf 'test %s hang\n    timeout 20\n' "$n" >>"$f" ;;
		*) printf 'test %s pass\n' "$n" >>"$f" ;;
		esac
	done
}

# During the boot: from QEMU's start to 0.8 s into it (a cold boot under TCG takes 1.5-2 s).
manifest "$WORK/boot.m" hang
n_boot=0
for i in $(seq "$ROUNDS"); do
	kill_run boot has_qemu 0 800 --no-snapshot "$WORK/boot.m"
	[ "$PHASE" = boot ] && n_boot=$((n_boot + 1))
done

# During the snapshot save: two VMs (-j 2) make the first one save at the init's ready point;
# a test named after the round makes every round a new key, so every round saves. A save
# takes 0.1-0.3 s, shorter than this loop's reaction under load: tapboot is stopped (SIGSTOP)
# the moment a temporary file of the save appears, so that the kill, 0-80 ms later (QEMU's
# migration going on meanwhile), comes while tapboot is inside the save.
snaps=$XDG_CACHE_HOME/tapboot/snapshots
saving() { compgen -G "$snaps/.*.state.*" >/dev/null || compgen -G "$snaps/.*.ram.*" >/dev/null; }
n_save=0
for i in $(seq "$ROUNDS"); do
	rm -f "$snaps"/.* 2>/dev/null # a killed save's leftovers (the upkeep's after an hour)
	sums=$(ls "$snaps" 2>/dev/null | grep -c '\.sum$')
	manifest "$WORK/save.m" "pass_$i" "pass2_$i"
	STOP=1 kill_run save saving 0 80 -j 2 "$WORK/save.m"
	[ "$(ls "$snaps" | grep -c '\.sum$')" = "$sums" ] && n_save=$((n_save + 1))
done

# During a test: 0-1 s after the console says the (hanging) test started.
running() { consoles_have "$2" '# tapboot: run 1 '; }
manifest "$WORK/test.m" hang
n_test=0
for i in $(seq "$ROUNDS"); do
	kill_run test running 0 1000 "$WORK/test.m"
	[ "$PHASE" = test ] && n_test=$((n_test + 1))
done

# -j 2: two VMs (cold, saving or restored: whatever the cache holds by then), killed at a
# random time 0.3-3.5 s after tapboot's start, as the issue's orphaned QEMU was.
started() { :; }
manifest "$WORK/j2.m" pass hang pass2 hang2
for i in $(seq "$ROUNDS"); do
	kill_run j2 started 300 3500 -j 2 "$WORK/j2.m"
done
echo "# kills during the boot: $n_boot of $ROUNDS; the save: $n_save; a test: $n_test"
is "$n_boot" "$ROUNDS" "every 'boot' kill came before the init was ready"
# the save may end in the instant between its file's appearance and the SIGSTOP
[ "$n_save" -ge $((ROUNDS * 8 / 10)) ]
ok $? "at least 8 in 10 'save' kills came before the save was complete ($n_save of $ROUNDS)"
is "$n_test" "$ROUNDS" "every 'test' kill came while the test ran"
done_testing
