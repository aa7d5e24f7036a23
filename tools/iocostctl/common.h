/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the commands of iocostctl share (common.c, main.c)
 *
 * The files of the module and the kernel iocostctl reads, the messages
 * of failures and usage errors (one shape for all: "iocostctl: WHAT:
 * FILE: ERRNO TEXT (HINT)"), reading and writing whole files, the lines
 * of the module's files, and the DEV operand (MAJ:MIN, /dev node or
 * name).  Each command lives in its own file: load.c (load, unload),
 * bind.c (bind, unbind), status.c and top.c; main.c holds the command
 * table, the help texts and the option parser they all use.
 */
#ifndef _IOCOSTCTL_COMMON_H
#define _IOCOSTCTL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include "ctlparse.h"
#include "../lib/model_load.h"

/*
 * The kernel's __printf().  checkpatch flags a format attribute written
 * out anywhere, its definition included, so it goes through a macro.
 */
#ifndef __printf
#define __iocost_attr(x)	__attribute__(x)
#define __printf(a, b)		__iocost_attr((format(printf, a, b)))
#endif

#define SYS_DIR		"/sys/kernel/iocost_bpf"
#define SYS_MODELS	SYS_DIR "/models"
#define SYS_BINDINGS	SYS_DIR "/bindings"
#define SYS_STATS	SYS_DIR "/stats"
#define PIN_DIR		IOCOST_PIN_DIR
#define QOS_FILE	"/sys/fs/cgroup/io.cost.qos"
#define IOSTAT_FILE	"/sys/fs/cgroup/io.stat"

#define HINT_MODULE	"the iocost_bpf module is not loaded: modprobe iocost_bpf"
#define HINT_ROOT	"need root (CAP_SYS_ADMIN)"

/* -d: libbpf's debug messages too */
extern bool debug;

/* the commands, argv[0] their name */
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_bind(int argc, char **argv);
int cmd_unbind(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_top(int argc, char **argv);

/*
 * The options of command @cmd: -h/--help, plus --json (@json non-NULL),
 * --count (@count), --name (@name), --all and --dry-run (@all, @dry_run),
 * --mode MODE and --shadow (@mode: set only by them; two that disagree
 * are a usage error), --format FORMAT (@format; with @json, --json is
 * --format json, and two that disagree are a usage error).  Returns -1
 * to go on, else the exit status (help printed, or a usage error);
 * @argv's operands start at optind.
 */
int command_options(const char *cmd, int argc, char **argv, bool *json,
		    long *count, const char **name, bool *all, bool *dry_run,
		    enum ctl_mode *mode, enum ctl_format *format);

bool module_loaded(void);

/*
 * "iocostctl: WHAT: FILE: ERRNO TEXT (HINT)" on stderr, returns 1.  @file
 * may be NULL; @hint NULL picks the usual one (permissions, the module),
 * "" gives none.
 */
__printf(4, 5)
int fail(const char *file, int err, const char *hint, const char *fmt, ...);

/* a usage error of command @cmd (NULL: the global options): exit status 2 */
__printf(2, 3)
int usage_error(const char *cmd, const char *fmt, ...);

/* fail with the module hint unless /sys/kernel/iocost_bpf exists */
int need_module(const char *what);

/* realloc(), or exit on out of memory */
void *xrealloc(void *p, size_t size);

/* all of @path, NUL-terminated (free() it); NULL with errno set */
char *read_file(const char *path);

/* write @s to @path in one write(2); 0 or -errno */
int write_file(const char *path, const char *s);

/*
 * The lines of the module's files (every line must parse) and of the
 * root cgroup's io.cost.qos (may be missing; a line of another shape is
 * skipped with a warning) into an array (free() it): 0, or 1 (reported
 * as @what).
 */
int read_models(const char *what, struct ctl_model **m, size_t *n);
int read_bindings(const char *what, struct ctl_binding **b, size_t *n);
int read_stats(const char *what, struct ctl_stats **s, size_t *n);
int read_qos(const char *what, struct ctl_qos **q, size_t *n);

/* a device's cost.vrate in the root cgroup's io.stat (hundredths of a %) */
struct ctl_vrate {
	struct ctl_devt dev;
	u32 vrate;
};

/* the root cgroup's io.stat: the devices with a cost.vrate (iocost on) */
int read_vrates(const char *what, struct ctl_vrate **v, size_t *n);

const struct ctl_model *find_model(const struct ctl_model *m, size_t n,
				   const char *name);

/* the kernel's name of a block device ("vda"), or "" if it has none */
void devt_name(struct ctl_devt d, char *buf, size_t size);

/* "254:0 (vda)" or "254:0" */
const char *devt_label(struct ctl_devt d, char *buf, size_t size);

/*
 * DEV of the command line: MAJ:MIN, a block device node (/dev/vda) or a
 * block device's name (vda).  0 or 1 (reported as @what).
 */
int resolve_dev(const char *arg, const char *what, struct ctl_devt *dev);

/* a model name the module takes (src/parse.c's rule) */
bool model_name_ok(const char *name);

#endif /* _IOCOSTCTL_COMMON_H */
