// SPDX-License-Identifier: LGPL-2.1-or-later
/* The JSON emitter (json.h): the library's reports and the perftune program's
 * --json, which builds this file in too (utils/meson.build). */
#include <math.h>
#include "json.h"
#include "utf8.h"

/*
 * JSON wants UTF-8 (RFC 8259), and a path, a kernel name or a value may hold
 * any byte: a byte of no valid sequence is the four characters \xHH, as
 * Python's "backslashreplace" (and the Prometheus output) writes it
 */
static void json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = pt_utf8_len(p);
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else if (!n)
			fprintf(f, "\\\\x%02x", *p);
		else
			fwrite(p, 1, n, f);
		if (!n)
			n = 1;
		p += n;
	}
	fputc('"', f);
}

/* what comes before a member's key or an element: a comma, a line break */
static void json_sep(struct json *j)
{
	int d = j->depth;

	if (j->keyed) { /* the value of the key just written */
		j->keyed = false;
		return;
	}
	if (!d)
		return;
	if (!j->empty[d])
		fputc(',', j->f);
	if (j->pending >= 0)
		fprintf(j->f, "\n%*s", j->pending, "");
	else if (j->rows[d])
		fprintf(j->f, "\n%*s", j->rows[d], "");
	else if (!j->empty[d])
		fputc(' ', j->f);
	j->pending = -1;
	j->empty[d] = false;
}

void json_open(struct json *j, char bracket, int rows)
{
	json_sep(j);
	fputc(bracket, j->f);
	j->depth++;
	j->empty[j->depth] = true;
	j->rows[j->depth] = rows;
	j->close[j->depth] = bracket == '{' ? '}' : ']';
}

void json_close(struct json *j)
{
	int d = j->depth;

	if (j->pending >= 0)
		fprintf(j->f, "\n%*s", j->pending, "");
	else if (j->rows[d] && !j->empty[d])
		fprintf(j->f, "\n%*s", j->rows[d] - 2, "");
	fputc(j->close[d], j->f);
	j->pending = -1;
	if (--j->depth == 0)
		fputc('\n', j->f);
}

void json_break(struct json *j, int indent)
{
	j->pending = indent;
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quote(j->f, key);
	fputs(": ", j->f);
	j->keyed = true;
}

void json_str(struct json *j, const char *s)
{
	json_sep(j);
	if (s)
		json_quote(j->f, s);
	else
		fputs("null", j->f);
}

static void json_bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

static void json_int(struct json *j, long long v)
{
	json_sep(j);
	fprintf(j->f, "%lld", v);
}

void json_num(struct json *j, double v)
{
	json_sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json_kv(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	json_str(j, value);
}

void json_kb(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	json_bool(j, value);
}

void json_ki(struct json *j, const char *key, long long value)
{
	json_key(j, key);
	json_int(j, value);
}

void json_kn(struct json *j, const char *key, double value)
{
	json_key(j, key);
	json_num(j, value);
}
