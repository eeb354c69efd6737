/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpulist.c: CPU and node lists and masks (bit i in byte i / 8). */
#ifndef PERFTUNE_SHARED_CPULIST_H
#define PERFTUNE_SHARED_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#define PT_CPUS_MAX 8192
#define PT_CPUS_BYTES (PT_CPUS_MAX / 8)
/* the kernel's syntax "0-3,8": 0, -EINVAL (syntax), -ERANGE (a > b, past @nbits) */
int pt_parse_cpulist(const char *s, unsigned char *mask, int nbits);
/* packed "0-3,8" of the first @nbits bits; truncated to whole items */
void pt_format_cpulist(const unsigned char *mask, int nbits, char *out, size_t size);
/* masks of PT_CPUS_MAX bits: */
void pt_cpus_set(unsigned char *m, long i, bool on); /* outside the mask: ignored */
bool pt_cpus_has(const unsigned char *m, long i);
/* the first set bit at or after @from among the first @nbits of @m, or @nbits if none */
int pt_cpus_next(const unsigned char *m, int nbits, int from);
/* TuneD's cpulist_unpack / hex2cpulist ("0x" optional, commas dropped, ORed in): 0, or
 * -EINVAL with the reason in @why (what TuneD silently empties, and Python's accidents) */
int pt_cpus_parse(const char *s, unsigned char *mask, char *why, size_t size);
int pt_cpus_hex(const char *s, unsigned char *m, char *why, size_t size);
char *pt_cpus_list(const unsigned char *m, const char *prefix, bool pack); /* "0,1" / "0-1" */
/* Python's int(@s) of a decimal within +-@max: 0, or -EINVAL with the reason in @why
 * (not a number, past @max, or what int() takes by accident: '_', non-ASCII digits) */
int pt_py_int(const char *s, long long max, long long *v, char *why, size_t size);
char *pt_cpus_hexstr(const unsigned char *m); /* "0000000f" */

#endif
