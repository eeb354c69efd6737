/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* holder.c: who holds a journal (this boot, a live process). */
#ifndef PERFTUNE_ENGINE_HOLDER_H
#define PERFTUNE_ENGINE_HOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* this boot's id ("unknown" where the kernel shows none), read once */
void pt_boot_id(char *buf, size_t size);
/* this process's start time (field 22 of /proc/self/stat), read once per process */
unsigned long long pt_self_starttime(void);
/* process @pid lives and started at @starttime: a reused pid is not the holder */
bool pt_holder_alive(pid_t pid, unsigned long long starttime);

#endif
