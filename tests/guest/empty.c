// SPDX-License-Identifier: GPL-2.0-only
/* empty.c: exits 0 without output: the empty test of the init's overhead benchmark. Expected
 * verdict: pass. */
int main(void)
{
	return 0;
}
