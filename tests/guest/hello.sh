#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# hello.sh: a shell test (needs /bin/sh in the image). Expected verdict: pass (exit 0).
echo "hello from $0 in $(pwd)"
exit 0
