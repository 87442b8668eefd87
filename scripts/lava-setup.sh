#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lava-setup.sh: Debian 12's LAVA dispatcher (2023.01) extracted into a cache, ready for lava-run.
# Usage: scripts/lava-setup.sh   prints the directory; source DIR/env.sh, then run DIR/lava-run.sh
#
# The lava-dispatcher package pulls 149 packages (systemd-sysv, libguestfs, linux-headers, bcc):
# too much for a container or CI machine. The .debs of lava-common, lava-dispatcher and
# lava-dispatcher-host are unpacked with dpkg-deb -x instead, and only the python3 modules the
# dispatcher imports on the qemu + monitors path come from apt. Idempotent: a finished cache is
# reused (the marker file names the versions).
set -eu

cache=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/lava
pkgs="lava-common lava-dispatcher lava-dispatcher-host"
py_pkgs="python3-yaml python3-jinja2 python3-pexpect python3-voluptuous python3-requests \
python3-configobj python3-magic python3-netifaces python3-setproctitle python3-tz python3-pyudev"

missing=""
for p in $py_pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "tapboot: installing Debian packages:$missing" >&2
	if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing >&2 ||
		{ $SUDO apt-get update -q >&2 && $SUDO apt-get install -y -q --no-install-recommends $missing >&2; }
fi

want=$(apt-cache policy $pkgs | sed -n 's/^  Candidate: //p' | tr '\n' ' ')
if [ -f "$cache/done" ] && [ "$(cat "$cache/done")" = "$want" ]; then
	echo "$cache"
	exit 0
fi

mkdir -p "$(dirname "$cache")"
tmp=$(mktemp -d "$(dirname "$cache")/lava.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes into the current directory; as root it warns that _apt cannot read a
# private directory, which is harmless (the download then runs unsandboxed).
(cd "$tmp" && apt-get download $pkgs >&2 2>/dev/null) ||
	(cd "$tmp" && apt-get download $pkgs >&2) || {
	echo "tapboot: apt-get download $pkgs failed (needs Debian 12's archive)" >&2
	exit 3
}
for d in "$tmp"/*.deb; do
	dpkg-deb -x "$d" "$tmp/root"
done
# The stand-in: lava_dispatcher imports guestfs at module load
# (actions/deploy/apply_overlay.py, utils/filesystem.py) but calls it only to put an overlay
# into a disk image; a monitors job on an initramfs never does. python3-guestfs would pull
# libguestfs and supermin. Any call fails loudly rather than doing nothing.
mkdir -p "$tmp/stub"
cat >"$tmp/stub/guestfs.py" <<'EOF'
# guestfs.py: stand-in for python3-guestfs, imported but never called by LAVA's qemu + monitors path.
class GuestFS:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("tapboot's guestfs stand-in: libguestfs is not installed")
EOF
cat >"$tmp/env.sh" <<EOF
# env.sh: PYTHONPATH for the extracted LAVA (written by tapboot's scripts/lava-setup.sh)
PYTHONPATH=$cache/root/usr/lib/python3/dist-packages:$cache/stub
export PYTHONPATH
EOF
# lava-run.sh: lava-run 2023.01 with a private /var/lib/lava. 2023.01 refuses to run unless
# root and downloads into the fixed /var/lib/lava/dispatcher/tmp (configurable only from
# 2025.02): a mount namespace puts a private directory there, so nothing is left behind and two
# jobs never share it. Not root: unshare -r maps the user to root in a user namespace.
cat >"$tmp/lava-run.sh" <<EOF
#!/bin/sh
# lava-run.sh PRIVATE-DIR LAVA-RUN-ARGS...: Debian's lava-run with PRIVATE-DIR as /var/lib/lava
set -eu
priv=\$1; shift
. "$cache/env.sh"
if [ "\$(id -u)" -eq 0 ]; then
	[ -d /var/lib/lava ] || mkdir -p /var/lib/lava
	exec unshare -m sh -c 'mount --bind "\$0" /var/lib/lava && exec /usr/bin/python3 "$cache/root/usr/bin/lava-run" "\$@"' "\$priv" "\$@"
fi
[ -d /var/lib/lava ] || { echo "lava-run.sh: /var/lib/lava is missing (create it once as root)" >&2; exit 3; }
exec unshare -r -m sh -c 'mount --bind "\$0" /var/lib/lava && exec /usr/bin/python3 "$cache/root/usr/bin/lava-run" "\$@"' "\$priv" "\$@"
EOF
chmod +x "$tmp/lava-run.sh"
echo "$want" >"$tmp/done"
rm -rf "$cache"
mv "$tmp" "$cache"
trap - EXIT
echo "$cache"
