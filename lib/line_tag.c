// SPDX-License-Identifier: GPL-2.0-only
/* line_tag.c: SipHash-2-4 tags on the init's console lines (line_tag.h). Written from the
 * SipHash paper's description; the unit test checks the paper's test vector. */
#include "line_tag.h"

#include <string.h>

#include "base64.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sipround(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

static void sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sipround(s);
	sipround(s);
	s->v0 ^= m;
}

/* Over two pieces (the sequence number and the line) without copying them together. */
static uint64_t siphash2(const unsigned char key[LINE_TAG_KEY_LEN], const unsigned char *a,
			 size_t an, const unsigned char *b, size_t bn)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	struct sip s = {k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
			k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL};
	size_t total = an + bn, fill = 0;
	unsigned char w[8];
	uint64_t last;

	for (size_t i = 0; i < total; i++) {
		w[fill++] = i < an ? a[i] : b[i - an];
		if (fill == 8) {
			sip_word(&s, le64(w));
			fill = 0;
		}
	}
	last = (uint64_t)(total & 0xff) << 56;
	for (size_t i = 0; i < fill; i++)
		last |= (uint64_t)w[i] << (8 * i);
	sip_word(&s, last);
	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t line_tag_siphash(const unsigned char key[LINE_TAG_KEY_LEN], const void *msg, size_t n)
{
	return siphash2(key, msg, n, NULL, 0);
}

uint64_t line_tag_mac(const unsigned char key[LINE_TAG_KEY_LEN], uint64_t seq, const char *s,
		      size_t n)
{
	unsigned char sb[8];

	for (int i = 0; i < 8; i++)
		sb[i] = (unsigned char)(seq >> (8 * i));
	return siphash2(key, sb, sizeof(sb), (const unsigned char *)s, n);
}

/* RFC 4648's base64url alphabet */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void line_tag_append(struct strbuf *sb, const unsigned char key[LINE_TAG_KEY_LEN], uint64_t seq,
		     const char *s, size_t n)
{
	uint64_t tag = line_tag_mac(key, seq, s, n);
	char d[LINE_TAG_DIGITS];

	for (int i = LINE_TAG_DIGITS - 1; i >= 0; i--, tag >>= 6)
		d[i] = b64[tag & 63];
	strbuf_add(sb, s, n);
	strbuf_addf(sb, LINE_TAG_MARK "%llu:", (unsigned long long)seq);
	strbuf_add(sb, d, sizeof(d));
}

/* The tag's digits at the end of s: their count (11 base64url, 16 hex) or 0. */
static size_t tag_digits(const char *s, size_t n, uint64_t *tag)
{
	uint64_t t = 0;
	int first = n >= LINE_TAG_DIGITS ? base64_digit((unsigned char)s[n - LINE_TAG_DIGITS], true)
					 : -1;

	if (n >= LINE_TAG_DIGITS + 1 && s[n - LINE_TAG_DIGITS - 1] == ':' && first >= 0 &&
	    first < 16) {
		for (size_t i = n - LINE_TAG_DIGITS; i < n; i++) {
			int v = base64_digit((unsigned char)s[i], true);

			if (v < 0)
				return 0;
			t = t << 6 | (uint64_t)v;
		}
		*tag = t;
		return LINE_TAG_DIGITS;
	}
	if (n < 17 || s[n - 17] != ':')
		return 0;
	for (size_t i = n - 16; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			t = t << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			t = t << 4 | (uint64_t)(c - 'a' + 10);
		else
			return 0;
	}
	*tag = t;
	return 16;
}

bool line_tag_split(const char *s, size_t n, size_t *body, uint64_t *seq, uint64_t *tag)
{
	size_t ml = strlen(LINE_TAG_MARK), i, digits = 0, td;
	uint64_t v = 0;

	/* shortest: " ~tb:1:" and the tag's digits */
	if (n < ml + 2 + LINE_TAG_DIGITS || !(td = tag_digits(s, n, tag)))
		return false;
	i = n - td - 1;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && digits < 20) {
		i--;
		digits++;
	}
	if (!digits || digits > 19 || i < ml || memcmp(s + i - ml, LINE_TAG_MARK, ml))
		return false;
	for (size_t j = i; j < n - td - 1; j++)
		v = v * 10 + (uint64_t)(s[j] - '0');
	*body = i - ml;
	*seq = v;
	return true;
}

bool line_tag_check(const unsigned char key[LINE_TAG_KEY_LEN], const char *s, size_t n,
		    size_t *body, uint64_t *seq)
{
	uint64_t tag;

	return line_tag_split(s, n, body, seq, &tag) && line_tag_mac(key, *seq, s, *body) == tag;
}
