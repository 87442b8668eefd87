/* commands.h: the subcommands of tapboot and what they share. */
#ifndef TAPBOOT_COMMANDS_H
#define TAPBOOT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "arch_config.h"
#include "builder.h"
#include "cache.h"

int cmd_run(int argc, char **argv);
int cmd_build(int argc, char **argv);

/* --compress NAME into *out; -1 after a message naming the choices. */
int cli_parse_compress(const char *name, enum builder_compress *out);
/* Parse a whole number of seconds ("45", "0"); -1 when bad. */
int cli_parse_seconds(const char *s, unsigned *out);

#endif
