#!/bin/sh
# apt-state.sh (sourced): apt options for fetching Debian packages without touching the
# machine's dpkg or needing root: a private apt state under $XDG_CACHE_HOME/tapboot/, updated at
# most once a day. Sets $aptopts (empty when root fetches for its own architecture and release,
# where the machine's own apt lists serve).
# Usage: apt_state DEBARCH WHO [RELEASE]   (RELEASE: a Debian suite, e.g. trixie; empty: the
# machine's own sources). $TAPBOOT_DEBIAN_MIRROR overrides http://deb.debian.org for a RELEASE.
apt_state() {
	local debarch=$1 who=$2 release=${3:-} hostarch state mirror sec
	hostarch=$(dpkg --print-architecture)
	aptopts=""
	if [ -z "$release" ] && [ "$debarch" = "$hostarch" ] && [ "$(id -u)" = 0 ]; then
		return 0
	fi
	state=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/apt-${release:+$release-}$debarch
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	aptopts="-o APT::Architectures::=$hostarch -o APT::Architectures::=$debarch -o Dir::State::Lists=$state/lists -o Dir::Cache=$state/cache -o Dir::State::Status=/var/lib/dpkg/status"
	if [ -n "$release" ]; then
		# Only this release's archive, signed by the keys debian-archive-keyring ships.
		mirror=${TAPBOOT_DEBIAN_MIRROR:-http://deb.debian.org}
		sec=/usr/share/keyrings/debian-archive-keyring.gpg
		mkdir -p "$state/sources.list.d"
		printf 'deb [signed-by=%s] %s/debian %s main\ndeb [signed-by=%s] %s/debian-security %s-security main\n' \
			"$sec" "$mirror" "$release" "$sec" "$mirror" "$release" >"$state/sources.list.new"
		if ! cmp -s "$state/sources.list.new" "$state/sources.list" 2>/dev/null; then
			mv "$state/sources.list.new" "$state/sources.list"
			rm -f "$state/updated"
		else
			rm -f "$state/sources.list.new"
		fi
		aptopts="$aptopts -o Dir::Etc::SourceList=$state/sources.list -o Dir::Etc::SourceParts=$state/sources.list.d"
	fi
	# root with a private state: apt's _apt user cannot enter root's cache, so apt would warn
	# on every download that it stays root; say so once here instead
	[ "$(id -u)" != 0 ] || aptopts="$aptopts -o APT::Sandbox::User=root"
	if [ ! -f "$state/updated" ] || [ -n "$(find "$state/updated" -mmin +1440 2>/dev/null)" ]; then
		echo "$who: apt-get update for ${release:-the sources of this machine}, $debarch (private state in $state)" >&2
		# shellcheck disable=SC2086
		apt-get $aptopts update -q >&2
		touch "$state/updated"
	fi
}

# conf_dir: the configs directory: $TAPBOOT_CONFIGS (tapboot sets it for its helpers), else the
# source tree's (scripts/../configs), else the installed one (LIBEXECDIR/tapboot/../../share).
conf_dir() {
	local here
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -n "${TAPBOOT_CONFIGS:-}" ]; then
		echo "$TAPBOOT_CONFIGS"
	elif [ -d "$here/../configs" ]; then
		(cd "$here/../configs" && pwd)
	elif [ -d "$here/../../share/tapboot/configs" ]; then
		(cd "$here/../../share/tapboot/configs" && pwd)
	else
		echo "$here/../configs"
	fi
}
