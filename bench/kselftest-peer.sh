#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kselftest-peer.sh TREE DIR [run_kselftest.sh ARGS...]: writes DIR/peer.cpio, the peer the
# kselftest comparisons boot: busybox-static, the install TREE at /kselftest, and an init that
# makes the mounts tapboot's init makes (init/setup.c), so both see the same system, then runs
# the kernel's own run_kselftest.sh. No /usr/bin/timeout: busybox's has no --foreground, which
# runner.sh passes. Used by bench/run.sh and tests/boot/40-kselftest.sh.
set -eu
tree=$1 p=$2
shift 2
[ -x /bin/busybox ] || { echo "kselftest-peer: /bin/busybox missing: apt-get install busybox-static" >&2; exit 2; }
mkdir -p "$p/root/bin" "$p/root/kselftest"
cp /bin/busybox "$p/root/bin/busybox"
cp -a "$tree/." "$p/root/kselftest/"
cat >"$p/root/init" <<EOS
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs -o mode=0755 devtmpfs /dev
exec >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t configfs configfs /sys/kernel/config
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
echo "# peer: begin"
cd /kselftest && ./run_kselftest.sh $*
echo "# peer: end"
poweroff -f
EOS
chmod 755 "$p/root/init"
(cd "$p/root" && find . | cpio -o -H newc --quiet >"$p/peer.cpio")
