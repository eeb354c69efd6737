/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* regex.c: a key's selector regex (proc[<regex>]), bounded in memory and time. */
#ifndef PERFTUNE_PROFILE_REGEX_H
#define PERFTUNE_PROFILE_REGEX_H

struct pt_regex;
/* @re, a POSIX extended regex, compiled: 0, or -EINVAL with *@err (malloc'd) saying why
 * (a syntax error, or past a bound: length, nesting, memory), -ENOMEM */
int pt_regex_new(const char *re, struct pt_regex **out, char **err);
/* 1 it matches @text, 0 not, -EINVAL with *@err past the bound of a match, -ENOMEM */
int pt_regex_match(struct pt_regex *rx, const char *text, char **err);
void pt_regex_free(struct pt_regex *rx);

#endif
