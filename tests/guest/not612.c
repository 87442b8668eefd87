// SPDX-License-Identifier: GPL-2.0-only
/* not612.c: fails only on a 6.12 kernel (uname's release starts with "6.12"), passes on any
 * other: tapboot gate's regression between Debian 12's 6.1 and Debian 13's 6.12. Expected
 * verdict: fail ("exit 1") on 6.12, pass elsewhere. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

int main(void)
{
	struct utsname u;

	if (uname(&u)) {
		perror("uname");
		return 2;
	}
	printf("not612: release %s\n", u.release);
	return !strncmp(u.release, "6.12", 4) &&
	       (u.release[4] == '.' || u.release[4] == '-' || u.release[4] == '\0');
}
