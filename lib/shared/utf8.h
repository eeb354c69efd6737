/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* utf8.c: the valid UTF-8 sequences, for the escapes of JSON and Prometheus. */
#ifndef PERFTUNE_SHARED_UTF8_H
#define PERFTUNE_SHARED_UTF8_H

#include <stddef.h>

/* the length of the valid UTF-8 sequence at @s (1 to 4; Unicode's table 3-7:
 * no overlong form, no surrogate, nothing past U+10FFFF), or 0; the NUL that
 * ends @s stops it */
size_t pt_utf8_len(const unsigned char *s);

#endif
