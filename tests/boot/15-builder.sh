#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 15-builder.sh: issue 3 in real boots. Every compression tapboot offers boots (the kernel's
# XZ decoder wants CRC32, its LZ4 decoder the legacy format, FACTS.md); the init sees every file
# of a packed tree and of a gen_init_cpio list, byte for byte; dynamic and shell tests run;
# a module and its dependencies from modules.dep are loaded before the tests.
. "$(dirname "$0")/lib.sh"

# A tree with data files, a symlink and a checking test; its MD5SUMS is packed beside them.
t=$WORK/tree
mkdir -p "$t/data/sub"
head -c 100000 /dev/urandom >"$t/data/sub/blob"
printf 'hello\n' >"$t/data/a.txt"
ln -s a.txt "$t/data/link"
(cd "$t" && md5sum data/a.txt data/sub/blob >MD5SUMS)
cat >"$t/check-tree.sh" <<'EOS'
#!/bin/sh
# run from /tests (the test's own directory)
md5sum -c MD5SUMS || exit 1
[ "$(readlink data/link)" = a.txt ] || { echo "bad symlink"; exit 1; }
[ "$(cat data/link)" = hello ] || exit 1
# from the gen_init_cpio list
[ -d /extra ] && [ "$(cat /extra/hello)" = "from a list" ] || { echo "list file missing"; exit 1; }
[ "$(readlink /extra/l)" = hello ] || exit 1
[ -c /extra/null ] || { echo "device node missing"; exit 1; }
[ "$(stat -c %a /extra/hello)" = 640 ] || { echo "mode not kept"; exit 1; }
echo "tree ok"
EOS
chmod 755 "$t/check-tree.sh"
printf 'from a list\n' >"$WORK/hello.txt"
cat >"$WORK/extra.list" <<EOL
# a CONFIG_INITRAMFS_SOURCE-style list
dir /extra 0755 0 0
file /extra/hello $WORK/hello.txt 0640 0 0
slink /extra/l hello 0777 0 0
nod /extra/null 0666 0 0 c 1 3
EOL

for arch in x86_64 arm64; do
	k=$(kernel "$arch")
	for c in none gzip xz zstd lz4; do
		d=$WORK/$arch-$c
		"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 20 --compress "$c" "$t" "$WORK/extra.list" >/dev/null 2>"$WORK/err-$arch-$c"
		rc=$?
		is "$rc" 0 "$arch: a $c image boots and the init sees every file"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$WORK/err-$arch-$c" | head -5
		is "$(verdict "$d" check-tree.sh)" pass "$arch $c: tree and list checked in the guest"
	done
	ok "$(grep -q "tree ok" "$WORK/$arch-none/tests/check-tree.sh.log"; echo $?)" "$arch: the check's output is in its log"
	g=$GUEST/$arch
	d=$WORK/$arch-dyn
	"$TAPBOOT" run --kernel "$k" -o "$d" -q --timeout 20 "$g/dynamic/pass" "$g/scripts/hello.sh" >/dev/null 2>&1
	is "$?" 0 "$arch: a dynamically linked test and a shell test pass"
	ok "$(bsdcpio -it <"$d/initramfs.cpio" 2>/dev/null | grep -q '^bin/busybox$'; echo $?)" "$arch: busybox was added for the #! test"
done

# Modules: vxlan needs udp_tunnel and ip6_udp_tunnel (modules.dep); all three are packed and
# loaded, dependencies first, before the tests.
k=$(kernel x86_64)
mods=$(ls -d "$(dirname "$(dirname "$k")")"/lib/modules/* | head -1)
[ -f "$mods/modules.dep" ] || bail "no modules.dep in $mods: apt-get install kmod, then scripts/fetch-kernel.sh x86_64"
cat >"$WORK/mod.sh" <<'EOS'
#!/bin/sh
for m in vxlan udp_tunnel ip6_udp_tunnel; do
	[ -d /sys/module/$m ] || { echo "module $m not loaded"; exit 1; }
done
echo "modules loaded"
EOS
chmod 755 "$WORK/mod.sh"
d=$WORK/mod
"$TAPBOOT" run --kernel "$k" -o "$d" -q --modules "$mods" --module vxlan "$WORK/mod.sh" >/dev/null 2>"$WORK/err-mod"
is "$?" 0 "modules: the run passes"
is "$(verdict "$d" mod.sh)" pass "modules: vxlan and its dependencies are loaded in the guest"
# A manifest whose first line has a trailing space is still a manifest (issue 40: it was read
# as a gen_init_cpio list and got that format's error); another version is the manifest's error.
m=$WORK/manifest
mkdir -p "$m"
cp "$GUEST/x86_64/static/pass" "$m/pass"
printf 'tapboot-manifest 1 \ntest pass pass\n' >"$m/list"
"$TAPBOOT" run --kernel "$k" -o "$WORK/man1" -q "$m/list" >/dev/null 2>"$WORK/err-man1"
is "$?:$(verdict "$WORK/man1" pass)" "0:pass" "a manifest with a trailing space on its first line: its test passes"
printf 'tapboot-manifest 2\ntest pass pass\n' >"$m/list2"
out=$("$TAPBOOT" build --arch x86_64 -o "$WORK/man2.cpio" "$m/list2" 2>&1)
is "$?:$out" "2:tapboot: $m/list2:1: expected 'tapboot-manifest 1'" "another manifest version: exit 2, file and line"
done_testing
