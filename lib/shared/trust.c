// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whom a file is trusted from, as sudo treats its configuration: the file and
 * the directories above it (links resolved) may be written by root (or the
 * caller) alone.  The library checks the profiles and variables files it
 * reads; the perftune program, which builds this file in as it does json.c,
 * checks the programs it runs as root (compare --plot's gnuplot).
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trust.h"

/* "" if @st may be trusted, else why not; @sticky_ok: o+w with the sticky bit is fine */
static const char *unsafe_stat(const struct stat *st, bool sticky_ok)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "owned by another user than root";
	if ((st->st_mode & S_IWOTH) &&
	    !(sticky_ok && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return "writable by others";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
		return "writable by its group";
	return "";
}

int pt_trust_check(const char *file, const char *top, char *why, size_t size)
{
	char real[PATH_MAX], rtop[PATH_MAX] = "";
	bool strict = true;

	if (!realpath(file, real))
		return 0; /* not there: the open fails with its own message */
	if (top && !realpath(top, rtop))
		return 0;
	if (!top) {
		snprintf(rtop, sizeof(rtop), "%s", real);
		*(strrchr(rtop, '/') == rtop ? rtop + 1 : strrchr(rtop, '/')) = '\0';
	}
	for (;;) {
		struct stat st;
		const char *r;
		char *slash;
		if (stat(real, &st) < 0)
			return 0;
		r = unsafe_stat(&st, !strict);
		if (*r) {
			snprintf(why, size, "%s is %s (mode %04o)", real, r,
				 (unsigned)(st.st_mode & 07777));
			return -EPERM;
		}
		if (!strcmp(real, rtop))
			strict = false; /* from here up: above the search directory */
		if (!strcmp(real, "/"))
			return 0;
		slash = strrchr(real, '/');
		*(slash == real ? slash + 1 : slash) = '\0';
	}
}
