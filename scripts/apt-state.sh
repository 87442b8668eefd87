#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# apt-state.sh (sourced): apt options for fetching packages of a foreign architecture or of
# another Debian release without touching the machine's dpkg or apt, and without root: a private
# apt state under $XDG_CACHE_HOME/tapboot/apt-DEBARCH (apt-RELEASE-DEBARCH for another release),
# updated at most once a day. Another release's sources are the machine's own Debian sources
# (same mirrors and keyrings) with the machine's codename replaced by RELEASE: Debian 12's archive
# keyring already holds trixie's keys. Sets $aptopts (empty when root fetches for the host's own
# architecture and release, where the machine's own apt lists serve; a normal user always gets a
# private state, since it cannot update the machine's lists).
# Usage: apt_state DEBARCH WHO [RELEASE]
apt_state() {
	local debarch=$1 who=$2 release=${3:-} hostarch hostrel state f new
	hostarch=$(dpkg --print-architecture)
	hostrel=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
	[ -n "$release" ] || release=$hostrel
	aptopts=""
	[ "$debarch" = "$hostarch" ] && [ "$release" = "$hostrel" ] && [ "$(id -u)" = 0 ] && return 0
	if [ "$release" = "$hostrel" ]; then
		state=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/apt-$debarch
	else
		state=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/apt-$release-$debarch
	fi
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	aptopts="-o APT::Architectures::=$hostarch -o APT::Architectures::=$debarch -o Dir::State::Lists=$state/lists -o Dir::Cache=$state/cache -o Dir::State::Status=/var/lib/dpkg/status"
	if [ "$release" != "$hostrel" ]; then
		if [ -z "$hostrel" ]; then
			echo "$who: cannot tell this machine's Debian release (/etc/os-release has no VERSION_CODENAME), so no $release sources can be made from its own" >&2
			return 1
		fi
		# Rebuilt each time from the machine's sources, so a changed mirror carries over.
		new=$(mktemp -d "$state/sources.XXXXXX")
		[ -f "$state/sources.list" ] || : >"$state/sources.list"
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && grep -qw "$hostrel" "$f" || continue
			case $f in
			*.sources) sed "/^[[:space:]]*Suites:/s/\\b$hostrel\\b/$release/g" "$f" >"$new/$(basename "$f")" ;;
			*) sed -E "s/^([[:space:]]*deb(-src)?[[:space:]].*[[:space:]])$hostrel([-[:space:]])/\\1$release\\3/" "$f" >"$new/$(basename "$f" .list)-$(echo "$f" | cksum | cut -d' ' -f1).list" ;;
			esac
		done
		if ! grep -rqw "$release" "$new"; then
			rm -rf "$new"
			echo "$who: no Debian $hostrel sources in /etc/apt to make $release sources from" >&2
			return 1
		fi
		# Replaced only when the machine's sources changed: a fetch running beside this one
		# keeps reading the same files.
		if ! diff -r "$new" "$state/sources.list.d" >/dev/null 2>&1; then
			rm -rf "$state/sources.list.d" "$state/updated"
			mv "$new" "$state/sources.list.d"
		else
			rm -rf "$new"
		fi
		aptopts="$aptopts -o Dir::Etc::SourceList=$state/sources.list -o Dir::Etc::SourceParts=$state/sources.list.d"
	fi
	# root with a private state: apt's _apt user cannot enter root's cache, so apt would warn
	# on every download that it stays root; say so once here instead
	[ "$(id -u)" != 0 ] || aptopts="$aptopts -o APT::Sandbox::User=root"
	if [ ! -f "$state/updated" ] || [ -n "$(find "$state/updated" -mmin +1440 2>/dev/null)" ]; then
		echo "$who: apt-get update for $debarch${3:+ $release} (private state in $state)" >&2
		# An index that fails (a mirror caught mid-sync: "File has unexpected size") is
		# skipped by apt, which keeps the others: go on with them, and try again next time.
		# shellcheck disable=SC2086
		if apt-get $aptopts update -q >&2; then
			touch "$state/updated"
		else
			echo "$who: apt-get update for $debarch failed in part (above); going on with the indexes it fetched" >&2
		fi
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
