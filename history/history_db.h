/* SPDX-License-Identifier: GPL-2.0-only */
/* history_db.h: history/'s own: the open database the writer and the queries share. */
#ifndef TAPBOOT_HISTORY_DB_H
#define TAPBOOT_HISTORY_DB_H

#include <sqlite3.h>
#include <stdbool.h>

struct history_db {
	sqlite3 *db;
	char *path; /* owned */
};

/* Open path (NULL: history_default_path()); create: created when missing, WAL; else an existing
 * file only (read-write: a reader of a WAL file needs its -shm).
 * -1 after a warning. */
int history_db_open(struct history_db *h, const char *path, bool create);
void history_db_close(struct history_db *h);
/* The warning for a failed step (SQLite's message last); -1. */
int history_db_fail(struct history_db *h, const char *what);
int history_db_exec(struct history_db *h, const char *sql, const char *what);

#endif
