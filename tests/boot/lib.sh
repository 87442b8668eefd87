# SPDX-License-Identifier: GPL-2.0-only
# lib.sh: helpers for the real-boot tests (sourced). TAP on stdout; the test fails, with a
# message saying what to install, when a kernel or QEMU is missing (it never skips silently).
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$TOP/build}
TAPBOOT=${TAPBOOT:-$OUT/tapboot}
GUEST=$OUT/guest
_n=0
_failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tapboot-boot.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok() { # ok COND-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}

is() { # is GOT WANT DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		_failed=$((_failed + 1))
	fi
}

like() { # like GOT REGEX DESCRIPTION
	_n=$((_n + 1))
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		echo "#   got:  '$(printf '%s' "$1" | head -c 600)'"
		echo "#   want match: '$2'"
		_failed=$((_failed + 1))
	fi
}

skip() { # skip DESCRIPTION REASON: a test point not run, "ok N - DESCRIPTION # SKIP REASON"
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}

bail() {
	echo "Bail out! $*"
	exit 1
}

# Other projects' data some checks compare with: $TAPBOOT_SHARED, else ../shared beside the
# source tree. A plain clone has none: those checks skip with the reason (shared_missing's
# text, which names TAPBOOT_SHARED), and .ci/run fails when one skipped there.
SHARED=${TAPBOOT_SHARED:-$TOP/../shared}
export TAPBOOT_SHARED=$SHARED # the same place for tests/kcidb-check.py and kcidb-server.py
KCIDB_SCHEMA=$SHARED/kcidb/kcidb-io.schema.v5.3.json
shared_missing() { # shared_missing WHAT PATH: the skip reason
	echo "no $1: '$2' does not exist (set TAPBOOT_SHARED)"
}

# kcidb_check_all: every kcidb.json the script made (in $WORK) validates against KCIDB v5.3
# (tests/kcidb-check.py, with date-time and uri checked), and no two runs share an id.
kcidb_check_all() {
	local files out
	files=$(find "$WORK" -name kcidb.json -type f 2>/dev/null | sort)
	[ -n "$files" ] || return 0
	if [ ! -f "$KCIDB_SCHEMA" ]; then
		skip "kcidb.json of $(echo "$files" | wc -l) results directories: KCIDB v5.3, ids distinct" \
			"$(shared_missing "KCIDB schema" "$KCIDB_SCHEMA")"
		return 0
	fi
	# shellcheck disable=SC2086
	out=$(/usr/bin/python3 "$TOP/tests/kcidb-check.py" --distinct $files 2>&1)
	ok $? "kcidb.json of $(echo "$files" | wc -l) results directories: KCIDB v5.3, ids distinct"
	[ -z "$out" ] || printf '%s\n' "$out" | head -20 | sed 's/^/# /'
}

done_testing() {
	kcidb_check_all
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
	exit $?
}

# kernel ARCH: the cached Debian kernel (fetched on first use).
kernel() {
	"$TOP/scripts/fetch-kernel.sh" "$1" || bail "no kernel for $1: scripts/fetch-kernel.sh $1 failed (needs Debian's archive)"
}

need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || bail "'$1' is missing: apt-get install $2 (or make deps)"
}

# verdict DIR NAME: the result of test NAME in DIR/results.json
verdict() {
	jq -r --arg n "$2" '[.tests[] | select(.name == $n) | .result] | if length == 0 then "absent" else .[0] end' "$1/results.json" 2>/dev/null || echo "no results.json"
}

reason() {
	jq -r --arg n "$2" '[.tests[] | select(.name == $n) | .reason // ""] | .[0] // ""' "$1/results.json" 2>/dev/null
}

need jq jq
[ -x "$TAPBOOT" ] || bail "$TAPBOOT is not built: run make"
