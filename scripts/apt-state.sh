# apt-state.sh (sourced): apt options for fetching packages of a foreign architecture without
# touching the machine's dpkg: a private apt state under $XDG_CACHE_HOME/tapboot/apt-DEBARCH,
# updated at most once a day. Sets $aptopts (empty for the host's own architecture).
# Usage: apt_state DEBARCH WHO
apt_state() {
	local debarch=$1 who=$2 hostarch state
	hostarch=$(dpkg --print-architecture)
	aptopts=""
	[ "$debarch" = "$hostarch" ] && return 0
	state=${XDG_CACHE_HOME:-$HOME/.cache}/tapboot/apt-$debarch
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	aptopts="-o APT::Architectures::=$hostarch -o APT::Architectures::=$debarch -o Dir::State::Lists=$state/lists -o Dir::Cache=$state/cache -o Dir::State::Status=/var/lib/dpkg/status"
	if [ ! -f "$state/updated" ] || [ -n "$(find "$state/updated" -mmin +1440 2>/dev/null)" ]; then
		echo "$who: apt-get update for $debarch (private state in $state)" >&2
		# shellcheck disable=SC2086
		apt-get $aptopts update -q >&2
		touch "$state/updated"
	fi
}
