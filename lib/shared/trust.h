/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* trust.c: whether a file, and the directories above it, can be changed by others */
#ifndef PERFTUNE_SHARED_TRUST_H
#define PERFTUNE_SHARED_TRUST_H

#include <stddef.h>

/*
 * Check @file and the directories above it (after resolving links): the file
 * and every directory up to @top (NULL: the file's own directory) strictly,
 * those above with sticky directories allowed (/tmp).  Not trusted: owned by
 * another user than root or the caller, group-writable (a group other than
 * root's) or other-writable.  0 if trusted (also when @file is not there: its
 * open fails with its own message), else -EPERM with @why "PATH is REASON
 * (mode NNNN)".
 */
int pt_trust_check(const char *file, const char *top, char *why, size_t size);

#endif
