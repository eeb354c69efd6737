/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* report.c: the memory stream a report (perftune_*_report()) is written into */
#ifndef PERFTUNE_SHARED_REPORT_H
#define PERFTUNE_SHARED_REPORT_H

#include <stdio.h>

struct pt_report {
	FILE *f;    /* write the report here */
	char *text; /* open_memstream()'s string: valid once the stream is closed */
	size_t size;
};

/* @r's stream opened: 0, or -ENOMEM */
int pt_report_open(struct pt_report *r);
/* @r's stream closed: 0 with the string in *@text (free() it), or -ENOMEM with *@text NULL */
int pt_report_end(struct pt_report *r, char **text);
/* @before, @s and @after on @f, unless @s is NULL (a field a report shows only when set) */
void pt_report_if(FILE *f, const char *before, const char *s, const char *after);

#endif
