#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# procversion.sh: /proc/version starts with "Linux version " (tests/boot/56-build.sh's series
# has a commit that breaks that). Expected verdict: pass on a kernel as released.
read -r line </proc/version
case $line in
"Linux version "*) exit 0 ;;
esac
echo "/proc/version: $line"
exit 1
