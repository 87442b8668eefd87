// SPDX-License-Identifier: GPL-2.0-only
/* base64.c: one base64 digit's value (RFC 4648, section 4 and 5 alphabets). */
#include "base64.h"

int base64_digit(int c, bool url)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == (url ? '-' : '+'))
		return 62;
	if (c == (url ? '_' : '/'))
		return 63;
	return -1;
}
