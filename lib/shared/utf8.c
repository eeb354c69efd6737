// SPDX-License-Identifier: LGPL-2.1-or-later
/* UTF-8 as the outputs want it: JSON (RFC 8259) and Prometheus' labels take
 * UTF-8, and a path, a kernel name or a value may hold any byte.  Built into
 * the perftune program too (utils/meson.build), for its JSON. */
#include "utf8.h"

size_t pt_utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0; /* overlong */
		if (s[0] == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90; /* overlong */
		if (s[0] == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) /* stops at the NUL that ends @s */
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}
