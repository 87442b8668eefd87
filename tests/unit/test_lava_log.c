// SPDX-License-Identifier: GPL-2.0-only
/* test_lava_log.c: the LAVA log line decoder (YAML flow mappings, PyYAML escapes, tags), the
 * console repairs (2023.x's \" escaping, ESC-less terminal resets) and LAVA's case ids. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "lava_log.h"

static int parse(const char *line, struct json *v, char **err)
{
	*err = NULL;
	return lava_flow_parse(line, strlen(line), v, err);
}

static void t_lines(void)
{
	struct json v;
	char *err;

	if (check_int(parse("{\"dt\": \"2026-12-04T17:33:51.896529\", \"lvl\": \"target\", "
			    "\"msg\": \"ok 1 pass\"}\n",
			    &v, &err),
		      ==, 0)) {
		check_str(json_get_str(&v, "dt"), "2026-12-04T17:33:51.896529");
		check_str(json_get_str(&v, "lvl"), "target");
		check_str(json_get_str(&v, "msg"), "ok 1 pass");
		check(json_get_str(&v, "nope") == NULL);
		json_release(&v);
	}
	/* escapes as PyYAML writes them, and 2023.01's \" inside the text */
	if (check_int(parse("{\"msg\": \"caf\\xE9 \\u2028 \\N\\_\\L\\P \\e[0m \\\\\\\"q\\\\\\\" "
			    "\\t\\0z \\U0001F600\"}",
			    &v, &err),
		      ==, 0)) {
		const struct json *m = json_get(&v, "msg");

		check_int(m->len, ==, 40);
		check_mem(m->str,
			  "caf\xc3\xa9 \xe2\x80\xa8 \xc2\x85\xc2\xa0\xe2\x80\xa8\xe2\x80\xa9 "
			  "\x1b[0m \\\"q\\\" \t\0z \xf0\x9f\x98\x80",
			  40);
		json_release(&v);
	}
	/* nested results, a non-specific tag, plain and single-quoted scalars, a list item */
	if (check_int(parse("- {\"dt\": \"x\", \"lvl\": \"results\", \"msg\": {\"case\": "
			    "\"file-download\", "
			    "\"extra\": {\"size\": ! \"8247232\", \"n\": 12, \"l\": ['a''b', []], "
			    "\"e\": {}}}}",
			    &v, &err),
		      ==, 0)) {
		const struct json *msg = json_get(&v, "msg"), *extra = json_get(msg, "extra");

		check_str(json_get_str(msg, "case"), "file-download");
		check_str(json_get_str(extra, "size"), "8247232");
		check_str(json_get_str(extra, "n"), "12");
		check_int(json_get(extra, "l")->n, ==, 2);
		check_str(json_get(extra, "l")->items[0].str, "a'b");
		check_int(json_get(extra, "e")->type, ==, JSON_OBJECT);
		json_release(&v);
	}
}

static void t_errors(void)
{
	static const char *const bad[][2] = {
		{"[    0.000000] Linux version 6.1",
		 "not a YAML flow mapping ('{' expected at column 1)"},
		{"{\"msg\": \"cut", "unterminated double-quoted string at column 13"},
		{"{\"msg\": \"a\"", "the line ends inside a mapping at column 12"},
		{"{\"msg\" \"a\"}", "':' expected after a key at column 8"},
		{"{\"msg\": \"\\q\"}", "unknown escape at column 11"},
		{"{\"msg\": \"\\xZZ\"}", "bad hex digit in an escape at column 12"},
		{"{\"a\": \"b\"} x", "text after the mapping at column 12"},
		{"{\"a\": \"b\" \"c\"}", "',' or '}' expected at column 11"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct json v;
		char *err;

		check_int(parse(bad[i][0], &v, &err), ==, -1);
		check_str(err, bad[i][1]);
		free(err);
	}
}

static void t_console(void)
{
	char s[] = "  reason: \\\"exit 1\\\" a\\b";
	size_t n = lava_unescape_quotes(s, strlen(s));

	check_int(n, ==, strlen("  reason: \"exit 1\" a\\b"));
	check_str(s, "  reason: \"exit 1\" a\\b");
	check_int(lava_escape_remains("c[?7l[2J# tapboot: begin", 24), ==, 8);
	check_int(lava_escape_remains("[0mSeaBIOS", 10), ==, 3);
	check_int(lava_escape_remains("[    1.234] x", 13), ==, 0);
	check_int(lava_escape_remains("ok 1 pass", 9), ==, 0);
}

static void t_case_id(void)
{
	static const char *const ids[][2] = {
		{"pass", "pass"},
		{"hello.sh", "hello_sh"},
		{" Mixed Case ", "mixed_case"},
		{"a_ b", "a__b"},
		{"net/socket(AF_INET6)", "net_socket_af_inet6_"},
		{"x--y", "x_y"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *id = lava_case_id(ids[i][0]);

		check_str(id, ids[i][1]);
		free(id);
	}
}

int main(void)
{
	error_set_prog("tapboot");
	TEST(t_lines, "log lines: strings, escapes, nested results, tags, list items");
	TEST(t_errors, "not a log line: the error says what and at which column");
	TEST(t_console, "console repairs: 2023.x quote escaping undone, terminal-reset remains");
	TEST(t_case_id, "LAVA's case ids: lower case, runs of non-word characters to _");
	return test_done();
}
