/* SPDX-License-Identifier: GPL-2.0 */
/* tap.h - a minimal TAP producer for the host unit tests (run by prove) */
#ifndef _IOCOST_TAP_H
#define _IOCOST_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {						\
	int _c = !!(cond);						\
	tap_n++;							\
	if (!_c)							\
		tap_failed++;						\
	printf("%s %d - ", _c ? "ok" : "not ok", tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!_c)							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
