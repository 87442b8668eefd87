// SPDX-License-Identifier: GPL-2.0-only
/* badutf8.c: prints bytes that are not UTF-8, a control character and no final newline; exits 0.
 * Expected verdict: pass; the console shows them escaped: "bad: \xff\xfe ok: é \x1b[0m end". */
#include <stdio.h>

int main(void)
{
	fputs("bad: \xff\xfe ok: \xc3\xa9 \x1b[0m end", stdout);
	return 0;
}
