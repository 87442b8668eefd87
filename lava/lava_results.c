/* cmd_lava_results.c: tapboot lava-results LOG: a LAVA job log back into a tapboot results
 * directory. tapboot's own parser judges the console LAVA recorded (nonce, end marker, crash
 * attribution, missing tests); LAVA's monitor verdicts are cross-checked against it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "commands_lava.h"
#include "error.h"
#include "fs.h"
#include "lava_log.h"
#include "protocol.h"
#include "report.h"
#include "strbuf.h"
#include "tap_parser.h"

static const char lava_results_usage[] =
	"usage: tapboot lava-results [-o DIR] [--force] [--job JOB.yaml] [--job-url URL]\n"
	"                            [--kcidb-origin NAME] LOG\n"
	"\n"
	"LOG: a LAVA job log: lava-run's standard error, `lavacli jobs logs --raw ID`, or the\n"
	"REST API's /api/v0.2/jobs/ID/logs/. Rebuilds the console, runs tapboot's parser on it,\n"
	"cross-checks LAVA's monitor verdicts, and writes a results directory (console.log,\n"
	"results.json, results.tap, junit.xml, kcidb.json).\n"
	"\n"
	"  -o DIR              the results directory (default: a new one under ./tapboot-out/)\n"
	"  --force             write into an existing non-empty -o DIR\n"
	"  --job JOB.yaml      the job tapboot lava-job wrote: the planned tests' names, so\n"
	"                      tests the run never reached are reported missing by name\n"
	"  --job-url URL       the job's page (kcidb.json's log_url; default: file://LOG)\n"
	"  --kcidb-origin NAME the KCIDB origin in kcidb.json's ids (default tapboot)\n"
	"\n"
	"Exit status: 0 all tests passed or skipped, 1 a test failed, 2 bad usage or LOG is not\n"
	"a LAVA job log, 3 the run did not complete (a crash, a hang, a truncated log, a job\n"
	"that never booted) or LAVA's verdicts contradict tapboot's.\n";

struct lava_case {
	char *id, *result;
};

struct lava_run {
	struct strbuf console;
	char *version; /* lava-dispatcher's */
	char *nonce, *machine, *qemu_arch, *kernel_url;
	bool kvm;
	char *job_result, *error_type, *error_msg;
	double start_time;
	bool saw_target, saw_begin, truncated;
	struct lava_case *cases;
	size_t ncases, alloc;
};

static void lava_run_release(struct lava_run *l)
{
	strbuf_release(&l->console);
	free(l->version);
	free(l->nonce);
	free(l->machine);
	free(l->qemu_arch);
	free(l->kernel_url);
	free(l->job_result);
	free(l->error_type);
	free(l->error_msg);
	for (size_t i = 0; i < l->ncases; i++) {
		free(l->cases[i].id);
		free(l->cases[i].result);
	}
	free(l->cases);
}

/* "2026-12-04T17:33:51.713907" (UTC, LAVA's dt) to epoch seconds; -1 when not that. */
static double parse_dt(const char *dt)
{
	struct tm tm;
	const char *rest;
	double frac = 0;

	memset(&tm, 0, sizeof(tm));
	if (!dt || !(rest = strptime(dt, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

/* The word after key in a QEMU command line ("-machine q35"), or NULL. */
static char *word_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	size_t n;

	if (!p)
		return NULL;
	p += strlen(key);
	n = strcspn(p, " \"");
	return n ? xstrndup(p, n) : NULL;
}

static void boot_command(struct lava_run *l, const char *cmd)
{
	const char *q = strstr(cmd, "qemu-system-");

	free(l->nonce);
	l->nonce = word_after(cmd, TAPBOOT_ARG_NONCE);
	free(l->machine);
	l->machine = word_after(cmd, " -machine ");
	if (!l->machine)
		l->machine = word_after(cmd, " -M ");
	free(l->qemu_arch);
	l->qemu_arch = q ? word_after(q, "qemu-system-") : NULL;
	l->kvm = strstr(cmd, "-enable-kvm") || strstr(cmd, "accel=kvm");
}

static void add_console_line(struct lava_run *l, const struct json *msg, double dt)
{
	char *s;
	size_t n, skip;

	if (!msg || msg->type != JSON_STRING)
		return;
	s = xstrndup(msg->str, msg->len);
	n = msg->len;
	/* 2023.x's ShellLogger writes '"' as '\"' (lava_dispatcher/shell.py); later ones do not */
	if (l->version && !strncmp(l->version, "2023.", 5))
		n = lava_unescape_quotes(s, n);
	/* a terminal reset before the init's first line reaches LAVA without its ESC */
	skip = lava_escape_remains(s, n);
	if (skip &&
	    (!strncmp(s + skip, "# tapboot: ", 11) || !strncmp(s + skip, "TAP version", 11) ||
	     !strncmp(s + skip, "ok ", 3) || !strncmp(s + skip, "not ok ", 7)))
		memmove(s, s + skip, (n -= skip) + 1);
	if (!l->saw_begin && strstr(s, TAPBOOT_MARK_BEGIN) == s) {
		l->saw_begin = true;
		l->start_time = dt;
	}
	l->saw_target = true;
	strbuf_add(&l->console, s, n);
	strbuf_addch(&l->console, '\n');
	free(s);
}

static void add_result(struct lava_run *l, const struct json *msg)
{
	const char *def = json_get_str(msg, "definition"), *cs = json_get_str(msg, "case");
	const char *res = json_get_str(msg, "result");

	if (!def || !cs || !res)
		return;
	if (!strcmp(def, "lava") && !strcmp(cs, "job")) {
		free(l->job_result);
		l->job_result = xstrdup(res);
		free(l->error_type);
		free(l->error_msg);
		l->error_type = json_get_str(msg, "error_type")
					? xstrdup(json_get_str(msg, "error_type"))
					: NULL;
		l->error_msg = json_get_str(msg, "error_msg")
				       ? xstrdup(json_get_str(msg, "error_msg"))
				       : NULL;
		return;
	}
	if (strcmp(def, "tapboot"))
		return;
	if (l->ncases == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->cases = xrealloc(l->cases, l->alloc * sizeof(*l->cases));
	}
	l->cases[l->ncases].id = xstrdup(cs);
	l->cases[l->ncases].result = xstrdup(res);
	l->ncases++;
}

/* Read LOG. -1 after a message when it is not a LAVA job log (or unreadable). */
static int read_log(const char *path, struct lava_run *l)
{
	FILE *fp = fopen(path, "rb");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned lineno = 0, records = 0;
	int ret = 0;

	if (!fp)
		return error_errno("cannot open '%s'", path);
	while ((n = getline(&line, &cap, fp)) > 0) {
		struct json v;
		char *err = NULL;
		const char *lvl, *msg_s;
		const struct json *msg;
		bool last_cut = line[n - 1] != '\n';

		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		if (lineno == 1 && !strncmp(line, "---", 3))
			continue; /* a YAML document start (the REST endpoint) */
		if (lava_flow_parse(line, (size_t)n, &v, &err) < 0) {
			if (last_cut && records) {
				/* the last line is cut short: the log was truncated while written
				 */
				l->truncated = true;
				free(err);
				break;
			}
			ret = error_at(path, lineno, "not a LAVA job log line: %s", err);
			free(err);
			goto out;
		}
		lvl = json_get_str(&v, "lvl");
		msg = json_get(&v, "msg");
		if (!json_get_str(&v, "dt") || !lvl || !msg) {
			json_release(&v);
			ret = error_at(path, lineno,
				       "not a LAVA job log line: no \"dt\", \"lvl\" and \"msg\"");
			goto out;
		}
		records++;
		msg_s = msg->type == JSON_STRING ? msg->str : NULL;
		if (!strcmp(lvl, "target") || !strcmp(lvl, "feedback")) {
			add_console_line(l, msg, parse_dt(json_get_str(&v, "dt")));
		} else if (!strcmp(lvl, "results")) {
			add_result(l, msg);
		} else if (msg_s &&
			   !strncmp(msg_s, "lava-dispatcher, installed at version: ", 39)) {
			free(l->version);
			l->version = xstrdup(msg_s + 39);
		} else if (msg_s && !strncmp(msg_s, "Boot command: ", 14)) {
			boot_command(l, msg_s + 14);
		} else if (msg_s && !strncmp(msg_s, "downloading ", 12) && !l->kernel_url) {
			l->kernel_url = xstrdup(msg_s + 12); /* the first image: the kernel */
		}
		json_release(&v);
	}
	if (ferror(fp))
		ret = error_errno("cannot read '%s'", path);
	else if (!records)
		ret = error("'%s' is not a LAVA job log: it holds no log line", path);
out:
	free(line);
	fclose(fp);
	return ret;
}

/* The planned tests' names from a job lava-job wrote (metadata tapboot.test.N: 'NAME'), and its
 * nonce (tapboot.nonce: 'HEX') into nonce. */
static int read_job_names(const char *path, struct strlist *names, char nonce[33])
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (!fp)
		return error_errno("cannot open '%s'", path);
	while (getline(&line, &cap, fp) > 0) {
		char *p = strstr(line, "tapboot.test."), *colon;
		unsigned long k;
		struct json v;
		char *err = NULL, *doc;

		lineno++;
		if (!strncmp(line, "  tapboot.nonce: '", 18) && strlen(line) >= 18 + 32 + 1 &&
		    line[18 + 32] == '\'') {
			memcpy(nonce, line + 18, 32);
			nonce[32] = '\0';
		}
		if (!p || strncmp(line, "  tapboot.test.", 15))
			continue;
		k = strtoul(p + 13, &colon, 10);
		if (*colon != ':' || k != names->n + 1) {
			ret = error_at(path, lineno, "tapboot.test.%lu out of order", k);
			break;
		}
		/* the value is a YAML scalar: decode it as a one-entry flow mapping */
		colon[strcspn(colon, "\r\n")] = '\0';
		doc = xasprintf("{\"v\": %s}", colon + 1);
		if (lava_flow_parse(doc, strlen(doc), &v, &err) < 0 || !json_get_str(&v, "v")) {
			ret = error_at(path, lineno, "bad test name: %s",
				       err ? err : "not a string");
			free(err);
			free(doc);
			break;
		}
		strlist_push(names, json_get_str(&v, "v"));
		json_release(&v);
		free(doc);
	}
	free(line);
	fclose(fp);
	if (!ret && !names->n)
		ret = error("'%s' names no tests (no tapboot.test.N metadata: not written by "
			    "tapboot lava-job?)",
			    path);
	return ret;
}

static char *make_dir(const char *out, bool force)
{
	if (out) {
		if (mkdir(out, 0755) < 0) {
			struct stat st;

			if (errno != EEXIST || stat(out, &st) < 0 || !S_ISDIR(st.st_mode)) {
				error_errno("cannot create results directory '%s'", out);
				return NULL;
			}
			if (!force && !dir_is_empty(out)) {
				error("results directory '%s' is not empty: pass --force to write "
				      "into it, or choose another -o",
				      out);
				return NULL;
			}
		}
		return xstrdup(out);
	}
	{
		time_t t = time(NULL);
		struct tm tm;
		char stamp[32], *dir;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		if (mkdir("tapboot-out", 0755) < 0 && errno != EEXIST) {
			error_errno("cannot create 'tapboot-out'");
			return NULL;
		}
		dir = xasprintf("tapboot-out/%s-lava-XXXXXX", stamp);
		if (!mkdtemp(dir)) {
			error_errno("cannot create a results directory under 'tapboot-out'");
			free(dir);
			return NULL;
		}
		return dir;
	}
}

static int write_console(const char *dir, const struct strbuf *console)
{
	char *p = xasprintf("%s/console.log", dir), *tmp = xasprintf("%s/console.log.tmp", dir);
	FILE *fp = fopen(tmp, "w");
	int ret = 0;

	if (!fp || fwrite(console->buf ? console->buf : "", 1, console->len, fp) != console->len) {
		ret = error_errno("cannot write '%s'", tmp);
		if (fp)
			fclose(fp);
	} else if (fclose(fp) != 0 || rename(tmp, p) < 0) {
		ret = error_errno("cannot write '%s'", p);
	}
	if (ret)
		unlink(tmp);
	free(p);
	free(tmp);
	return ret;
}

/* tapboot's verdict as LAVA's monitor records it (job.yaml's fixupdict): NULL when LAVA records
 * nothing (a crash or a missing test never printed its result line). */
static const char *lava_expected(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
	case VERDICT_XFAIL: /* "ok ... # XFAIL" */
		return "pass";
	case VERDICT_FAIL:
	case VERDICT_XPASS:
	case VERDICT_TIMEOUT: /* "not ok ... # TIMEOUT" */
		return "fail";
	case VERDICT_SKIP:
		return "skip";
	default:
		return NULL;
	}
}

/* Every LAVA verdict must be tapboot's. Returns the number of contradictions (each reported). */
static unsigned cross_check(const struct lava_run *l, const struct tap_test *t, size_t n)
{
	unsigned bad = 0;

	for (size_t c = 0; c < l->ncases; c++) {
		const struct tap_test *match = NULL;

		for (size_t i = 0; i < n && !match; i++) {
			char *id = lava_case_id(t[i].name ? t[i].name : "");

			if (!strcmp(id, l->cases[c].id))
				match = &t[i];
			free(id);
		}
		if (!match) {
			error("LAVA recorded '%s' (%s), a test tapboot's parser did not see",
			      l->cases[c].id, l->cases[c].result);
			bad++;
		} else if (!lava_expected(match->verdict) ||
			   strcmp(lava_expected(match->verdict), l->cases[c].result)) {
			error("LAVA recorded '%s' as %s, tapboot's parser as %s", match->name,
			      l->cases[c].result, verdict_name(match->verdict));
			bad++;
		}
	}
	return bad;
}

int cmd_lava_results(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_JOB, OPT_JOB_URL, OPT_ORIGIN };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, OPT_FORCE},
		{"job", required_argument, NULL, OPT_JOB},
		{"job-url", required_argument, NULL, OPT_JOB_URL},
		{"kcidb-origin", required_argument, NULL, OPT_ORIGIN},
		CLI_HELP_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *job = NULL, *job_url = NULL, *origin = NULL, *log;
	bool force = false;
	struct lava_run l;
	struct strlist names;
	struct tap_parser *p = NULL;
	struct report_run rep;
	const struct tap_test *tests;
	size_t ntests = 0;
	const struct tap_summary *sum;
	struct strbuf why = STRBUF_INIT;
	char *dir = NULL, *url = NULL, *arch = NULL;
	int c, status = EXIT_USAGE;
	unsigned contradictions = 0;
	char job_nonce[33] = "";

	memset(&l, 0, sizeof(l));
	strbuf_init(&l.console);
	strbuf_init(&why);
	strlist_init(&names);
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_JOB:
			job = optarg;
			break;
		case OPT_JOB_URL:
			job_url = optarg;
			break;
		case OPT_ORIGIN:
			if (cli_parse_kcidb_origin(optarg, &origin) < 0)
				goto out;
			break;
		default:
			status = cli_usage_option(c, lava_results_usage, NULL);
			goto out;
		}
	}
	if (argc - optind != 1) {
		error("lava-results takes one LOG, got %d", argc - optind);
		fputs(lava_results_usage, stderr);
		goto out;
	}
	log = argv[optind];
	if (job_url && !strstr(job_url, "://")) {
		error("--job-url wants a URL, got '%s'", job_url);
		goto out;
	}
	if ((job && read_job_names(job, &names, job_nonce) < 0) || read_log(log, &l) < 0)
		goto out;
	if (job && l.nonce && *job_nonce && strcmp(job_nonce, l.nonce)) {
		error("'%s' is not the log of '%s': its boot command carries nonce %s, the job %s", log,
		      job, l.nonce, job_nonce);
		goto out;
	}
	if (!l.version && !l.job_result && !l.saw_target && !l.ncases) {
		error("'%s' is not a LAVA job log: no lava-dispatcher version, console or results "
		      "in it",
		      log);
		goto out;
	}
	/* why the run is not complete, in LAVA's terms (tapboot's parser adds its own) */
	if (l.truncated || !l.job_result)
		strbuf_addstr(&why, "the LAVA log ends before the job's result (truncated)");
	else if (!l.saw_begin)
		strbuf_addf(&why,
			    "the job never reached tapboot's init (no '%s' on the console)%s%s",
			    "# tapboot: begin", l.error_msg ? ": " : "",
			    l.error_msg ? l.error_msg : "");
	else if (l.error_msg)
		strbuf_addf(&why, "LAVA: %s%s%s", l.error_type ? l.error_type : "error",
			    l.error_type ? " error: " : "", l.error_msg);

	dir = make_dir(out, force);
	if (!dir)
		goto out;
	p = tap_parser_new(l.nonce, NULL);
	if (names.n)
		tap_parser_expect(p, (const char *const *)names.v, names.n);
	tap_parser_feed(p, l.console.buf ? l.console.buf : "", l.console.len);
	tap_parser_finish(p, why.len ? why.buf : NULL);
	tests = tap_parser_tests(p, &ntests);
	sum = tap_parser_summary(p);
	contradictions = cross_check(&l, tests, ntests);

	if (l.qemu_arch)
		arch = !strcmp(l.qemu_arch, "aarch64") ? xstrdup("arm64")
		       : !strcmp(l.qemu_arch, "ppc64") ? xstrdup("ppc64le")
						       : xstrdup(l.qemu_arch);
	memset(&rep, 0, sizeof(rep));
	rep.arch = arch;
	rep.kernel = l.kernel_url;
	rep.kernel_release = sum->kernel;
	rep.accel = l.kvm ? "kvm" : "tcg";
	rep.suite = "tapboot";
	rep.complete = sum->complete && !why.len;
	if (!rep.complete && !why.len)
		strbuf_addstr(&why, sum->crash_line ? sum->crash_line
						    : "no tapboot end line with the run's nonce");
	rep.error = why.len ? why.buf : NULL;
	rep.wall_s = -1;
	rep.tests = tests;
	rep.ntests = ntests;
	rep.summary = sum;
	rep.kcidb_origin = origin;
	rep.run_id = rep.nonce = l.nonce;
	rep.machine = l.machine;
	rep.start_time = l.start_time;
	{
		char *abs = realpath(log, NULL);

		url = job_url ? xstrdup(job_url) : xasprintf("file://%s", abs ? abs : log);
		free(abs);
	}
	rep.log_url = url;
	if (write_console(dir, &l.console) < 0)
		goto out_status;
	report_write_all(dir, &rep);
	report_summary_fprint(stdout, &rep);
	if (rep.error)
		error("%s", rep.error);
	printf("results: %s/\n", dir);
out_status:
	status = report_exit_status(&rep);
	if (contradictions || (!l.saw_begin && status < EXIT_VM))
		status = EXIT_VM;
out:
	tap_parser_free(p);
	lava_run_release(&l);
	strlist_release(&names);
	strbuf_release(&why);
	free(dir);
	free(url);
	free(arch);
	return status;
}
