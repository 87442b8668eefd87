// SPDX-License-Identifier: GPL-2.0-only
/* decode.c: the decoders of a report's mail: base64 and quoted-printable bodies, xz-compressed
 * consoles (dmesg.xz, kmsg.xz). */
#include "repro.h"

#include <lzma.h>
#include <stdint.h>
#include <string.h>

#include "base64.h"
#include "strbuf.h"

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
