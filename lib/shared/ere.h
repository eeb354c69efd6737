/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A POSIX extended regex in PCRE2's syntax, where PCRE2 is too old to convert it (ere.c). */
#ifndef PERFTUNE_ERE_H
#define PERFTUNE_ERE_H

/*
 * @re as pcre2_pattern_convert(PCRE2_CONVERT_POSIX_EXTENDED) writes it, byte
 * for byte, into *@out (malloc'd): 0, or a PCRE2 error code
 * (PCRE2_ERROR_END_BACKSLASH, _MISSING_SQUARE_BRACKET, _NOMEMORY)
 */
int pt_ere_to_pcre2(const char *re, char **out);

#endif
