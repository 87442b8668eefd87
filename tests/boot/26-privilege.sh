#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 26-privilege.sh: issue 41, items 1 and 2, real boots on Debian's x86_64 and arm64 kernels.
# - A root test cannot reach the init's memory: every capability probe (tests/guest/privprobe.c:
#   /proc/1/mem, process_vm_readv, ptrace of PID 1, /proc/kcore, mknod, init_module, reboot)
#   is refused; the forger (tests/guest/memforge.c: reads PID 1's memory, finds the line-tag
#   key by trying every 16-byte window against a tagged line, writes tagged verdicts and an end
#   line) cannot start, and the test after it keeps its real verdict (fail), exit 1.
# - The same tests flagged privileged run in VMs of their own with every capability: the probe
#   reaches everything and the forger really finds the key (the attack works when allowed),
#   forging only its own VM's lines: the victim's real fail stands.
# - The tests image is read-only to the guest: a test that maps the ivshmem BAR writable and
#   writes leaves RESULTS/tests.cpio unchanged, with -j 2 (a saving and a restored VM).
. "$(dirname "$0")/lib.sh"

result_list() { jq -r '[.tests[] | "\(.name)=\(.result)"] | join(" ")' "$1/results.json"; }

for arch in x86_64 arm64; do
	k=$(kernel "$arch")
	g=$GUEST/$arch/static
	m=$WORK/m-$arch
	mkdir -p "$m"
	cp "$g/pass" "$g/fail" "$g/privprobe" "$g/memforge" "$g/tests_write" "$m/"
	for priv in no yes; do
		flag=
		[ "$priv" = yes ] && flag="    flag privileged"
		cat >"$m/manifest-$priv" <<EOT
tapboot-manifest 1
test a_first pass
test b_probe privprobe
$flag
test c_forger memforge
    arg d_victim
$flag
test d_victim fail
test e_last pass
EOT
	done
	d=$WORK/r-$arch
	"$TAPBOOT" run --kernel "$k" -o "$d" -q "$m/manifest-no" >/dev/null 2>"$WORK/e"
	is "$?" 1 "$arch: a root test against the init: exit 1 (the victim's real fail)"
	is "$(result_list "$d")" "a_first=pass b_probe=pass c_forger=fail d_victim=fail e_last=pass" \
		"$arch: every verdict the init's: probe refused everything, forger failed, victim fail"
	for what in "open /proc/1/mem" "process_vm_readv 1" "ptrace seize 1" "open /proc/kcore" \
		"mknod /dev/mem's node" "init_module" "reboot\(CAD_OFF\)"; do
		like "$(cat "$d/tests/b_probe.log")" "# $what +refused \(" "$arch: $what refused"
	done
	like "$(cat "$d/tests/c_forger.log")" "memforge: cannot open /proc/1/maps: Permission denied" \
		"$arch: the forger cannot read the init's memory"
	is "$(grep -c 'memforge: wrote' "$d/tests/c_forger.log")" 0 "$arch: ... and wrote nothing"

	d=$WORK/p-$arch
	"$TAPBOOT" run --kernel "$k" -o "$d" -q "$m/manifest-yes" >/dev/null 2>"$WORK/e"
	st=$?
	ok "$([ "$st" -ne 0 ] && echo 0 || echo 1)" "$arch privileged: not exit 0 (exit $st)"
	# the forger forged its own verdict (a pass: it exits 1), in its own VM: allowed, said in
	# docs/DESIGN.md's threat model; the victim's real fail stands
	is "$(result_list "$d")" "a_first=pass b_probe=fail c_forger=pass d_victim=fail e_last=pass" \
		"$arch privileged: the forger's forgery reached only its own verdict, the victim's fail stands"
	is "$(ls "$d"/console.*.log | wc -l)" 3 "$arch privileged: each privileged test in a VM of its own"
	like "$(cat "$d/tests/b_probe.log")" "# open /proc/1/mem +ok" "$arch privileged: the probe read /proc/1/mem"
	like "$(cat "$d"/console.*.log)" "memforge: found the key" \
		"$arch privileged: the forger found the key (the attack is real)"
	like "$(grep -l 'c_forger' "$d"/console.*.log | tr '\n' ' ')" "console\.[23]\.log" \
		"$arch privileged: the forger ran apart from the victim"

	# the tests image: read-only to the guest
	d=$WORK/w-$arch
	"$TAPBOOT" run --kernel "$k" -o "$d" -q -j 2 "$m/tests_write" "$m/pass" "$m/fail" >/dev/null 2>"$WORK/e"
	is "$?" 1 "$arch tests image: exit 1 (fail fails)"
	is "$(result_list "$d")" "tests_write=pass pass=pass fail=fail" "$arch tests image: the verdicts"
	like "$(cat "$d/tests/tests_write.log")" "mapped .*resource2 writable" "$arch tests image: the test mapped the BAR writable"
	like "$(cat "$d/tests/tests_write.log")" "after the write: 070701" "$arch tests image: its write did not land"
	is "$(head -c 6 "$d/tests.cpio")" "070701" "$arch tests image: the host's tests.cpio is unchanged"
	is "$(stat -c %a "$d/tests.cpio")" 444 "$arch tests image: tests.cpio is read-only"
	like "$(cat "$d/reproduce.sh")" "readonly=on" "$arch tests image: reproduce.sh maps it read-only too"
done
done_testing
