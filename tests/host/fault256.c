// SPDX-License-Identifier: LGPL-2.1-or-later
/* The host tier's `perftune compare` workload: fault in 256 MB of anonymous
 * memory without madvise(), one write per 4 kB page, and print the page
 * faults it took.  With thp.enabled=always the kernel backs it with 2 MB
 * pages (128 faults instead of 65536); under "madvise" it does not.
 *   fault256 [hang-if VALUE DIR]: when THP's selected value is VALUE, create
 *   DIR/hanging afterwards and wait for a signal (the kill -9 test) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define SIZE (256UL << 20)

/* is THP's selected (bracketed) value @value? */
static int thp_is(const char *value)
{
	char buf[256] = "", want[64];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	snprintf(want, sizeof(want), "[%s]", value);
	return strstr(buf, want) != NULL;
}

int main(int argc, char **argv)
{
	struct rusage before, after;
	char *p;

	getrusage(RUSAGE_SELF, &before);
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < SIZE; i += 4096)
		p[i] = 1;
	getrusage(RUSAGE_SELF, &after);
	printf("faults: %ld\n", after.ru_minflt - before.ru_minflt);
	fflush(stdout);
	if (argc == 4 && !strcmp(argv[1], "hang-if") && thp_is(argv[2])) {
		char path[4096];
		FILE *h;
		snprintf(path, sizeof(path), "%s/hanging", argv[3]);
		h = fopen(path, "w");
		if (h)
			fclose(h);
		for (;;)
			pause();
	}
	munmap(p, SIZE);
	return 0;
}
