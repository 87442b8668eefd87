// SPDX-License-Identifier: GPL-2.0-only
/* html.c: escaped text and the page frame of tapboot's pages (html.h). */
#include <stdint.h>
#include <string.h>

#include "html.h"
#include "json.h"

void html_putn(FILE *fp, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = utf8_decode(u + i, n - i, &cp);

		switch (cp) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		default:
			if ((cp == 0xfffd && l == 1) || (cp < 0x20 && cp != '\t' && cp != '\n') ||
			    cp == 0x7f)
				fputs("&#xfffd;", fp);
			else
				fwrite(u + i, 1, l, fp);
		}
		i += l;
	}
}

void html_put(FILE *fp, const char *s)
{
	if (s)
		html_putn(fp, s, strlen(s));
}

void html_page_begin(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", fp);
	html_put(fp, title);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	      "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
	      "th,td{border:1px solid #ccc;padding:0.2em "
	      "0.6em;text-align:left;vertical-align:top}\n"
	      "th{background:#eee}\n"
	      "td.v{font-weight:bold}\n"
	      "pre{background:#f6f6f6;border:1px solid #ddd;padding:0.5em;overflow-x:auto}\n"
	      ".pass{color:#1a7f37}.fail,.regression,.new-failing{color:#cf222e}\n"
	      ".flaky{color:#9a6700}.skip,.xfail{color:#6e7781}\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      fp);
	html_put(fp, title);
	fputs("</h1>\n", fp);
}

void html_page_end(FILE *fp)
{
	fputs("<p><small>written by tapboot: plain HTML, no "
	      "scripts</small></p>\n</body>\n</html>\n",
	      fp);
}

const char *html_colour(const char *verdict)
{
	static const struct {
		const char *name, *colour;
	} map[] = {
		{"pass", "#2da44e"},	    {"fixed", "#2da44e"},   {"new", "#2da44e"},
		{"skip", "#8c959f"},	    {"xfail", "#8c959f"},   {"vanished", "#8c959f"},
		{"flaky", "#d4a72c"},	    {"fail", "#cf222e"},    {"regression", "#cf222e"},
		{"new-failing", "#cf222e"}, {"failing", "#a40e26"}, {"timeout", "#bc4c00"},
		{"crash", "#6639ba"},	    {"xpass", "#bc4c00"},   {"missing", "#57606a"},
	};

	for (size_t i = 0; verdict && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, verdict))
			return map[i].colour;
	return "#57606a";
}
