/* repro.c: reading a kernel test robot report (the mail as people save it, or its materials
 * directory) and matching a console against its crash signatures. The job-script is parsed as
 * shell words, never run. */
#include "repro.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "error.h"
#include "strbuf.h"

void repro_report_init(struct repro_report *r)
{
	memset(r, 0, sizeof(*r));
	crash_scan_init(&r->computed);
}

static void kv_free(struct repro_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void repro_report_release(struct repro_report *r)
{
	char **strs[] = {&r->source, &r->kind, &r->headline, &r->subject, &r->message_id,
			 &r->commit, &r->commit_subject, &r->tree, &r->branch, &r->parent,
			 &r->testcase, &r->version, &r->config_name, &r->compiler, &r->machine,
			 &r->closes, &r->dmesg, &r->full_dmesg, &r->full_dmesg_name, &r->cmdline,
			 &r->cmdline_from, &r->arch, &r->config_text, &r->dmesg_cmdline, &r->config_file};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	kv_free(r->params, r->nparams);
	kv_free(r->job, r->njob);
	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i].id);
	free(r->rows);
	for (size_t i = 0; i < r->nneed; i++)
		free(r->need_kconfig[i]);
	free(r->need_kconfig);
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	crash_scan_release(&r->computed);
	repro_report_init(r);
}

static void set(char **field, const char *s, size_t n)
{
	free(*field);
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	*field = xstrndup(s, n);
}

static void add_str(char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

static void add_kv(struct repro_kv **kv, size_t *n, const char *k, const char *v)
{
	*kv = xrealloc(*kv, (*n + 1) * sizeof(**kv));
	(*kv)[*n].key = xstrdup(k);
	(*kv)[*n].value = xstrdup(v);
	(*n)++;
}

const char *repro_job_get(const struct repro_report *r, const char *key)
{
	for (size_t i = r->njob; i-- > 0;)
		if (!strcmp(r->job[i].key, key))
			return r->job[i].value;
	return NULL;
}

/* ---- decoders ---- */

int repro_base64_decode(const char *in, size_t len, char **out, size_t *outlen, size_t *bad_line,
			const char **errmsg)
{
	struct strbuf sb;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	size_t line = 0;

	strbuf_init(&sb);
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)in[i], v;
		if (c == '\n') {
			line++;
			continue;
		}
		if (c == '\r' || c == ' ' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		v = base64_digit(c, false);
		if (v < 0 || pad) {
			*bad_line = line;
			*errmsg = v < 0 ? "invalid base64 character" : "base64 data after '=' padding";
			strbuf_release(&sb);
			return -1;
		}
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(&sb, (char)(acc >> bits & 0xff));
		}
	}
	/* a base64 body whose last quantum is cut short is a truncated attachment */
	if (bits >= 6 || pad > 2) {
		*bad_line = line ? line - 1 : 0;
		*errmsg = "base64 data ends in the middle of a byte (truncated)";
		strbuf_release(&sb);
		return -1;
	}
	*outlen = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void repro_qp_decode(const char *in, size_t len, char **out, size_t *outlen)
{
	struct strbuf sb;
	strbuf_init(&sb);
	for (size_t i = 0; i < len; i++) {
		if (in[i] != '=') {
			strbuf_addch(&sb, in[i]);
			continue;
		}
		if (i + 1 < len && in[i + 1] == '\n') {
			i++;
			continue;
		}
		if (i + 2 < len && in[i + 1] == '\r' && in[i + 2] == '\n') {
			i += 2;
			continue;
		}
		int h = i + 2 < len ? hexval(in[i + 1]) : -1, l = i + 2 < len ? hexval(in[i + 2]) : -1;
		if (h >= 0 && l >= 0) {
			strbuf_addch(&sb, (char)(h << 4 | l));
			i += 2;
		} else {
			strbuf_addch(&sb, '=');
		}
	}
	*outlen = sb.len;
	*out = strbuf_detach(&sb);
}

int repro_xz_decode(const void *in, size_t len, char **out, size_t *outlen, const char **errmsg)
{
	lzma_stream s = LZMA_STREAM_INIT;
	struct strbuf sb;
	uint8_t buf[65536];
	lzma_ret ret;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		*errmsg = "cannot start the xz decoder";
		return -1;
	}
	strbuf_init(&sb);
	s.next_in = in;
	s.avail_in = len;
	do {
		s.next_out = buf;
		s.avail_out = sizeof(buf);
		ret = lzma_code(&s, s.avail_in ? LZMA_RUN : LZMA_FINISH);
		strbuf_add(&sb, buf, sizeof(buf) - s.avail_out);
	} while (ret == LZMA_OK);
	lzma_end(&s);
	if (ret != LZMA_STREAM_END) {
		*errmsg = ret == LZMA_FORMAT_ERROR ? "not xz data" :
			  ret == LZMA_BUF_ERROR	   ? "xz data is truncated" :
						     "xz data is corrupt";
		strbuf_release(&sb);
		return -1;
	}
	*outlen = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
}

/* ---- the job-script: shell words, never executed ---- */

/* Parse "export k=v" lines. v may be quoted ('...' spans lines, "..." with \ escapes) or
 * backslash-escaped (need_kconfig=\{\"KVM_GUEST\"\=\>\"y\"\}). */
static int parse_job_script(struct repro_report *r, const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len;
	size_t line = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (le - q > 7 && !strncmp(q, "export ", 7)) {
			const char *k = q + 7, *eq;
			while (k < le && *k == ' ')
				k++;
			eq = k;
			while (eq < le && (*eq == '_' || (*eq >= 'a' && *eq <= 'z') ||
					   (*eq >= 'A' && *eq <= 'Z') || (*eq >= '0' && *eq <= '9')))
				eq++;
			if (eq < le && *eq == '=' && eq > k) {
				struct strbuf v;
				size_t start_line = line;
				const char *c = eq + 1;
				char quote = 0;
				strbuf_init(&v);
				while (c < end) {
					if (quote == '\'') {
						if (*c == '\'')
							quote = 0;
						else
							strbuf_addch(&v, *c);
					} else if (quote == '"') {
						if (*c == '"')
							quote = 0;
						else if (*c == '\\' && c + 1 < end &&
							 strchr("\"\\$`\n", c[1])) {
							if (c[1] != '\n')
								strbuf_addch(&v, c[1]);
							c++;
						} else
							strbuf_addch(&v, *c);
					} else if (*c == '\'' || *c == '"') {
						quote = *c;
					} else if (*c == '\\' && c + 1 < end && c[1] != '\n') {
						strbuf_addch(&v, *++c);
					} else if (*c == ' ' || *c == '\t' || *c == '\n' || *c == ';') {
						break;
					} else {
						strbuf_addch(&v, *c);
					}
					if (*c == '\n')
						line++;
					c++;
				}
				if (quote) {
					strbuf_release(&v);
					return error("%s:%zu: unterminated %s quote in the value of '%.*s'",
						     name, start_line, quote == '\'' ? "single" : "double",
						     (int)(eq - k), k);
				}
				char *key = xstrndup(k, eq - k);
				add_kv(&r->job, &r->njob, key, v.buf ? v.buf : "");
				free(key);
				strbuf_release(&v);
				/* continue after the value's last line */
				while (c < end && *c != '\n')
					c++;
				p = c < end ? c + 1 : end;
				line++;
				continue;
			}
		}
		p = nl ? nl + 1 : end;
		line++;
	}
	return 0;
}

/* need_kconfig as lkp writes it: a Ruby hash {"KVM_GUEST"=>"y"}, a list, or NAME=y words. */
static void parse_need_kconfig(struct repro_report *r, const char *v)
{
	const char *p = v;
	while (*p) {
		if (*p >= 'A' && *p <= 'Z') {
			const char *e = p;
			while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_')
				e++;
			if (e - p >= 3) {
				char *name = xstrndup(p, e - p);
				const char *q = e;
				while (*q == '"' || *q == '\'' || *q == ' ' || *q == '=' || *q == '>' || *q == ':')
					q++;
				char val = (*q == 'y' || *q == 'm' || *q == 'n') && !((q[1] >= 'a' && q[1] <= 'z')) ? *q : 0;
				char *item = val ? xasprintf("CONFIG_%s=%c", name, val) : xasprintf("CONFIG_%s", name);
				if (strncmp(name, "CONFIG_", 7))
					add_str(&r->need_kconfig, &r->nneed, item);
				else {
					char *t = val ? xasprintf("%s=%c", name, val) : xstrdup(name);
					add_str(&r->need_kconfig, &r->nneed, t);
					free(t);
				}
				free(item);
				free(name);
			}
			p = e;
		} else {
			p++;
		}
	}
}

/* ---- the mail ---- */

struct mail_ctx {
	struct repro_report *r;
	const char *file; /* for messages */
	const char *base; /* the whole file, for line numbers */
	struct strbuf text; /* the text/plain body parts */
	bool has_text;
};

static size_t line_of(const struct mail_ctx *c, const char *p)
{
	size_t n = 1;
	for (const char *q = c->base; q < p; q++)
		n += *q == '\n';
	return n;
}

/* A header's value (unfolded), or NULL; hdr..hend is the header block. */
static char *header_get(const char *hdr, const char *hend, const char *name)
{
	size_t nl = strlen(name);
	const char *p = hdr;
	while (p < hend) {
		const char *e = memchr(p, '\n', hend - p);
		if (!e)
			e = hend;
		if ((size_t)(e - p) > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
			struct strbuf sb;
			strbuf_init(&sb);
			strbuf_add(&sb, p + nl + 1, e - p - nl - 1);
			while (e < hend && e + 1 < hend && (e[1] == ' ' || e[1] == '\t')) {
				const char *f = e + 1, *fe = memchr(f, '\n', hend - f);
				if (!fe)
					fe = hend;
				strbuf_add(&sb, f, fe - f);
				e = fe;
			}
			char *v = strbuf_detach(&sb);
			char *a = v;
			while (*a == ' ' || *a == '\t')
				a++;
			memmove(v, a, strlen(a) + 1);
			for (char *q = v; *q; q++)
				if (*q == '\r' || *q == '\t')
					*q = ' ';
			size_t n = strlen(v);
			while (n && v[n - 1] == ' ')
				v[--n] = '\0';
			return v;
		}
		p = e + 1;
	}
	return NULL;
}

/* A parameter of a structured header value: boundary="x", filename=y. */
static char *header_param(const char *v, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = v; p && *p; p++) {
		if ((p == v || p[-1] == ';' || p[-1] == ' ') && !strncasecmp(p, name, nl) &&
		    p[nl] == '=') {
			const char *s = p + nl + 1;
			if (*s == '"') {
				const char *e = strchr(s + 1, '"');
				return e ? xstrndup(s + 1, e - s - 1) : xstrdup(s + 1);
			}
			size_t n = strcspn(s, "; ");
			return xstrndup(s, n);
		}
	}
	return NULL;
}

static bool is_header_line(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && (*q == '-' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
			   (*q >= '0' && *q <= '9')))
		q++;
	return q > p && q < end && *q == ':';
}

static const char *find_blank_line(const char *p, const char *end)
{
	while (p < end) {
		const char *e = memchr(p, '\n', end - p);
		if (!e)
			return NULL;
		if (e == p || (e == p + 1 && *p == '\r'))
			return p;
		p = e + 1;
	}
	return NULL;
}

static int attachment(struct mail_ctx *c, const char *name, const char *data, size_t len,
		      const char *where, size_t line);

static int parse_entity(struct mail_ctx *c, const char *p, const char *end, int depth)
{
	const char *hend = find_blank_line(p, end);
	const char *body;
	char *ctype, *cte, *disp, *fname = NULL;
	int ret = 0;

	if (depth > 8)
		return error("%s:%zu: MIME parts nested too deep", c->file, line_of(c, p));
	if (!hend) {
		hend = end;
		body = end;
	} else {
		body = memchr(hend, '\n', end - hend);
		body = body ? body + 1 : end;
	}
	ctype = header_get(p, hend, "Content-Type");
	cte = header_get(p, hend, "Content-Transfer-Encoding");
	disp = header_get(p, hend, "Content-Disposition");
	if (depth == 0) {
		char *subj = header_get(p, hend, "Subject"), *mid = header_get(p, hend, "Message-ID");
		if (subj) {
			free(c->r->subject);
			c->r->subject = subj;
		}
		if (mid) {
			free(c->r->message_id);
			c->r->message_id = mid;
		}
	}
	if (disp)
		fname = header_param(disp, "filename");
	if (!fname && ctype)
		fname = header_param(ctype, "name");
	if (ctype && !strncasecmp(ctype, "multipart/", 10)) {
		char *b = header_param(ctype, "boundary");
		if (!b) {
			ret = error("%s:%zu: multipart part without a boundary parameter", c->file,
				    line_of(c, p));
			goto out;
		}
		size_t bl = strlen(b);
		const char *q = body, *part = NULL;
		bool closed = false;
		size_t last_line = line_of(c, body);
		while (q < end) {
			const char *e = memchr(q, '\n', end - q);
			const char *le = e ? e : end;
			if (le - q >= (long)bl + 2 && q[0] == '-' && q[1] == '-' &&
			    !strncmp(q + 2, b, bl)) {
				const char *after = q + 2 + bl;
				if (part) {
					/* the part ends before the newline that precedes the boundary */
					const char *pe = q;
					if (pe > part && pe[-1] == '\n')
						pe--;
					if (pe > part && pe[-1] == '\r')
						pe--;
					ret = parse_entity(c, part, pe, depth + 1);
					if (ret)
						break;
				}
				last_line = line_of(c, q);
				if (le - after >= 2 && after[0] == '-' && after[1] == '-') {
					closed = true;
					break;
				}
				part = e ? e + 1 : end;
			}
			q = e ? e + 1 : end;
		}
		if (!ret && !closed)
			ret = error("%s:%zu: the MIME multipart body ends without its closing boundary "
				    "'--%s--' (a truncated mail?)", c->file,
				    part ? last_line : line_of(c, body), b);
		free(b);
		goto out;
	}
	{
		char *dec = NULL;
		size_t dlen = 0;
		if (cte && !strcasecmp(cte, "base64")) {
			size_t bad = 0;
			const char *msg = NULL;
			if (repro_base64_decode(body, end - body, &dec, &dlen, &bad, &msg)) {
				ret = error("%s:%zu: %s%s%s%s", c->file, line_of(c, body) + bad, msg,
					    fname ? " in attachment '" : "", fname ? fname : "",
					    fname ? "'" : "");
				goto out;
			}
		} else if (cte && !strcasecmp(cte, "quoted-printable")) {
			repro_qp_decode(body, end - body, &dec, &dlen);
		} else {
			dec = xstrndup(body, end - body);
			dlen = end - body;
		}
		bool is_text = !ctype || !strncasecmp(ctype, "text/plain", 10);
		bool inline_text = is_text && (!fname || (disp && !strncasecmp(disp, "inline", 6) &&
							  !strstr(fname, "config") && strcmp(fname, "job-script")));
		if (inline_text && depth <= 2 && !c->has_text) {
			strbuf_add(&c->text, dec, dlen);
			c->has_text = true;
		} else if (fname) {
			ret = attachment(c, fname, dec, dlen, c->file, line_of(c, body));
		}
		free(dec);
	}
out:
	free(ctype);
	free(cte);
	free(disp);
	free(fname);
	return ret;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* A material: by its name, as lkp names them. where/line name it in messages. */
static int attachment(struct mail_ctx *c, const char *name, const char *data, size_t len,
		      const char *where, size_t line)
{
	struct repro_report *r = c->r;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	add_str(&r->files, &r->nfiles, base);
	if (!strcmp(base, "dmesg.xz") || !strcmp(base, "kmsg.xz")) {
		char *out;
		size_t olen;
		const char *msg;
		if (repro_xz_decode(data, len, &out, &olen, &msg))
			return error("%s:%zu: %s: %s", where, line, base, msg);
		/* the serial console (dmesg) is what the robot's ids come from; kmsg second */
		if (!r->full_dmesg || !strcmp(base, "dmesg.xz")) {
			free(r->full_dmesg);
			free(r->full_dmesg_name);
			r->full_dmesg = out;
			r->full_dmesg_name = xstrdup(base);
		} else {
			free(out);
		}
	} else if (!strcmp(base, "dmesg") || !strcmp(base, "kmsg")) {
		if (!r->full_dmesg || !strcmp(base, "dmesg")) {
			free(r->full_dmesg);
			free(r->full_dmesg_name);
			r->full_dmesg = xstrndup(data, len);
			r->full_dmesg_name = xstrdup(base);
		}
	} else if (!strncmp(base, "config-", 7) || !strcmp(base, "config") ||
		   !strcmp(base, ".config")) {
		free(r->config_text);
		r->config_text = xstrndup(data, len);
		if (strcmp(base, "config") && strcmp(base, ".config")) {
			free(r->config_file);
			r->config_file = xstrdup(base);
		}
	} else if (!strcmp(base, "job-script") || !strcmp(base, "job.sh")) {
		char *label = where == c->file && c->base ? xasprintf("%s: %s", where, base) :
							     xstrdup(where);
		int ret = parse_job_script(r, data, len, label);
		free(label);
		return ret;
	} else if (!strcmp(base, "job.yaml")) {
		/* "key: value" lines; the job-script, when there, says the same */
		const char *p = data, *end = data + len;
		while (p < end) {
			const char *e = memchr(p, '\n', end - p);
			const char *le = e ? e : end;
			const char *colon = memchr(p, ':', le - p);
			if (colon && p[0] != ' ' && p[0] != '#' && colon + 1 < le && colon[1] == ' ') {
				char *k = xstrndup(p, colon - p), *v = xstrndup(colon + 2, le - colon - 2);
				if (!repro_job_get(r, k))
					add_kv(&r->job, &r->njob, k, v);
				free(k);
				free(v);
			}
			p = e ? e + 1 : end;
		}
	}
	return 0;
}

/* ---- the report's text ---- */

static bool starts(const char *l, const char *pre)
{
	return !strncmp(l, pre, strlen(pre));
}

static bool is_sha(const char *s, size_t min)
{
	size_t n = 0;
	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n >= min;
}

static void split_cells(const char *l, char ***cells, size_t *n)
{
	const char *p = l + 1;
	*cells = NULL;
	*n = 0;
	while (*p) {
		const char *e = strchr(p, '|');
		if (!e)
			break;
		char *cell = NULL;
		set(&cell, p, e - p);
		*cells = xrealloc(*cells, (*n + 1) * sizeof(**cells));
		(*cells)[(*n)++] = cell;
		p = e + 1;
	}
}

static long count_cell(const char *s)
{
	char *e;
	if (!*s)
		return -1;
	long v = strtol(s, &e, 10);
	return *e ? -1 : v;
}

/* A whole console as the dmesg: its signatures, its command line, and as the excerpt the first
 * problem's report (60 lines from its first line). */
static void whole_console(struct repro_report *r, const char *text, size_t len)
{
	const char *end = text + len;
	crash_scan_release(&r->computed);
	crash_scan_text(&r->computed, text, len);
	r->computed_done = true;
	const char *kcl = memmem(text, len, "Kernel command line: ", 21);
	if (kcl) {
		const char *e = memchr(kcl, '\n', end - kcl);
		set(&r->dmesg_cmdline, kcl + 21, (e ? e : end) - kcl - 21);
	}
	if (!r->computed.nhits)
		return;
	free(r->dmesg);
	r->dmesg = crash_scan_excerpt(&r->computed, text, len);
}

/* text (len bytes) is read where it lies; the caller keeps it. */
static void parse_text(struct repro_report *r, char *text, size_t len)
{
	bool in_params = false, after_commit = false, after_tags = false, in_dmesg = false;
	const char *dm_start = NULL, *dm_end = NULL, *p = text, *end = text + len;
	char *l = NULL;

	/* Lines are looked at in the buffer; only those that may hold a field are copied (a
	 * console given as the report is mostly lines no field starts with). */
	for (; p < end; free(l), l = NULL) {
		const char *nl = memchr(p, '\n', end - p), *ls = p;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		p = nl ? nl + 1 : end;
		if (in_dmesg) {
			if (!strncmp(ls, "The kernel config and materials", 31) ||
			    !strncmp(ls, "To reproduce:", 13) || (n == 3 && !strncmp(ls, "-- ", 3)) ||
			    (n == 2 && !strncmp(ls, "--", 2)) || !strncmp(ls, "0-DAY CI", 8)) {
				in_dmesg = false;
				continue;
			}
			dm_end = ls + n;
			continue;
		}
		if (!after_tags && !in_params && !after_commit &&
		    (!n || !strchr("kFcuthivwo|CL", *ls)))
			continue;
		while (n && ls[n - 1] == '\r')
			n--;
		l = xstrndup(ls, n);
		const char *t = l;
		while (*t == ' ' || *t == '\t')
			t++;
		if (in_params) {
			const char *colon = strstr(t, ": ");
			if (t != l && colon) {
				char *k = xstrndup(t, colon - t);
				add_kv(&r->params, &r->nparams, k, colon + 2);
				free(k);
				continue;
			}
			in_params = false;
		}
		if (after_commit) {
			after_commit = false;
			if (starts(t, "http") || starts(t, "git://")) {
				size_t tn = strcspn(t, " \t");
				set(&r->tree, t, tn);
				if (t[tn])
					set(&r->branch, t + tn, strlen(t + tn));
				continue;
			}
		}
		const char *q;
		/* every field starts its line (console lines, most of a log, start with '[') */
		if (!after_tags && !strchr("kFcuthivwo|CL[", l[0] ? l[0] : '#'))
			continue;
		if (l[0] == '[' && !after_tags)
			continue;
		if (starts(l, "kernel test robot noticed \"")) {
			q = l;
			const char *s = q + 27, *e = strchr(s, '"');
			if (e)
				set(&r->headline, s, e - s);
			set(&r->kind, "runtime", 7);
		} else if (starts(l, "kernel test robot noticed the following build") ||
			   starts(l, "[auto build test ")) {
			set(&r->kind, "build", 5);
		} else if (starts(l, "FYI, we noticed ") && (q = strstr(l, " due to commit"))) {
			set(&r->headline, l + 16, q - l - 16);
			set(&r->kind, "runtime", 7);
			const char *b = strstr(q, "(built with ");
			if (b) {
				const char *e = strchr(b, ')');
				if (e)
					set(&r->compiler, b + 12, e - b - 12);
			}
		} else if (starts(l, "commit: ") && is_sha(l + 8, 7)) {
			const char *s = l + 8;
			size_t sn = strspn(s, "0123456789abcdef");
			set(&r->commit, s, sn);
			const char *sp = strstr(s + sn, "(\"");
			if (sp) {
				const char *e = strrchr(sp, '"');
				if (e && e > sp + 1)
					set(&r->commit_subject, sp + 2, e - sp - 2);
			}
			after_commit = true;
		} else if (starts(l, "url: ") || starts(l, "tree: ")) {
			set(&r->tree, strchr(l, ' ') + 1, strlen(strchr(l, ' ') + 1));
		} else if (starts(l, "head: ") && !r->branch) {
			/* build reports: the head commit of the tested branch */
		} else if (starts(l, "in testcase: ")) {
			set(&r->testcase, l + 13, strlen(l + 13));
			set(&r->kind, "runtime", 7);
		} else if (starts(l, "version: ") && r->testcase) {
			set(&r->version, l + 9, strlen(l + 9));
		} else if (starts(l, "with following parameters:")) {
			in_params = true;
		} else if (starts(l, "config: ")) {
			set(&r->config_name, l + 8, strcspn(l + 8, " ("));
		} else if (starts(l, "compiler: ")) {
			set(&r->compiler, l + 10, strlen(l + 10));
		} else if (starts(l, "test machine: ") || starts(l, "on test machine: ")) {
			const char *s = strstr(l, "machine: ") + 9;
			set(&r->machine, s, strlen(s));
		} else if (starts(l, "| Closes: ") || starts(l, "| Link: ") || starts(l, "Closes: ") ||
			   starts(l, "Link: ")) {
			q = strstr(l, ": ") - 1;
			{
				const char *s = strchr(q, ' ') + 1;
				set(&r->closes, s, strcspn(s, " "));
				after_tags = true;
			}
		} else if (l[0] == '|' && !strstr(l, "Reported-by:")) {
			char **cells;
			size_t nc;
			split_cells(l, &cells, &nc);
			if (nc >= 3) {
				if (!*cells[0]) {
					free(r->parent);
					r->parent = xstrdup(cells[1]);
				} else {
					r->rows = xrealloc(r->rows, (r->nrows + 1) * sizeof(*r->rows));
					r->rows[r->nrows].id = xstrdup(cells[0]);
					r->rows[r->nrows].parent = count_cell(cells[1]);
					r->rows[r->nrows].commit = count_cell(cells[2]);
					r->nrows++;
				}
			}
			for (size_t k = 0; k < nc; k++)
				free(cells[k]);
			free(cells);
		} else if (after_tags && *t) {
			in_dmesg = true;
			after_tags = false;
			dm_start = ls;
			dm_end = ls + n;
		}
	}
	free(l);
	if (dm_start) {
		free(r->dmesg);
		r->dmesg = xstrndup(dm_start, dm_end - dm_start);
		size_t dn = strlen(r->dmesg);
		while (dn && (r->dmesg[dn - 1] == '\n' || r->dmesg[dn - 1] == '\r'))
			r->dmesg[--dn] = '\0';
		r->dmesg = xrealloc(r->dmesg, dn + 2);
		strcpy(r->dmesg + dn, "\n");
		return;
	}
	/* no tags block (a saved console, an old mail): the kernel's own lines are the dmesg */
	whole_console(r, text, len);
}

/* The subject's id: "[tree:branch] [subsys]  1758af47b9: WARNING:at_..." */
static void parse_subject(struct repro_report *r)
{
	const char *s = r->subject;
	if (!s)
		return;
	for (const char *p = s; (p = strchr(p, ':')); p++) {
		const char *b = p;
		while (b > s && ((b[-1] >= '0' && b[-1] <= '9') || (b[-1] >= 'a' && b[-1] <= 'f')))
			b--;
		if (p - b >= 7 && p[1] == ' ' && (b == s || b[-1] == ' ')) {
			if (!r->headline)
				set(&r->headline, p + 2, strlen(p + 2));
			if (!r->commit)
				set(&r->commit, b, p - b);
			return;
		}
	}
}

static const char *dmesg_line_value(const char *dm, const char *key)
{
	const char *p = dm ? strstr(dm, key) : NULL;
	return p ? p + strlen(key) : NULL;
}

static void derive(struct repro_report *r)
{
	/* materials without a mail: the attached console is the dmesg */
	if (!r->dmesg && r->full_dmesg)
		whole_console(r, r->full_dmesg, strlen(r->full_dmesg));
	const char *dm = r->full_dmesg ? r->full_dmesg : r->dmesg;

	parse_subject(r);
	if (!r->kind)
		r->kind = xstrdup(r->rows || r->dmesg || r->full_dmesg || r->testcase ? "runtime" :
										      "build");
	/* job-script fields fill what the mail did not say */
	const char *v;
	if (!r->testcase && (v = repro_job_get(r, "testcase")))
		r->testcase = xstrdup(v);
	if (!r->config_name && (v = repro_job_get(r, "kconfig")))
		r->config_name = xstrdup(v);
	if (!r->config_name && r->config_file)
		r->config_name = xstrdup(r->config_file);
	if (!r->compiler && (v = repro_job_get(r, "compiler")))
		r->compiler = xstrdup(v);
	if (!r->commit && (v = repro_job_get(r, "commit")))
		r->commit = xstrdup(v);
	if (!r->machine && (v = repro_job_get(r, "model"))) {
		const char *cpus = repro_job_get(r, "nr_cpu"), *mem = repro_job_get(r, "memory");
		r->machine = xasprintf("%s%s%s%s%s", v, cpus ? " -smp " : "", cpus ? cpus : "",
				       mem ? " -m " : "", mem ? mem : "");
	}
	if ((v = repro_job_get(r, "need_kconfig")))
		parse_need_kconfig(r, v);
	/* the command line: the job's, else the one the kernel printed */
	const char *ba = repro_job_get(r, "bootloader_append"), *kc = repro_job_get(r, "kernel_cmdline");
	if (ba || kc) {
		struct strbuf sb;
		strbuf_init(&sb);
		for (const char *s = ba ? ba : ""; *s; s++)
			strbuf_addch(&sb, *s == '\n' ? ' ' : *s);
		if (kc) {
			if (sb.len)
				strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, kc);
		}
		r->cmdline = strbuf_detach(&sb);
		r->cmdline_from = xstrdup("job-script");
	} else if (r->dmesg_cmdline) {
		r->cmdline = xstrdup(r->dmesg_cmdline);
		r->cmdline_from = xstrdup("dmesg");
	} else if ((v = dmesg_line_value(dm, "Kernel command line: ")) ||
		   (v = dmesg_line_value(r->dmesg, "Kernel command line: "))) {
		set(&r->cmdline, v, strcspn(v, "\r\n"));
		r->cmdline_from = xstrdup("dmesg");
	}
	/* the architecture: QEMU binary, job, config name, then what the trace looks like */
	const char *m = r->machine ? strstr(r->machine, "qemu-system-") : NULL;
	if (m) {
		m += 12;
		size_t n = strcspn(m, " ");
		if (!strncmp(m, "aarch64", n))
			r->arch = xstrdup("arm64");
		else
			r->arch = xstrndup(m, n);
	} else if ((v = repro_job_get(r, "arch"))) {
		r->arch = xstrdup(v);
	} else if (r->config_name) {
		static const char *const arches[] = {"x86_64", "i386", "arm64", "arm", "riscv64",
						     "riscv", "powerpc64", "powerpc", "s390",
						     "loongarch", "mips", "sparc64", "um"};
		for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]) && !r->arch; i++)
			if (starts(r->config_name, arches[i]) &&
			    strchr("-_", r->config_name[strlen(arches[i])]))
				r->arch = xstrdup(arches[i]);
	}
	if (!r->arch && dm) {
		if (strstr(dm, "RIP: ") || strstr(dm, "x86_64"))
			r->arch = xstrdup("x86_64");
		else if (strstr(dm, "pc : ") || strstr(dm, "aarch64") || strstr(dm, "ARMv8"))
			r->arch = xstrdup("arm64");
		else if (strstr(dm, "EIP: "))
			r->arch = xstrdup("i386");
	}
	const char *sig = r->dmesg ? r->dmesg : r->full_dmesg;
	if (sig && !r->computed_done)
		crash_scan_text(&r->computed, sig, strlen(sig));
}

int repro_read_file(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t alloc, n = 0;
	char *buf;

	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	/* one buffer of the file's size, read into directly: consoles are 100 MB */
	alloc = !fstat(fd, &st) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
	buf = xmalloc(alloc);
	for (;;) {
		if (n + 1 >= alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		ssize_t got = read(fd, buf + n, alloc - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			close(fd);
			free(buf);
			errno = e;
			return error_errno("cannot read '%s'", path);
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int read_mail(struct repro_report *r, const char *path, char *data, size_t len)
{
	struct mail_ctx c = {r, path, data, STRBUF_INIT, false};
	const char *p = data, *end = data + len;
	int ret = 0;

	strbuf_init(&c.text);
	if (len >= 5 && !strncmp(p, "From ", 5)) {
		const char *e = memchr(p, '\n', len);
		p = e ? e + 1 : end;
	}
	if (p < end && is_header_line(p, end) && find_blank_line(p, end)) {
		ret = parse_entity(&c, p, end, 0);
		if (!ret && c.text.len)
			parse_text(r, c.text.buf, c.text.len);
	} else {
		/* plain text: read in place, the file's buffer is ours */
		parse_text(r, data + (p - data), end - p);
	}
	strbuf_release(&c.text);
	return ret;
}

static bool is_report(const struct repro_report *r)
{
	return r->commit || r->nrows || r->headline || r->full_dmesg || r->njob ||
	       (r->dmesg && r->computed.nhits);
}

int repro_report_read(struct repro_report *r, const char *path)
{
	struct stat st;
	int ret = 0;

	repro_report_release(r);
	r->source = xstrdup(path);
	if (stat(path, &st))
		return error_errno("cannot open '%s'", path);
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		char **names = NULL;
		size_t n = 0;
		if (!d)
			return error_errno("cannot open '%s'", path);
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				add_str(&names, &n, de->d_name);
		closedir(d);
		/* a fixed order, so the same directory always gives the same document */
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (strcmp(names[i], names[j]) > 0) {
					char *t = names[i];
					names[i] = names[j];
					names[j] = t;
				}
		for (size_t i = 0; i < n && !ret; i++) {
			char *fp = xasprintf("%s/%s", path, names[i]), *data;
			size_t len;
			struct stat fst;
			if (stat(fp, &fst) || !S_ISREG(fst.st_mode)) {
				free(fp);
				continue;
			}
			if (repro_read_file(fp, &data, &len)) {
				ret = -1;
			} else if (ends_with(names[i], ".eml") || ends_with(names[i], ".mbox") ||
				   !strcmp(names[i], "mail") || !strcmp(names[i], "report") ||
				   ends_with(names[i], ".txt")) {
				ret = read_mail(r, fp, data, len);
			} else {
				struct mail_ctx c = {r, fp, NULL, STRBUF_INIT, false};
				ret = attachment(&c, names[i], data, len, fp, 1);
			}
			free(data);
			free(fp);
		}
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
	} else {
		char *data;
		size_t len;
		if (repro_read_file(path, &data, &len))
			return -1;
		if (len >= 6 && !memcmp(data, "\xfd" "7zXZ", 6)) {
			/* a bare dmesg.xz */
			struct mail_ctx c = {r, path, NULL, STRBUF_INIT, false};
			ret = attachment(&c, "dmesg.xz", data, len, path, 1);
		} else if (memchr(data, '\0', len)) {
			ret = error("%s:1: binary data, not a report", path);
		} else {
			ret = read_mail(r, path, data, len);
		}
		free(data);
	}
	if (ret)
		return -1;
	derive(r);
	if (!is_report(r))
		return error("%s:1: not a kernel test robot report (no commit: line, signature table, "
			     "job-script or kernel problem in a dmesg)", path);
	return 0;
}

/* ---- JSON ---- */

static void jstr(FILE *fp, const char *s)
{
	if (!s) {
		fputs("null", fp);
		return;
	}
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t run = 0;
		while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run) {
			fwrite(p, 1, run, fp);
			p += run - 1;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", fp);
		else if (*p == '\t')
			fputs("\\t", fp);
		else if (*p == '\r')
			fputs("\\r", fp);
		else if (*p < 0x20)
			fprintf(fp, "\\u%04x", *p);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

static void jcount(FILE *fp, long v)
{
	if (v < 0)
		fputs("null", fp);
	else
		fprintf(fp, "%ld", v);
}

/* Each member after the first opens with ",\n  \"KEY\": ". */
static void jkey(FILE *fp, const char *key)
{
	fprintf(fp, ",\n  \"%s\": ", key);
}

static void jfield(FILE *fp, const char *key, const char *s)
{
	jkey(fp, key);
	jstr(fp, s);
}

static void jstrs(FILE *fp, const char *key, char *const *v, size_t n)
{
	jkey(fp, key);
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		jstr(fp, v[i]);
	}
	fputc(']', fp);
}

static void jkvs(FILE *fp, const char *key, const struct repro_kv *kv, size_t n)
{
	jkey(fp, key);
	fputc('{', fp);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", fp);
		jstr(fp, kv[i].key);
		fputs(": ", fp);
		jstr(fp, kv[i].value);
	}
	fputc('}', fp);
}

void repro_report_json(FILE *fp, const struct repro_report *r)
{
	/* The report's own strings in the order the document has always had them. */
	const struct {
		const char *key, *value;
	} head[] = {
		{ "kind", r->kind }, { "headline", r->headline }, { "subject", r->subject },
		{ "message_id", r->message_id }, { "commit", r->commit },
		{ "commit_subject", r->commit_subject }, { "tree", r->tree }, { "branch", r->branch },
		{ "testcase", r->testcase }, { "version", r->version },
	}, machine[] = {
		{ "config", r->config_name }, { "compiler", r->compiler },
		{ "test_machine", r->machine }, { "closes", r->closes }, { "parent", r->parent },
	};

	fputs("{\n  \"source\": ", fp);
	jstr(fp, r->source);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		jfield(fp, head[i].key, head[i].value);
	jkvs(fp, "parameters", r->params, r->nparams);
	for (size_t i = 0; i < sizeof(machine) / sizeof(machine[0]); i++)
		jfield(fp, machine[i].key, machine[i].value);
	jkey(fp, "signatures");
	fputc('[', fp);
	for (size_t i = 0; i < r->nrows; i++) {
		fputs(i ? ",\n    {\"id\": " : "\n    {\"id\": ", fp);
		jstr(fp, r->rows[i].id);
		fputs(", \"parent\": ", fp);
		jcount(fp, r->rows[i].parent);
		fputs(", \"commit\": ", fp);
		jcount(fp, r->rows[i].commit);
		fputc('}', fp);
	}
	fputs(r->nrows ? "\n  ]" : "]", fp);
	jkey(fp, "computed");
	fputs("{\"title\": ", fp);
	jstr(fp, r->computed.title);
	fputs(", \"ids\": [", fp);
	for (size_t i = 0; i < r->computed.nhits; i++) {
		fputs(i ? ", " : "", fp);
		jstr(fp, r->computed.hits[i].id);
	}
	fputs("]}", fp);
	jfield(fp, "cmdline", r->cmdline);
	jfield(fp, "cmdline_from", r->cmdline_from);
	jfield(fp, "arch", r->arch);
	jstrs(fp, "need_kconfig", r->need_kconfig, r->nneed);
	jstrs(fp, "files", r->files, r->nfiles);
	jkvs(fp, "job", r->job, r->njob);
	jfield(fp, "full_dmesg", r->full_dmesg_name);
	jfield(fp, "dmesg", r->dmesg);
	fputs("\n}\n", fp);
}

/* ---- matching ---- */

/* lkp versions spell the oops header's id as "Oops" or "Oops:#[##]" (and with the flags after
 * it): compare without what follows ":#[##]". */
static size_t id_core_len(const char *s)
{
	const char *p = strstr(s, ":#[##]");
	return p ? (size_t)(p - s) : strlen(s);
}

bool repro_id_equal(const char *a, const char *b)
{
	size_t la = id_core_len(a), lb = id_core_len(b);
	return la == lb && !strncmp(a, b, la);
}

static bool counts_as_target(const char *id)
{
	return strcmp(id, "boot_successes") && strcmp(id, "boot_failures") &&
	       strncmp(id, "kernel-selftests.", 17);
}

size_t repro_report_target_ids(const struct repro_report *r, const char ***ids)
{
	size_t n = 0;
	const char **out = xcalloc(r->nrows + r->computed.nhits + 2, sizeof(*out));
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].commit != 0 && counts_as_target(r->rows[i].id))
			out[n++] = r->rows[i].id;
	if (!n && r->headline && counts_as_target(r->headline))
		out[n++] = r->headline;
	if (!n)
		for (size_t i = 0; i < r->computed.nhits; i++)
			out[n++] = r->computed.hits[i].id;
	*ids = out;
	return n;
}

const char *repro_verdict_name(enum repro_verdict v)
{
	return v == REPRO_REPRODUCED ? "reproduced" : v == REPRO_OTHER ? "other" : "clean";
}

void repro_match_console(const struct repro_report *r, const char *buf, size_t len,
			 struct repro_match *m)
{
	const char **ids;
	size_t nids = repro_report_target_ids(r, &ids);

	memset(m, 0, sizeof(*m));
	crash_scan_init(&m->scan);
	crash_scan_text(&m->scan, buf, len);
	m->lines = xcalloc(m->scan.nhits + 1, sizeof(*m->lines));
	for (size_t i = 0; i < m->scan.nhits; i++)
		for (size_t j = 0; j < nids; j++)
			if (repro_id_equal(m->scan.hits[i].id, ids[j])) {
				m->lines[m->nlines++] = i;
				break;
			}
	if (m->nlines) {
		m->verdict = REPRO_REPRODUCED;
	} else if (m->scan.nhits) {
		m->verdict = REPRO_OTHER;
		for (size_t i = 0; i < m->scan.nhits; i++)
			m->lines[m->nlines++] = i;
	} else {
		m->verdict = REPRO_CLEAN;
	}
	free(ids);
}

void repro_match_release(struct repro_match *m)
{
	crash_scan_release(&m->scan);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}

/* ---- the command line for the run ---- */

char *repro_cmdline_for_run(const char *cmdline)
{
	/* lkp's bookkeeping (which job, where results go, its rootfs and network) and what
	 * tapboot sets itself (its console, init and nonce) */
	static const char *const drop[] = {
		"job=", "RESULT_ROOT=", "BOOT_IMAGE=", "branch=", "commit=", "kconfig=", "user=",
		"ARCH=", "LKP_SERVER=", "LKP_LOCAL_RUN=", "max_uptime=", "result_service=", "ip=",
		"root=", "load_ramdisk=", "prompt_ramdisk=", "rootfstype=", "rw", "ro",
		"console=", "earlyprintk=", "rdinit=", "init=", "initrd=", "tapboot.", "panic=",
		"vga=", "drbd.minor_count=", "systemd.log_level=", "rcuperf.shutdown=",
		"rcuscale.shutdown=", "refscale.shutdown=", "selinux=", "nokaslr_placeholder",
	};
	struct strbuf sb;
	const char *p = cmdline ? cmdline : "";

	strbuf_init(&sb);
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " \t\n");
		bool keep = true;
		for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]) && keep; i++) {
			size_t dl = strlen(drop[i]);
			if (drop[i][dl - 1] == '=' || drop[i][dl - 1] == '.')
				keep = !(n >= dl && !strncmp(p, drop[i], dl));
			else
				keep = !(n == dl && !strncmp(p, drop[i], dl));
		}
		if (keep) {
			if (sb.len)
				strbuf_addch(&sb, ' ');
			strbuf_add(&sb, p, n);
		}
		p += n;
	}
	return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}
