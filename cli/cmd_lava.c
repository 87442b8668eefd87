/* cmd_lava.c: tapboot lava-job (placeholder while it is written). */
#include "commands_lava.h"
#include "error.h"

int cmd_lava_job(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("lava-job is not written yet"), EXIT_USAGE;
}

int cmd_lava_results(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("lava-results is not written yet"), EXIT_USAGE;
}
