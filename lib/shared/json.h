/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* json.c: a JSON emitter onto a FILE.  Its names have no pt_ prefix, as kmod's
 * shared/strbuf.h: the perftune program builds it in and calls it as its own. */
#ifndef PERFTUNE_SHARED_JSON_H
#define PERFTUNE_SHARED_JSON_H

#include <stdbool.h>
#include <stdio.h>

/*
 * JSON output: one emitter owns the commas, the nesting and the layout.  A
 * value goes where the emitter is: a member after json_key(), else the next
 * element of the array open (or the document).  Members and elements go on
 * one line ("a": 1, "b": 2) unless their container was opened with @rows,
 * the indent of each element on its own line (the closing bracket 2 less),
 * or json_break() puts the next member, or the closing bracket, on a new
 * line.  The outermost value ends with a newline.
 */
#define JSON_DEPTH 8
struct json {
	FILE *f;
	int depth, pending; /* pending: json_break()'s indent, or -1 */
	bool keyed;	    /* a key was written: its value comes next */
	bool empty[JSON_DEPTH];
	int rows[JSON_DEPTH];
	char close[JSON_DEPTH];
};
#define JSON_INIT(file)                                                                            \
	{                                                                                          \
		.f = (file), .pending = -1                                                         \
	}
void json_open(struct json *j, char bracket, int rows); /* '{' or '[' */
void json_close(struct json *j);
void json_key(struct json *j, const char *key);
void json_break(struct json *j, int indent);
void json_str(struct json *j, const char *s); /* escaped; null for NULL */
void json_num(struct json *j, double v);      /* %.10g; null if not finite */
void json_kv(struct json *j, const char *key, const char *value);
void json_kb(struct json *j, const char *key, bool value);
void json_ki(struct json *j, const char *key, long long value);
void json_kn(struct json *j, const char *key, double value);

#endif
