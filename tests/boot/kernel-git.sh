#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel-git.sh SRC REPO: a git repository REPO of the kernel tree SRC (the unpacked
# linux-source-6.1 of scripts/build-test-kernel.sh), made once and kept in the cache, with
# commits for tests/boot/56-build.sh on top of the tree as released (fixed dates, so the same
# ids every time):
#   main:    base -> "lib/list_sort.c: a comment" (good) -> "proc: /proc/version says broken"
#            (breaks procversion.sh) -> "proc: /proc/version as before" (fixes it)
#   nobuild: base -> "lib/list_sort.c: does not build"
# The work tree is a hard-linked copy of SRC (no space, instant); the commits are made with git's
# plumbing, never by writing into the work tree (its files share inodes with SRC). Prints
# "BASE GOOD BROKEN FIXED NOBUILD".
set -eu
src=$1 repo=$2
export GIT_AUTHOR_NAME=tapboot GIT_AUTHOR_EMAIL=tapboot@localhost
export GIT_COMMITTER_NAME=tapboot GIT_COMMITTER_EMAIL=tapboot@localhost
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
g() { git -C "$repo" "$@"; }

# one commit on parent: file (path in the tree) replaced by the output of the sed script
commit_edit() { # PARENT PATH SED-SCRIPT MESSAGE
	local parent=$1 path=$2 script=$3 msg=$4 blob tree idx
	idx=$(mktemp "$repo/.git/tapboot-index.XXXXXX")
	rm -f "$idx"
	blob=$(g show "$parent:$path" | sed "$script" | g hash-object -w --stdin)
	GIT_INDEX_FILE=$idx g read-tree "$parent"
	GIT_INDEX_FILE=$idx g update-index --cacheinfo "100644,$blob,$path"
	tree=$(GIT_INDEX_FILE=$idx g write-tree)
	rm -f "$idx"
	g commit-tree "$tree" -p "$parent" -m "$msg"
}

if [ ! -f "$repo/.tapboot-done" ]; then
	rm -rf "$repo" "$repo.tmp"
	cp -al "$src" "$repo.tmp"
	git -C "$repo.tmp" init -q
	git -C "$repo.tmp" add -A -f # -f: Debian's linux-source .gitignore ignores everything at the top (/*)
	git -C "$repo.tmp" commit -q -m "linux-source as released"
	mv "$repo.tmp" "$repo"
	base=$(g rev-parse HEAD)
	good=$(commit_edit "$base" lib/list_sort.c '1a /* tapboot test: a harmless comment */' \
		"lib/list_sort.c: a comment")
	broken=$(commit_edit "$good" fs/proc/version.c \
		's/^\(\t*\)seq_printf(m, linux_proc_banner,/\1seq_puts(m, "broken ");\n\1seq_printf(m, linux_proc_banner,/' \
		"proc: /proc/version says broken")
	fixed=$(commit_edit "$broken" fs/proc/version.c '/seq_puts(m, "broken ");/d' \
		"proc: /proc/version as before")
	nobuild=$(commit_edit "$base" lib/list_sort.c '1a #error "tapboot test: this commit does not build"' \
		"lib/list_sort.c: does not build")
	g update-ref refs/heads/series "$fixed"
	g update-ref refs/heads/nobuild "$nobuild"
	echo "$base $good $broken $fixed $nobuild" >"$repo/.tapboot-done"
fi
cat "$repo/.tapboot-done"
