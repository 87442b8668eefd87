#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 02-license.sh: tapboot is GPL-2.0-only: LICENSE holds the GPL-2.0 text, debian/copyright
# says so, and every tracked source file, script and Makefile opens with the SPDX line
# (scripts/spdx-add.sh --check: the same selection and forms scripts/spdx-add.sh adds). No boot.
. "$(dirname "$0")/lib.sh"

# the sha256 of the FSF's GPL-2 text as Debian ships it (/usr/share/common-licenses/GPL-2)
is "$(sha256sum <"$TOP/LICENSE" | cut -d' ' -f1)" 8177f97513213526df2cf6184d8ff986c675afb514d4e68a404010521b880643 \
	"LICENSE is the GPL-2.0 text"
is "$(grep -c '^License: GPL-2$' "$TOP/debian/copyright")" 2 "debian/copyright: Files: * under GPL-2, with its licence paragraph"
like "$(cat "$TOP/debian/copyright")" "GPL-2.0-only" "debian/copyright names GPL-2.0-only"

git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || bail "$TOP is not a git checkout: the tracked files are not known"
n=$("$TOP/scripts/spdx-add.sh" --list | wc -l)
missing=$("$TOP/scripts/spdx-add.sh" --check)
is "$(printf '%s' "$missing" | grep -c .)" 0 "all $n source files, scripts and Makefiles open with SPDX-License-Identifier: GPL-2.0-only"
[ -z "$missing" ] || { echo "# without it (scripts/spdx-add.sh adds it):"; printf '%s\n' "$missing" | head -20 | sed 's/^/#   /'; }
done_testing
