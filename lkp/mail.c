// SPDX-License-Identifier: GPL-2.0-only
/* mail.c: a report's mail as people save it (mbox, MIME multipart, base64 and quoted-printable
 * parts) and the materials it carries or a directory holds, by their names. */
#include "report_parts.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "strbuf.h"

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

static int parse_entity(struct mail_ctx *c, const char *p, const char *end, int depth);

/* A multipart body [body, end) whose parts are separated by "--boundary" lines (p: its
 * headers, for messages). */
static int parse_multipart(struct mail_ctx *c, const char *p, const char *body, const char *end,
			   const char *ctype, int depth)
{
	char *b = header_param(ctype, "boundary");
	int ret = 0;

	if (!b)
		return error("%s:%zu: multipart part without a boundary parameter", c->file,
			     line_of(c, p));
	size_t bl = strlen(b);
	const char *q = body, *part = NULL;
	bool closed = false;
	size_t last_line = line_of(c, body);
	while (q < end) {
		const char *e = memchr(q, '\n', end - q);
		const char *le = e ? e : end;
		if (le - q >= (long)bl + 2 && q[0] == '-' && q[1] == '-' && !strncmp(q + 2, b, bl)) {
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
			    "'--%s--' (a truncated mail?)",
			    c->file, part ? last_line : line_of(c, body), b);
	free(b);
	return ret;
}

/* A part that is not multipart: decoded, then the mail's text (the first inline text/plain)
 * or a material by its file name. */
static int parse_leaf(struct mail_ctx *c, const char *body, const char *end, const char *ctype,
		      const char *cte, const char *disp, const char *fname, int depth)
{
	char *dec = NULL;
	size_t dlen = 0;
	int ret = 0;

	if (cte && !strcasecmp(cte, "base64")) {
		size_t bad = 0;
		const char *msg = NULL;
		if (repro_base64_decode(body, end - body, &dec, &dlen, &bad, &msg))
			return error("%s:%zu: %s%s%s%s", c->file, line_of(c, body) + bad, msg,
				     fname ? " in attachment '" : "", fname ? fname : "",
				     fname ? "'" : "");
	} else if (cte && !strcasecmp(cte, "quoted-printable")) {
		repro_qp_decode(body, end - body, &dec, &dlen);
	} else {
		dec = xstrndup(body, end - body);
		dlen = end - body;
	}
	bool is_text = !ctype || !strncasecmp(ctype, "text/plain", 10);
	bool inline_text = is_text && (!fname || (disp && !strncasecmp(disp, "inline", 6) &&
						  !strstr(fname, "config") &&
						  strcmp(fname, "job-script")));
	if (inline_text && depth <= 2 && !c->has_text) {
		strbuf_add(&c->text, dec, dlen);
		c->has_text = true;
	} else if (fname) {
		ret = attachment(c, fname, dec, dlen, c->file, line_of(c, body));
	}
	free(dec);
	return ret;
}

static int parse_entity(struct mail_ctx *c, const char *p, const char *end, int depth)
{
	const char *hend = find_blank_line(p, end);
	const char *body;
	char *ctype, *cte, *disp, *fname = NULL;
	int ret;

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
	if (ctype && !strncasecmp(ctype, "multipart/", 10))
		ret = parse_multipart(c, p, body, end, ctype, depth);
	else
		ret = parse_leaf(c, body, end, ctype, cte, disp, fname, depth);
	free(ctype);
	free(cte);
	free(disp);
	free(fname);
	return ret;
}

/* A material: by its name, as lkp names them. where/line name it in messages. */
static int attachment(struct mail_ctx *c, const char *name, const char *data, size_t len,
		      const char *where, size_t line)
{
	struct repro_report *r = c->r;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	report_add_str(&r->files, &r->nfiles, base);
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
		int ret = report_job_script(r, data, len, label);
		free(label);
		return ret;
	} else if (!strcmp(base, "job.yaml")) {
		report_job_yaml(r, data, len);
	}
	return 0;
}

int report_read_mail(struct repro_report *r, const char *path, char *data, size_t len)
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
			report_parse_text(r, c.text.buf, c.text.len);
	} else {
		/* plain text: read in place, the file's buffer is ours */
		report_parse_text(r, data + (p - data), end - p);
	}
	strbuf_release(&c.text);
	return ret;
}

int report_material(struct repro_report *r, const char *name, const char *data, size_t len,
		    const char *where, size_t line)
{
	struct mail_ctx c = {r, where, NULL, STRBUF_INIT, false};

	return attachment(&c, name, data, len, where, line);
}
