/* SPDX-License-Identifier: GPL-2.0-only */
/* base64.h: the value of one base64 digit (RFC 4648), shared by the line tags (base64url) and
 * repro's decoder of mails' attachments (the standard alphabet). */
#ifndef TAPBOOT_BASE64_H
#define TAPBOOT_BASE64_H

#include <stdbool.h>

/* 0-63, or -1 when c is not a digit of that alphabet (url: '-' and '_' for '+' and '/'). */
int base64_digit(int c, bool url);

#endif
