// SPDX-License-Identifier: LGPL-2.1-or-later
/* The memory stream a report is written into: open_memstream(), whose string
 * is only valid once the stream is closed, and freed here if that fails. */
#include <errno.h>
#include <stdlib.h>
#include "report.h"

int pt_report_open(struct pt_report *r)
{
	r->text = NULL;
	r->f = open_memstream(&r->text, &r->size);
	if (!r->f)
		return -ENOMEM;
	return 0;
}

int pt_report_end(struct pt_report *r, char **text)
{
	int failed = fclose(r->f);

	*text = r->text;
	if (!failed && *text)
		return 0;
	free(*text);
	*text = NULL;
	return -ENOMEM;
}

void pt_report_if(FILE *f, const char *before, const char *s, const char *after)
{
	if (s)
		fprintf(f, "%s%s%s", before, s, after);
}
