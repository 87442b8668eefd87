#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 28-host-integrity.sh: what the host itself must get right whatever the input or the machine
# does (issue 41): non-regular files and NUL bytes refused at once, truncated kernels (x86_64
# bzImage, arm64 Image) refused, test names that cannot cross the console refused and the ones
# that can reported, kselftest-list.txt errors naming its line, the init's lines found after a
# test's 40 blanks, signals while building, a results directory that fills up mid-run, a QEMU
# stopped for 20 s (the timeout's reason says so) and Ctrl-C with -j 2 (interrupted, 130).
# Real boots of Debian's x86_64 kernel under TCG; a tmpfs is mounted (needs root).
. "$(dirname "$0")/lib.sh"

k=$(kernel x86_64)
ka=$(kernel arm64)
g=$GUEST/x86_64/static
for p in pass fail blanks nap hang; do
	[ -x "$g/$p" ] || bail "$g/$p is not built: run make"
done
export XDG_CACHE_HOME=$WORK/cache
mkdir -p "$XDG_CACHE_HOME"
cd "$WORK" || bail "no $WORK"
cp "$g/pass" "$g/fail" "$g/blanks" "$g/nap" "$g/hang" .

# run OUT ARGS...: tapboot run -q into OUT, stderr in OUT.err; the exit status in $rc
run() {
	local out=$1
	shift
	timeout -k 10 600 "$TAPBOOT" run -q -o "$out" "$@" >"$out.out" 2>"$out.err"
	rc=$?
}

# ---- non-regular files: refused at once (exit 2), nothing left behind ----
mkfifo fifo
run o-fifo-test --kernel "$k" fifo
is "$rc" 2 "a FIFO as a TEST: exit 2 (it blocked in open(2) forever)"
is "$(cat o-fifo-test.err)" "tapboot: test 'fifo' is a FIFO, not a file or a directory" \
	"... naming it"
run o-fifo-kernel --kernel fifo pass
is "$rc:$(cat o-fifo-kernel.err)" "2:tapboot: kernel 'fifo' is a FIFO, not a regular file" \
	"a FIFO as --kernel: exit 2, named"
run o-fifo-config --kernel "$k" --config fifo pass
is "$rc:$(cat o-fifo-config.err)" \
	"2:tapboot: kernel config 'fifo' is a FIFO, not a regular file" "a FIFO as --config"
run o-zero --kernel /dev/zero pass
is "$rc:$(cat o-zero.err)" \
	"2:tapboot: kernel '/dev/zero' is a character device, not a regular file" \
	"/dev/zero as --kernel"
run o-null --kernel "$k" /dev/null
is "$rc:$(cat o-null.err)" \
	"2:tapboot: test '/dev/null' is a character device, not a file or a directory" \
	"/dev/null as a TEST"
printf 'tapboot-manifest 1\nfile fifo /data/fifo\ntest p pass\n' >m-fifo
run o-mfifo --kernel "$k" m-fifo
is "$rc:$(cat o-mfifo.err)" "2:tapboot: m-fifo:2: './fifo' is not a regular file" \
	"a FIFO in a manifest's file line: its line"
"$TAPBOOT" build --arch x86_64 --config fifo -o fifo.cpio pass >/dev/null 2>b-fifo.err
is "$?:$(cat b-fifo.err)" "2:tapboot: kernel config 'fifo' is a FIFO, not a regular file" \
	"tapboot build --config FIFO: exit 2 (it built and ignored it)"
mkdir ks-fifo
mkfifo ks-fifo/kselftest-list.txt
run o-ksfifo --kernel "$k" --kselftest ks-fifo
is "$rc:$(cat o-ksfifo.err)" "2:tapboot: 'ks-fifo/kselftest-list.txt' is not a regular file" \
	"a FIFO as kselftest-list.txt: exit 2, named"
is "$(ls -d o-fifo-test o-fifo-kernel o-fifo-config o-zero o-null o-mfifo o-ksfifo fifo.cpio 2>/dev/null)" "" \
	"... and none of them left a results directory"

# ---- NUL bytes: FILE:LINE, exit 2 (everything after the NUL was dropped, exit 0) ----
printf 'tapboot-manifest 1\ntest a pass\n\0test b fail\n' >m-nul
run o-mnul --kernel "$k" m-nul
is "$rc:$(cat o-mnul.err)" "2:tapboot: m-nul:3: NUL byte in a manifest line" \
	"a NUL at a manifest line's start"
printf 'tapboot-manifest 1\ntest a pa\0ss\n' >m-nul2
run o-mnul2 --kernel "$k" m-nul2
is "$rc:$(cat o-mnul2.err)" "2:tapboot: m-nul2:2: NUL byte in a manifest line" \
	"a NUL inside a manifest line"
printf 'dir /tests 0755 0 0\n\0file /tests/b %s/fail 0755 0 0\n' "$WORK" >l-nul
run o-lnul --kernel "$k" l-nul
is "$rc:$(cat o-lnul.err)" "2:tapboot: l-nul:2: NUL byte in a list line" \
	"a NUL at a gen_init_cpio list line's start"

# ---- truncated kernels: refused naming both sizes ----
head -c 100000 "$k" >bz-short
want=$(od -An -tu1 -j $((0x1f1)) -N1 "$k" | tr -d ' ')
sys=$(od -An -tu4 -j $((0x1f4)) -N4 "$k" | tr -d ' ')
run o-bz --kernel bz-short pass
is "$rc:$(cat o-bz.err)" \
	"2:tapboot: kernel 'bz-short' is truncated: the file has 100000 bytes, its bzImage header says $(((want + 1) * 512 + sys * 16))" \
	"a bzImage cut to 100 KB: exit 2, both sizes (setup_sects, syssize)"
head -c 30000000 "$ka" >img-short
run o-img --kernel img-short "$GUEST/arm64/static/pass"
like "$rc:$(cat o-img.err)" \
	"^2:tapboot: kernel 'img-short' is truncated: the file has 30000000 bytes, its arm64 Image header says [0-9]+$" \
	"an arm64 Image cut to 30 MB: exit 2 (its PE sections end past the file)"

# ---- test names ----
for n in 'a\tb' 'a\nb' 'x ~tb:' ' lead' '- dash'; do
	printf 'tapboot-manifest 1\n# a comment\ntest "%s" pass\n' "$n" >m-name
	run o-name --kernel "$k" m-name
	like "$rc:$(cat o-name.err)" "^2:tapboot: m-name:3: test name '.*' (has a control character|holds the line tag's marker|starts or ends with a blank|starts with TAP's separator)" \
		"test name '$n' refused, naming the manifest's line"
done
mkdir -p ks/c
cp pass ks/c/t
cp pass ks/c/u
printf 'c:t\nc:u\x01x\n' >ks/kselftest-list.txt
run o-ks1 --kernel "$k" --kselftest ks
is "$rc:$(cat o-ks1.err)" \
	"2:tapboot: ks/kselftest-list.txt:2: control character 0x01 in a test name (a name is one field of a console line)" \
	"a control character in kselftest-list.txt: that file and line"
printf 'c:t\nc:u\nc:t\n' >ks/kselftest-list.txt
run o-ks2 --kernel "$k" --kselftest ks
is "$rc:$(cat o-ks2.err)" "2:tapboot: ks/kselftest-list.txt:3: a test named 'c:t' already exists" \
	"a builder error about a kselftest test names kselftest-list.txt:LINE (not the generated manifest)"
# names that do cross the console: blanks inside, '#', '\', quotes
printf 'tapboot-manifest 1\ntest "sp ace" pass\ntest "ha#sh" pass\ntest "back\\\\slash" fail\ntest "dq\\"x" pass\n' >m-odd
run o-odd --kernel "$k" m-odd
is "$rc" 1 "names with a blank, '#', '\\' and '\"': one fails, exit 1"
is "$(jq -c '[.complete, [.tests[] | [.name, .result]]]' o-odd/results.json)" \
	'[true,[["sp ace","pass"],["ha#sh","pass"],["back\\slash","fail"],["dq\"x","pass"]]]' \
	"... each reported under its own name, none missing, complete"

# ---- the init's lines after a test's 40 blanks (item 5) ----
printf 'tapboot-manifest 1\ntest a-pass pass\ntest b-blanks blanks\ntest c-fail fail\ntest d-blanks blanks\ntest e-pass pass\n' >m-blanks
run o-blanks --kernel "$k" m-blanks
is "$rc" 1 "40 blanks left on the console line before the init's verdict: exit 1 (was 3)"
is "$(jq -c '[.complete, [.tests[] | .result]]' o-blanks/results.json)" \
	'[true,["pass","pass","fail","pass","pass"]]' "... every verdict right, complete"
grep -qa '^                                        ok 2 b-blanks # time=' o-blanks/console.log
ok $? "... the console really had the blanks before the verdict"
"$TAPBOOT" parse o-blanks >parse.out 2>&1
is "$?:$(sed -n 2p parse.out | awk '{print $1, $3}')" "1:pass b-blanks" "tapboot parse of it agrees"

# ---- signals while building: exit 130 at once, no child left ----
head -c 60000000 /dev/urandom >big
printf 'tapboot-manifest 1\nfile big /data/big\ntest p pass\n' >m-big
"$TAPBOOT" run -q --compress xz --kernel "$k" -o o-sig m-big 2>o-sig.err &
pid=$!
for _ in $(seq 200); do
	kids=$(ps -o pid= --ppid $pid | tr -d ' ')
	ps -o comm= --ppid $pid | grep -q xz && break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
is "$rc" 130 "SIGINT while xz compresses the image: exit 130 (it waited for the build)"
is "$(cat o-sig.err)" "tapboot: interrupted before the boot" "... saying so"
# alive PID...: those still running (a zombie waiting for its reaper holds nothing)
alive() {
	local p out=""
	for p in "$@"; do
		[ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
			out+=" $p"
	done
	echo "${out# }"
}
sleep 1
is "$(alive $kids)" "" "... its xz is gone (libarchive's child: killed by the handler)"

# ---- a results directory that fills up mid-run (item 3) ----
mkdir mnt
if ! mount -t tmpfs -o size=16m tmpfs mnt 2>mount.err; then
	bail "cannot mount a tmpfs (needs root): $(cat mount.err)"
fi
trap 'umount "$WORK/mnt" 2>/dev/null; rm -rf "$WORK"' EXIT
# full ARCH KERNEL: a run into mnt/ARCH whose tmpfs dd fills while its first test sleeps
full() {
	local arch=$1 kern=$2 gd=$GUEST/$1/static d=mnt/$1
	mkdir -p "full-$arch"
	cp "$gd/nap" "$gd/pass" "full-$arch/"
	printf 'tapboot-manifest 1\ntest nap nap\n    arg 6\n    arg 200\ntest pass pass\n' \
		>"full-$arch/m"
	"$TAPBOOT" run -q --kernel "$kern" -o "$d" "full-$arch/m" >"full-$arch.out" \
		2>"full-$arch.err" &
	pid=$!
	for _ in $(seq 600); do
		grep -qs "tapboot: run 1 nap" "$d/console.log" && break
		sleep 0.2
	done
	dd if=/dev/zero of=mnt/filler bs=64k 2>/dev/null
	wait $pid
	rc=$?
	rm -f mnt/filler
	is "$rc" 3 "$arch: a results directory full while a test runs: exit 3 (was 0)"
	is "$(cat "full-$arch.err")" "tapboot: cannot write '$d/console.log': No space left on device" \
		"$arch: ... naming the file and errno"
	is "$(jq -c '[.error, .complete, [.tests[] | .result]]' "$d/results.json")" \
		"[\"cannot write '$d/console.log': No space left on device\",false,[\"pass\",\"pass\"]]" \
		"$arch: ... results.json written: the error, incomplete, both verdicts read"
	[ -s "$d/junit.xml" ] && [ -s "$d/kcidb.json" ] && [ -s "$d/results.tap" ]
	ok $? "$arch: ... junit.xml, kcidb.json and results.tap written too"
	like "$(tail -1 "$d/console.log")" \
		"^tapboot: console.log cut here, after [0-9]+ bytes of the console: No space left on device$" \
		"$arch: ... console.log says where it was cut"
	[ ! -e "$d/.tapboot-reserve" ]
	ok $? "$arch: ... the reserve is gone"
	rm -rf "$d"
}
[ -x "$GUEST/arm64/static/nap" ] || bail "$GUEST/arm64/static/nap is not built: run make"
full x86_64 "$k"
full arm64 "$ka"
umount mnt

# qemu_of PID: the QEMU processes among tapboot PID's children
qemu_of() { ps -o pid=,comm= --ppid "$1" | awk '/qemu-system/ {print $1}'; }

# ---- a QEMU stopped for 20 s during a test's timeout (item 9) ----
printf 'tapboot-manifest 1\ntest hang hang\ntest pass pass\n' >m-stall
"$TAPBOOT" run -q --timeout 10 --kernel "$k" -o o-stall m-stall >stall.out 2>stall.err &
pid=$!
for _ in $(seq 900); do
	grep -qs "tapboot: run 1 hang" o-stall/console.log && break
	sleep 0.2
done
q=$(qemu_of $pid)
[ -n "$q" ]
ok $? "QEMU found among tapboot's children ($q)"
kill -STOP $q
sleep 20
kill -CONT $q
wait $pid
is "$?" 1 "QEMU stopped 20 s during a --timeout 10 test: exit 1 (a timeout)"
like "$(reason o-stall hang)" \
	'^timeout after 10 s \(QEMU was stopped or starved for (19|2[0-9])\.[0-9] s of it\)$' \
	"... the timeout's reason names the stall"
is "$(verdict o-stall hang):$(verdict o-stall pass):$(reason o-stall pass)" "timeout:pass:" \
	"... the verdict stays a timeout, the next test passes without a note"
grep -q 'QEMU was stopped or starved for' o-stall/junit.xml &&
	grep -q 'QEMU was stopped or starved for' o-stall/kcidb.json
ok $? "... junit.xml and kcidb.json say it too"

# ---- Ctrl-C with -j 2 while tests run: interrupted, exit 130, results written ----
printf 'tapboot-manifest 1\ntest h1 hang\ntest h2 hang\ntest h3 hang\ntest p pass\n' >m-int
"$TAPBOOT" run -q -j 2 --timeout 60 --kernel "$k" -o o-int m-int >int.out 2>int.err &
pid=$!
for _ in $(seq 1200); do
	[ "$(cat o-int/console.*.log 2>/dev/null | grep -ac 'tapboot: run [0-9] h')" -ge 2 ] && break
	sleep 0.2
done
qs=$(qemu_of $pid)
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT with -j 2 while two tests run: exit 130"
is "$(jq -c '[.complete, [.tests[] | .result]]' o-int/results.json)" \
	'[false,["interrupted","interrupted","missing","missing"]]' \
	"... the running tests are interrupted (not crash), the others missing"
is "$(jq -c '[.tests[] | .status]' o-int/kcidb.json)" '["SKIP","SKIP","MISS","MISS"]' \
	"... KCIDB: SKIP for interrupted (its status of test and code unknown), MISS"
is "$(jq -r '.summary.interrupted' o-int/results.json)" 2 "... counted in the summary"
is "$(alive $qs)" "" "... no QEMU left"
done_testing
