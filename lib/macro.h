/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers in the style of kmod's macro.h; each one in use (drop what is not). */
#ifndef PERFTUNE_MACRO_H
#define PERFTUNE_MACRO_H

#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <stdio.h>

#define PERFTUNE_EXPORT __attribute__((visibility("default")))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_closedir_ _cleanup_(closedirp)

#endif
