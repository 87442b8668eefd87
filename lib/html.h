/* SPDX-License-Identifier: GPL-2.0-only */
/* html.h: the pages tapboot writes (results.html, gate.html, tapboot history --html): escaped
 * text and the one page frame with its style. Plain HTML and inline SVG: no scripts, nothing
 * from the network, readable offline. */
#ifndef TAPBOOT_HTML_H
#define TAPBOOT_HTML_H

#include <stdio.h>

/* s as HTML text or attribute value: & < > " ' as entities, invalid UTF-8 as U+FFFD, other
 * control characters but tab and newline as U+FFFD; NULL prints nothing. */
void html_put(FILE *fp, const char *s);
void html_putn(FILE *fp, const char *s, size_t n);
/* The doctype, head (title escaped, the shared style) and <body><h1>title</h1>. */
void html_page_begin(FILE *fp, const char *title);
void html_page_end(FILE *fp);
/* The colour a verdict or class is drawn in (a CSS colour), by its name. */
const char *html_colour(const char *verdict);

#endif
