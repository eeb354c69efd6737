/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* util.c: strings and values. */
#ifndef PERFTUNE_SHARED_UTIL_H
#define PERFTUNE_SHARED_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include "macro.h"

bool pt_has_cntrl(const char *s);
void pt_one_line(char *s);
void pt_normalize(char *s);	       /* bracket choice, trim, collapse blanks */
bool pt_is_selection(const char *raw); /* "a [b] c": one word whole in brackets */
/* @a and @b compare as values: alike once normalized (a value is written as given, and
 * compared normalized: the kernel reads any run of blanks in a vector alike) */
bool pt_value_eq(const char *a, const char *b);
void pt_trim(char *s);
bool pt_choice_in(const char *raw, const char *word);	  /* word among the choices of raw */
void pt_choices(const char *raw, char *out, size_t size); /* "a [b] c" -> "a b c" */
int pt_parse_ll(const char *s, long long *v);
/* pt_parse_digits() - decimal digits only, at most @max; -EINVAL or -ERANGE */
int pt_parse_digits(const char *s, unsigned long max, unsigned long *v);
bool pt_value_ok(const char *v); /* printable, bounded, no newline */
int pt_snprintf(char *buf, size_t size, const char *fmt, ...)
	_printf_(3, 4); /* -ENAMETOOLONG on truncation */

#endif
