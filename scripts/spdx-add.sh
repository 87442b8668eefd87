#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# spdx-add.sh: the SPDX licence line of every tracked source file, script and Makefile
# (tapboot is GPL-2.0-only, LICENSE), in the kernel's forms: `// SPDX-License-Identifier:
# GPL-2.0-only` opening a .c file, `/* SPDX-License-Identifier: GPL-2.0-only */` a .h file,
# `# SPDX-License-Identifier: GPL-2.0-only` a script, Makefile or Python file (after its #!
# line when it has one).
#
# Usage: scripts/spdx-add.sh          add the line where it is missing (in the working tree)
#        scripts/spdx-add.sh --check  list the files without it (one per line), exit 1 if any
#        scripts/spdx-add.sh --list   list the files that must have it
# Test data is left alone: tests/fixtures/ (captured consoles, kselftest trees) and fuzz's
# seeds and regression inputs are bytes the tests compare with.
set -eu
cd "$(dirname "$0")/.."
ID="SPDX-License-Identifier: GPL-2.0-only"

# the files that must carry the line
list() {
	git ls-files | grep -vE '^(tests/fixtures|fuzz/seeds|fuzz/regress)/' | while IFS= read -r f; do
		[ -f "$f" ] || continue # removed in the working tree
		case $f in
		*.c | *.h | *.sh | *.py | Makefile | */Makefile | *.mk | *.bash-completion) echo "$f" ;;
		*) [ "$(head -c 2 "$f")" = '#!' ] && echo "$f" ;;
		esac
	done
	return 0
}

# the line a file gets
line_for() {
	case $1 in
	*.c) echo "// $ID" ;;
	*.h) echo "/* $ID */" ;;
	*) echo "# $ID" ;;
	esac
}

# has FILE: the line is there, first or (after a #! line) second
has() {
	local want
	want=$(line_for "$1")
	if [ "$(head -c 2 "$1")" = '#!' ]; then
		[ "$(sed -n 2p "$1")" = "$want" ]
	else
		[ "$(head -n 1 "$1")" = "$want" ]
	fi
}

case ${1:-} in
--list)
	list
	;;
--check)
	missing=0
	while IFS= read -r f; do
		has "$f" || { echo "$f"; missing=1; }
	done < <(list)
	exit "$missing"
	;;
"")
	n=0
	while IFS= read -r f; do
		has "$f" && continue
		want=$(line_for "$f")
		mode=$(stat -c %a "$f")
		tmp=$(mktemp "$f.spdx.XXXXXX")
		if [ "$(head -c 2 "$f")" = '#!' ]; then
			{ head -n 1 "$f"; echo "$want"; tail -n +2 "$f"; } >"$tmp"
		else
			{ echo "$want"; cat "$f"; } >"$tmp"
		fi
		chmod "$mode" "$tmp"
		mv "$tmp" "$f"
		n=$((n + 1))
	done < <(list)
	echo "spdx-add: added the line to $n files"
	;;
*)
	sed -n 's/^# \{0,1\}//; 8,10p' "$0" >&2
	exit 2
	;;
esac
