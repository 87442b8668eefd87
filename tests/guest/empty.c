/* empty.c: exits 0 without output: the empty test of the init's overhead benchmark. Expected
 * verdict: pass. */
int main(void)
{
	return 0;
}
