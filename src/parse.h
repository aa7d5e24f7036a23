/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - pure parsers of the iocost_bpf control files
 *
 * No kernel state is touched here, so the same source builds into the
 * module, the host unit tests and the fuzzer.
 */
#ifndef _IOCOST_PARSE_H
#define _IOCOST_PARSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <linux/types.h>
typedef __u32 u32;
typedef __u64 u64;
typedef __u64 sector_t;
#endif

#include "../include/iocost_model.h"

/* MAJ:MIN limits of a dev_t (MINORBITS is 20) */
#define IOCOST_MAJOR_MAX	((1U << 12) - 1)
#define IOCOST_MINOR_MAX	((1U << 20) - 1)

/*
 * Longest line the bindings file takes.  sysfs hands a store at most a
 * page and truncates longer writes silently, so a long line could be
 * applied from its first page only; no valid line comes near this.
 */
#define IOCOST_BIND_LINE_MAX	256

/**
 * struct iocost_bind_req - one parsed line of the bindings file
 * @major: device major number
 * @minor: device minor number
 * @linear: true for "model=linear" (restore the builtin model)
 * @shadow: "mode=shadow": the model prices, the builtin's price is charged
 * @name: the model name when !@linear, NUL-terminated
 */
struct iocost_bind_req {
	u32 major;
	u32 minor;
	bool linear;
	bool shadow;
	char name[IOCOST_MODEL_NAME_LEN];
};

bool iocost_name_valid(const char *name, size_t size);
int iocost_parse_devt(const char *buf, size_t len, size_t *pos, u32 *major,
		      u32 *minor);
int iocost_parse_bind(const char *buf, size_t len, struct iocost_bind_req *req);

#endif /* _IOCOST_PARSE_H */
