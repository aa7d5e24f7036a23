// SPDX-License-Identifier: GPL-2.0
/*
 * iocostctl - load, bind and watch iocost_bpf cost models
 *
 *   iocostctl load OBJ.bpf.o [--name NAME]
 *   iocostctl unload NAME
 *   iocostctl bind DEV MODEL [--shadow | --mode enforce|shadow]
 *   iocostctl unbind {DEV | --all [--dry-run]}
 *   iocostctl status [--json]
 *   iocostctl top [DEV] [--count N] [--json]
 *
 * load registers every iocost_model_ops struct_ops map of a BPF object
 * through libbpf and pins its link at /sys/fs/bpf/iocost_bpf/NAME, so the
 * model stays registered after iocostctl exits; unload removes that pin.
 * bind/unbind write one line to /sys/kernel/iocost_bpf/bindings (unbind
 * --all one per bound disk, pass after pass until none is left); bind
 * reads it back to check the disk's model and mode (enforce: the model's
 * prices are charged, shadow: the builtin's are, the model's are only
 * counted).  status
 * reads the module's control files and the root cgroup's io.cost.qos, and
 * top follows the iocost_ioc_tick trace event in a private tracefs
 * instance.  The parsing lives in ctlparse.c, unit-tested on the host.
 *
 * Exit status: 0 success, 1 failure, 2 usage error.  Every failure names
 * what failed, the file and the errno text, with an explanation where the
 * errno has a known meaning (README's "control files").  See iocostctl(8).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <linux/bpf.h>
#include <linux/magic.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef uint64_t sector_t;
#include "../../include/iocost_model.h"
#include "ctlparse.h"

#ifndef IOCOSTCTL_VERSION
#define IOCOSTCTL_VERSION "0.1.0"
#endif

#define SYS_DIR		"/sys/kernel/iocost_bpf"
#define SYS_MODELS	SYS_DIR "/models"
#define SYS_BINDINGS	SYS_DIR "/bindings"
#define SYS_STATS	SYS_DIR "/stats"
#define BPFFS		"/sys/fs/bpf"
#define PIN_DIR		BPFFS "/iocost_bpf"
#define QOS_FILE	"/sys/fs/cgroup/io.cost.qos"
#define MODEL_TYPE	"iocost_model_ops"
#define TICK_EVENT_DIR	"events/iocost_bpf/iocost_ioc_tick"

#define HINT_MODULE	"the iocost_bpf module is not loaded: modprobe iocost_bpf"
#define HINT_ROOT	"need root (CAP_SYS_ADMIN)"
#define HINT_NO_EVENT	"the iocost_ioc_tick event is unavailable on this kernel: see dmesg"

#define MAX_MODELS	8	/* iocost_model_ops maps in one object */
#define MAX_TOP_ROWS	64	/* devices top shows on a terminal */
#define UNLOAD_WAIT_MS	5000
#define UNBIND_PASSES	5	/* of unbind --all, racing with binds */

_Static_assert(sizeof(((struct iocost_model_ops *)0)->name) == CTL_NAME_LEN,
	       "ctlparse.h and include/iocost_model.h disagree on the name length");
_Static_assert(IOCOST_VTIME_PER_SEC == CTL_VTIME_PER_SEC,
	       "ctlparse.h and include/iocost_model.h disagree on VTIME_PER_SEC");

static bool debug;

/* ---- errors -------------------------------------------------------------- */

static bool module_loaded(void)
{
	struct stat st;

	return !stat(SYS_DIR, &st);
}

/* the usual explanation of @err on @file: permissions, the module */
static const char *default_hint(const char *file, int err)
{
	if (err == EACCES || err == EPERM)
		return HINT_ROOT;
	if (err == ENOENT && file && !strncmp(file, SYS_DIR, strlen(SYS_DIR)) &&
	    !module_loaded())
		return HINT_MODULE;
	return NULL;
}

/*
 * "iocostctl: WHAT: FILE: ERRNO TEXT (HINT)" on stderr, returns 1.  @file
 * may be NULL; @hint NULL picks default_hint(), "" gives none.
 */
static int __attribute__((format(printf, 4, 5)))
fail(const char *file, int err, const char *hint, const char *fmt, ...)
{
	char text[128];
	va_list ap;

	if (libbpf_strerror(err, text, sizeof(text)))
		snprintf(text, sizeof(text), "%s", strerror(err));
	fputs("iocostctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (file)
		fprintf(stderr, ": %s", file);
	fprintf(stderr, ": %s", text);
	if (!hint)
		hint = default_hint(file, err);
	if (*hint)
		fprintf(stderr, " (%s)", hint);
	fputc('\n', stderr);
	return 1;
}

/* the option getopt_long() just refused */
static const char *bad_option(char **argv, char *buf, size_t size)
{
	const char *arg = argv[optind - 1];

	if (!strncmp(arg, "--", 2))
		snprintf(buf, size, "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(buf, size, "-%c", optopt);
	return buf;
}

/* a usage error of command @cmd (NULL: the global options): exit status 2 */
static int __attribute__((format(printf, 2, 3)))
usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iocostctl: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'iocostctl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return 2;
}

/* fail with the module hint unless /sys/kernel/iocost_bpf exists */
static int need_module(const char *what)
{
	if (module_loaded())
		return 0;
	return fail(SYS_DIR, errno, errno == ENOENT ? HINT_MODULE : NULL, "%s",
		    what);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "iocostctl: out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- files --------------------------------------------------------------- */

/* all of @path, NUL-terminated (free() it); NULL with errno set */
static char *read_file(const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xrealloc(NULL, cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			free(buf);
			errno = err;
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* write @s to @path in one write(2); 0 or -errno */
static int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

typedef int (*line_parser)(const char *line, void *out);

static int parse_model(const char *l, void *o) { return ctl_parse_model_line(l, o); }
static int parse_binding(const char *l, void *o) { return ctl_parse_binding_line(l, o); }
static int parse_stats(const char *l, void *o) { return ctl_parse_stats_line(l, o); }
static int parse_qos(const char *l, void *o) { return ctl_parse_qos_line(l, o); }

/*
 * Parse every line of @path into an array of @size-byte entries (*@v, *@n).
 * The module's files must parse (@strict: a line that does not is an
 * error); a kernel file (io.cost.qos) may be missing or hold lines of
 * another shape, which are skipped with a warning.  0 or 1 (reported).
 */
static int read_lines(const char *path, const char *what, line_parser parse,
		      size_t size, void **v, size_t *n, bool strict)
{
	char *buf, *line, *save = NULL;
	void *tmp;
	int ret = 0;

	*v = NULL;
	*n = 0;
	buf = read_file(path);
	if (!buf) {
		if (!strict && errno == ENOENT)
			return 0;
		return fail(path, errno, NULL, "%s", what);
	}
	tmp = xrealloc(NULL, size);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int err = parse(line, tmp);

		if (err && strict) {
			ret = fail(path, -err,
				   "unexpected line: iocostctl and the module do not match",
				   "%s: \"%s\"", what, line);
			break;
		}
		if (err) {
			fprintf(stderr,
				"iocostctl: %s: %s: skipped a line of unknown shape: \"%s\"\n",
				what, path, line);
			continue;
		}
		*v = xrealloc(*v, (*n + 1) * size);
		memcpy((char *)*v + *n * size, tmp, size);
		(*n)++;
	}
	free(tmp);
	free(buf);
	return ret;
}

static int read_models(const char *what, struct ctl_model **m, size_t *n)
{
	return read_lines(SYS_MODELS, what, parse_model, sizeof(**m),
			  (void **)m, n, true);
}

static int read_bindings(const char *what, struct ctl_binding **b, size_t *n)
{
	return read_lines(SYS_BINDINGS, what, parse_binding, sizeof(**b),
			  (void **)b, n, true);
}

static const struct ctl_model *find_model(const struct ctl_model *m, size_t n,
					  const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

/* the kernel's name of a block device ("vda"), or "" if it has none */
static void devt_name(struct ctl_devt d, char *buf, size_t size)
{
	char path[64], link[PATH_MAX];
	const char *base;
	ssize_t n;
	size_t len;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", d.major, d.minor);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	len = strlen(base);
	if (len < size)
		memcpy(buf, base, len + 1);
}

/* "254:0 (vda)" or "254:0" */
static const char *devt_label(struct ctl_devt d, char *buf, size_t size)
{
	char name[CTL_DISK_NAME_LEN];

	devt_name(d, name, sizeof(name));
	if (name[0])
		snprintf(buf, size, "%u:%u (%s)", d.major, d.minor, name);
	else
		snprintf(buf, size, "%u:%u", d.major, d.minor);
	return buf;
}

/*
 * DEV of the command line: MAJ:MIN, a block device node (/dev/vda) or a
 * block device's name (vda).  0 or 1 (reported as @what).
 */
static int resolve_dev(const char *arg, const char *what, struct ctl_devt *dev)
{
	char path[PATH_MAX];
	struct stat st;
	int ret;

	ret = ctl_parse_devt(arg, dev);
	if (!ret)
		return 0;
	if (ret == -ERANGE)
		return fail(NULL, ERANGE,
			    "major <= 4095, minor <= 1048575", "%s: %s", what, arg);
	if (!strchr(arg, '/') && *arg && strcmp(arg, ".") && strcmp(arg, "..")) {
		char *s;

		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", arg);
		s = read_file(path);
		if (s) {
			ret = ctl_parse_devt(strtok(s, "\n") ?: "", dev);
			free(s);
			if (!ret)
				return 0;
		}
	}
	if (stat(arg, &st))
		return fail(arg, errno, "expected MAJ:MIN, a block device or its name",
			    "%s", what);
	if (!S_ISBLK(st.st_mode))
		return fail(arg, ENOTBLK, "", "%s", what);
	dev->major = major(st.st_rdev);
	dev->minor = minor(st.st_rdev);
	return 0;
}

/* ---- command line -------------------------------------------------------- */

static int command_help(const char *name);

/*
 * The options of command @cmd: -h/--help, plus --json (@json non-NULL),
 * --count (@count), --name (@name), --all and --dry-run (@all, @dry_run),
 * --mode MODE and --shadow (@mode: set only by them; two that disagree
 * are a usage error).  Returns -1 to go on, else the exit status (help
 * printed, or a usage error); @argv's operands start at optind.
 */
static int command_options(const char *cmd, int argc, char **argv, bool *json,
			   long *count, const char **name, bool *all,
			   bool *dry_run, enum ctl_mode *mode)
{
	static const struct option known[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "mode", required_argument, NULL, 'M' },
		{ "shadow", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[9];
	char short_opts[16] = ":h", opt[64];
	const char *mode_opt = NULL;	/* the option that set *@mode */
	enum ctl_mode m;
	int n = 0, c;

	opts[n++] = known[0];
	if (json) {
		opts[n++] = known[1];
		strcat(short_opts, "j");
	}
	if (count) {
		opts[n++] = known[2];
		strcat(short_opts, "c:");
	}
	if (name) {
		opts[n++] = known[3];
		strcat(short_opts, "n:");
	}
	if (all) {
		opts[n++] = known[4];
		strcat(short_opts, "a");
	}
	if (dry_run)
		opts[n++] = known[5];	/* no short option: -n is load's --name */
	if (mode) {
		opts[n++] = known[6];	/* long only, as --shadow */
		opts[n++] = known[7];
	}
	opts[n] = known[8];
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'h':
			return command_help(cmd);
		case 'j':
			*json = true;
			break;
		case 'c':
			errno = 0;
			*count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || *count <= 0)
				return usage_error(cmd, "--count: '%s' is not a positive number",
						   optarg);
			break;
		case 'n':
			*name = optarg;
			break;
		case 'a':
			*all = true;
			break;
		case 'D':
			*dry_run = true;
			break;
		case 'M':
		case 'S':
			if (c == 'S')
				m = CTL_MODE_SHADOW;
			else if (ctl_parse_mode(optarg, &m))
				return usage_error(cmd,
						   "--mode: unknown mode '%s': expected enforce or shadow",
						   optarg);
			if (mode_opt && m != *mode)
				return usage_error(cmd, "%s and %s%s contradict each other",
						   mode_opt, c == 'S' ? "--shadow" : "--mode ",
						   c == 'S' ? "" : optarg);
			*mode = m;
			mode_opt = c == 'S' ? "--shadow" : m == CTL_MODE_SHADOW ?
				   "--mode shadow" : "--mode enforce";
			break;
		case ':':
			return usage_error(cmd, "option '%s' needs an argument",
					   bad_option(argv, opt, sizeof(opt)));
		default:
			return usage_error(cmd, "unknown option '%s'",
					   bad_option(argv, opt, sizeof(opt)));
		}
	}
	return -1;
}

/* ---- load ---------------------------------------------------------------- */

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN && !debug)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* byte offset of member @member of struct @type_id, or -1 */
static int btf_member_offset(const struct btf *btf, __u32 type_id,
			     const char *member)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return (int)(btf_member_bit_offset(t, (__u32)i) / 8);
	return -1;
}

/* the struct_ops type of @map, or "" */
static const char *struct_ops_type(const struct btf *btf,
				   const struct bpf_map *map)
{
	const struct btf_type *t;

	if (!btf || bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
		return "";
	t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
	if (!t)
		return "";
	return btf__name_by_offset(btf, t->name_off) ?: "";
}

static int ensure_bpffs(const char *what)
{
	struct statfs sfs;

	if (!statfs(BPFFS, &sfs) && (unsigned long)sfs.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		return fail(BPFFS, errno, NULL, "%s: mount bpffs", what);
	return 0;
}

/* a model name that can be a file name under PIN_DIR */
static bool pin_name_ok(const char *name)
{
	return !ctl_model_name_valid(name) && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

struct model_load {
	struct bpf_map *map;
	struct iocost_model_ops *ops;
	char name[CTL_NAME_LEN];
	char pin[PATH_MAX];
	struct bpf_link *link;
};

/*
 * Find the iocost_model_ops maps of @obj, apply --name, check the names
 * and where they will be pinned.  0 or the exit status.
 */
static int load_prepare(struct bpf_object *obj, const char *path,
			const char *newname, struct model_load *m, int *nr)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	int n = 0, i;

	bpf_object__for_each_map(map, obj) {
		if (strcmp(struct_ops_type(btf, map), MODEL_TYPE))
			continue;
		if (n == MAX_MODELS)
			return fail(path, E2BIG, "more than 8 models in one object",
				    "load");
		memset(&m[n], 0, sizeof(m[n]));
		m[n++].map = map;
	}
	if (!n)
		return fail(path, EINVAL,
			    "no struct_ops map of type " MODEL_TYPE
			    " in it: a model defines SEC(\".struct_ops.link\") struct "
			    MODEL_TYPE " VAR = { ... }", "load");
	if (newname && n > 1)
		return usage_error("load", "--name: %s holds %d models; it can only rename one",
				   path, n);
	for (i = 0; i < n; i++) {
		const char *var = bpf_map__name(m[i].map);
		int off = btf_member_offset(btf, bpf_map__btf_value_type_id(m[i].map),
					    "name");
		size_t size = 0;
		__u32 flags;

		m[i].ops = bpf_map__initial_value(m[i].map, &size);
		if (!m[i].ops || size < sizeof(*m[i].ops) ||
		    off != (int)offsetof(struct iocost_model_ops, name))
			return fail(path, EINVAL,
				    "its struct " MODEL_TYPE
				    " is not the one of include/iocost_model.h",
				    "load: struct_ops map %s", var);
		if (newname) {
			memset(m[i].ops->name, 0, sizeof(m[i].ops->name));
			memcpy(m[i].ops->name, newname, strlen(newname));
		}
		if (strnlen(m[i].ops->name, sizeof(m[i].ops->name)) ==
		    sizeof(m[i].ops->name))
			return fail(path, EINVAL, "its name is not NUL-terminated",
				    "load: struct_ops map %s", var);
		memcpy(m[i].name, m[i].ops->name, sizeof(m[i].name));
		if (!pin_name_ok(m[i].name))
			return fail(path, EINVAL,
				    "model names are 1-15 printable characters without blanks or '/', not linear",
				    "load: struct_ops map %s: model name \"%s\"",
				    var, m[i].name);
		snprintf(m[i].pin, sizeof(m[i].pin), "%s/%s", PIN_DIR, m[i].name);
		/* a link is what keeps it registered; libbpf 1.4 only makes
		 * one for maps in .struct_ops.link, so ask for it explicitly
		 */
		flags = bpf_map__map_flags(m[i].map);
		if (!(flags & BPF_F_LINK) &&
		    bpf_map__set_map_flags(m[i].map, flags | BPF_F_LINK))
			return fail(path, EINVAL, "", "load: struct_ops map %s: set BPF_F_LINK",
				    var);
	}
	*nr = n;
	return 0;
}

/* pins and the pin directory, before anything is loaded */
static int load_check_pins(const struct model_load *m, int n)
{
	struct stat st;
	char what[64];
	int i;

	if (ensure_bpffs("load"))
		return 1;
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST)
		return fail(PIN_DIR, errno, NULL, "load: create the pin directory");
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "load %s", m[i].name);
		if (!lstat(m[i].pin, &st))
			return fail(m[i].pin, EEXIST,
				    "pinned already: iocostctl unload it first", "%s",
				    what);
		if (errno != ENOENT)
			return fail(m[i].pin, errno, NULL, "%s", what);
	}
	return 0;
}

static int cmd_load(int argc, char **argv)
{
	struct model_load m[MAX_MODELS];
	const char *newname = NULL, *path;
	struct bpf_object *obj;
	char hint[128];
	int ret, n = 0, i, err;

	ret = command_options("load", argc, argv, NULL, NULL, &newname, NULL,
			      NULL, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1)
		return usage_error("load", "expected one BPF object file");
	path = argv[optind];
	if (newname && !pin_name_ok(newname))
		return usage_error("load",
				   "--name '%s': model names are 1-15 printable characters without blanks or '/', not linear",
				   newname);
	if (need_module("load"))
		return 1;
	if (access(path, R_OK))
		return fail(path, errno, "", "load");

	libbpf_set_print(libbpf_print);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return fail(path, errno, "not a BPF object file that libbpf can open",
			    "load");
	ret = load_prepare(obj, path, newname, m, &n) ?: load_check_pins(m, n);
	if (ret)
		goto out;

	err = -bpf_object__load(obj);
	if (err) {
		const char *h =
			"the verifier or the kernel refused it: see the messages above and dmesg";

		if (err == EPERM || (err == EACCES && geteuid()))
			h = HINT_ROOT;
		ret = fail(path, err, h, "load %s", m[0].name);
		goto out;
	}
	for (i = 0; i < n; i++) {
		m[i].link = bpf_map__attach_struct_ops(m[i].map);
		if (!m[i].link) {
			err = errno;
			if (err == EEXIST)
				snprintf(hint, sizeof(hint),
					 "a model named %s is already registered", m[i].name);
			else
				snprintf(hint, sizeof(hint),
					 "the module refused it (no calc_cost? a bad name?): see dmesg");
			ret = fail(path, err, err == EPERM ? NULL : hint,
				   "load %s: register", m[i].name);
			goto undo;
		}
		err = -bpf_link__pin(m[i].link, m[i].pin);
		if (err) {
			ret = fail(m[i].pin, err, NULL, "load %s: pin", m[i].name);
			goto undo;
		}
	}
	for (i = 0; i < n; i++) {
		/* the pin keeps the link, and so the registration */
		bpf_link__disconnect(m[i].link);
		bpf_link__destroy(m[i].link);
		printf("loaded %s (pinned at %s)\n", m[i].name, m[i].pin);
	}
	goto out;
undo:
	/* unregister what this call registered */
	for (i = 0; i < n; i++) {
		if (!m[i].link)
			continue;
		if (bpf_link__pin_path(m[i].link))
			bpf_link__unpin(m[i].link);
		bpf_link__destroy(m[i].link);
	}
out:
	bpf_object__close(obj);
	return ret;
}

/* ---- unload -------------------------------------------------------------- */

static int cmd_unload(int argc, char **argv)
{
	struct ctl_model *models = NULL;
	struct ctl_binding *binds = NULL;
	char path[PATH_MAX], what[64], hint[160];
	const char *name;
	size_t nmodels = 0, nbinds = 0, i;
	struct stat st;
	bool reg;
	int ret, waited;

	ret = command_options("unload", argc, argv, NULL, NULL, NULL, NULL, NULL,
			      NULL);
	if (ret >= 0)
		return ret;
	ret = 0;
	if (argc - optind != 1)
		return usage_error("unload", "expected one model name");
	name = argv[optind];
	snprintf(what, sizeof(what), "unload %s", name);
	if (!pin_name_ok(name))
		return usage_error("unload", "'%s' is not a model name", name);
	if (need_module(what) || read_models(what, &models, &nmodels))
		return 1;
	reg = !!find_model(models, nmodels, name);
	snprintf(path, sizeof(path), "%s/%s", PIN_DIR, name);

	if (lstat(path, &st)) {
		int err = errno;

		if (err == ENOENT && reg)
			snprintf(hint, sizeof(hint),
				 "%s is registered, but not pinned by iocostctl: unregister it through the loader that registered it",
				 name);
		else if (err == ENOENT)
			snprintf(hint, sizeof(hint), "no model named %s is registered",
				 name);
		ret = fail(path, err, err == ENOENT ? hint : NULL, "%s", what);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = fail(path, EISDIR,
			   "a directory of links, as bpftool struct_ops register makes: rm -r it",
			   "%s", what);
		goto out;
	}
	if (unlink(path)) {
		ret = fail(path, errno, NULL, "%s", what);
		goto out;
	}
	/* the link is released, and the model unregistered, asynchronously */
	for (waited = 0; reg && waited < UNLOAD_WAIT_MS; waited += 50) {
		free(models);
		if (read_models(what, &models, &nmodels)) {
			ret = 1;
			goto out;
		}
		if (!find_model(models, nmodels, name))
			break;
		usleep(50 * 1000);
	}
	if (reg && waited >= UNLOAD_WAIT_MS) {
		ret = fail(SYS_MODELS, ETIMEDOUT,
			   "still registered 5 s after its pin was removed: does another pin or process hold its link?",
			   "%s", what);
		goto out;
	}
	printf("unloaded %s\n", name);
	if (read_bindings(what, &binds, &nbinds)) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < nbinds; i++) {
		char label[64];

		if (strcmp(binds[i].model, name))
			continue;
		fprintf(stdout,
			"%s is still bound to %s: it keeps pricing there until 'iocostctl unbind %u:%u'\n",
			name, devt_label(binds[i].dev, label, sizeof(label)),
			binds[i].dev.major, binds[i].dev.minor);
	}
out:
	free(models);
	free(binds);
	return ret;
}

/* ---- bind, unbind -------------------------------------------------------- */

/*
 * write "MAJ:MIN model=MODEL mode=MODE" (@model NULL: "MAJ:MIN
 * model=linear") to the bindings file in one write(2)
 */
static int write_binding(const char *what, struct ctl_devt dev,
			 const char *model, enum ctl_mode mode)
{
	char line[64], hint[160], label[64];
	const char *h;
	int err;

	err = ctl_format_bind_line(line, sizeof(line), dev, model, mode);
	if (err < 0)	/* the callers checked the name: not reached */
		return fail(NULL, -err, "", "%s: cannot form the bindings line", what);
	err = -write_file(SYS_BINDINGS, line);
	if (!err)
		return 0;
	if (err == ENOENT && !module_loaded())
		return fail(SYS_BINDINGS, err, HINT_MODULE, "%s", what);
	h = ctl_bind_explain(err, model, hint, sizeof(hint));
	if (err == ENODEV) {
		char path[80], name[CTL_DISK_NAME_LEN];
		struct stat st;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
			 dev.major, dev.minor);
		devt_name(dev, name, sizeof(name));
		if (!stat(path, &st))
			snprintf(hint, sizeof(hint),
				 "%s is a partition: bind its whole disk",
				 devt_label(dev, label, sizeof(label)));
		else if (!name[0])
			snprintf(hint, sizeof(hint), "no block device %u:%u",
				 dev.major, dev.minor);
	}
	return fail(SYS_BINDINGS, err, h ?: "", "%s", what);
}

/*
 * The operands of bind (DEV MODEL: @model non-NULL) and unbind (DEV), from
 * optind on (command_options() went first): DEV resolved into @dev, @what
 * set to "CMD MAJ:MIN[ MODEL]".  Returns -1 to go on, else the exit status.
 */
static int dev_operands(const char *cmd, int argc, char **argv,
			const char **model, enum ctl_mode mode,
			struct ctl_devt *dev, char *what, size_t size)
{
	const char *m = NULL, *sfx = mode == CTL_MODE_SHADOW ? " --shadow" : "";

	if (argc - optind != (model ? 2 : 1))
		return usage_error(cmd, model ? "expected DEV MODEL" : "expected DEV");
	if (model) {
		m = *model = argv[optind + 1];
		if (!strcmp(m, "linear"))
			return usage_error(cmd,
					   "linear is the builtin model: use 'iocostctl unbind DEV'");
		if (ctl_model_name_valid(m))
			return usage_error(cmd,
					   "'%s' is not a model name: 1-%d printable characters without blanks",
					   m, CTL_NAME_LEN - 1);
	}
	snprintf(what, size, "%s %s%s%s%s", cmd, argv[optind], m ? " " : "",
		 m ?: "", sfx);
	if (need_module(what) || resolve_dev(argv[optind], what, dev))
		return 1;
	snprintf(what, size, "%s %u:%u%s%s%s", cmd, dev->major, dev->minor,
		 m ? " " : "", m ?: "", sfx);
	return -1;
}

static const struct ctl_binding *find_binding(const struct ctl_binding *b,
					      size_t n, struct ctl_devt dev)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i].dev.major == dev.major && b[i].dev.minor == dev.minor)
			return &b[i];
	return NULL;
}

static int cmd_bind(int argc, char **argv)
{
	enum ctl_mode mode = CTL_MODE_ENFORCE;
	struct ctl_binding *binds = NULL;
	const struct ctl_binding *b;
	struct ctl_devt dev;
	char what[128], label[64];
	const char *model;
	size_t n = 0;
	int ret;

	ret = command_options("bind", argc, argv, NULL, NULL, NULL, NULL, NULL,
			      &mode);
	if (ret >= 0)
		return ret;
	ret = dev_operands("bind", argc, argv, &model, mode, &dev, what,
			   sizeof(what));
	if (ret >= 0)
		return ret;
	ret = 0;
	/* a module whose readback iocostctl cannot parse: refused unwritten */
	if (read_bindings(what, &binds, &n))
		return 1;
	free(binds);
	binds = NULL;
	if (write_binding(what, dev, model, mode))
		return 1;
	devt_label(dev, label, sizeof(label));
	/* what the module made of it */
	if (read_bindings(what, &binds, &n))
		return 1;
	b = find_binding(binds, n, dev);
	if (!b || strcmp(b->model, model) || b->mode != mode) {
		fprintf(stderr,
			"iocostctl: %s: %s: the write succeeded, but %s reads back %s%s%s%s (another bind raced, or the module ignored mode=)\n",
			what, SYS_BINDINGS, label, b ? "model=" : "as not bound",
			b ? b->model : "", b ? " mode=" : "",
			b ? ctl_mode_name(b->mode) : "");
		ret = 1;
	} else if (mode == CTL_MODE_SHADOW) {
		fprintf(stdout,
			"bound %s to %s in shadow mode: the builtin's prices are charged, the model's only counted\n",
			label, model);
	} else {
		printf("bound %s to %s\n", label, model);
	}
	free(binds);
	return ret;
}

/* print what a merge of unbind --all found: disks gone, disks refused */
static void unbind_all_news(struct ctl_unbind_disk *d, size_t nd)
{
	char label[64], hint[160];
	size_t i;

	for (i = 0; i < nd; i++) {
		if (!d[i].news)
			continue;
		d[i].news = 0;
		devt_label(d[i].dev, label, sizeof(label));
		if (d[i].state == CTL_UNBIND_GONE)
			printf("%s went away: its binding to %s is dropped\n", label,
			       d[i].model);
		else
			fail(SYS_BINDINGS, d[i].err,
			     ctl_unbind_explain(d[i].err, UNBIND_PASSES, hint,
						sizeof(hint)),
			     "unbind --all: %s from %s", label, d[i].model);
	}
}

/*
 * unbind --all: every bound disk back to linear, whatever its model and
 * whether that is still registered.  A pass reads the bindings and writes
 * linear for every disk in them; passes go on until a read shows none
 * left (a bind may race with them), at most UNBIND_PASSES.  A disk that
 * went away is no failure; every other refusal is reported with its
 * errno and not retried.
 */
static int unbind_all(bool dry_run)
{
	const char *what = dry_run ? "unbind --all --dry-run" : "unbind --all";
	struct ctl_unbind_disk *d = NULL, *u;
	struct ctl_binding *binds = NULL;
	size_t nd = 0, nb = 0, todo, failed = 0, i;
	char line[64], label[64], hint[160];
	unsigned int pass;
	int ret = 0, err;

	if (!module_loaded()) {
		if (errno != ENOENT)
			return fail(SYS_DIR, errno, NULL, "%s", what);
		printf("nothing was bound: the iocost_bpf module is not loaded\n");
		return 0;
	}
	for (pass = 0;; pass++) {
		/* the module can only go once nothing is bound */
		if (pass && !module_loaded() && errno == ENOENT) {
			nb = 0;
		} else if (read_bindings(what, &binds, &nb)) {
			ret = 1;
			goto out;
		}
		d = xrealloc(d, (nd + nb + 1) * sizeof(*d));
		todo = ctl_unbind_merge(d, &nd, binds, nb);
		free(binds);
		binds = NULL;
		unbind_all_news(d, nd);
		if (!todo || dry_run || pass == UNBIND_PASSES)
			break;
		for (i = 0; i < nd; i++) {
			u = &d[i];
			if (u->state != CTL_UNBIND_TODO)
				continue;
			devt_label(u->dev, label, sizeof(label));
			/* a device number read back is always in range */
			if (ctl_format_bind_line(line, sizeof(line), u->dev, NULL,
						 CTL_MODE_ENFORCE) < 0)
				err = EINVAL;
			else
				err = -write_file(SYS_BINDINGS, line);
			ctl_unbind_result(u, err);
			if (!err)
				printf("unbound %s from %s: back to the builtin linear model\n",
				       label, u->model);
			else if (err != ENODEV)	/* gone, or not: the next read says */
				fail(SYS_BINDINGS, err,
				     ctl_unbind_explain(err, UNBIND_PASSES, hint,
							sizeof(hint)),
				     "%s: %s from %s", what, label, u->model);
		}
	}
	for (i = 0; i < nd; i++) {
		u = &d[i];
		if (u->state != CTL_UNBIND_TODO)
			continue;
		devt_label(u->dev, label, sizeof(label));
		if (dry_run) {
			printf("would unbind %s from %s\n", label, u->model);
			continue;
		}
		/* bound again after every pass */
		ctl_unbind_result(u, EBUSY);
		fail(SYS_BINDINGS, EBUSY,
		     ctl_unbind_explain(EBUSY, UNBIND_PASSES, hint, sizeof(hint)),
		     "%s: %s from %s", what, label, u->model);
	}
	for (i = 0; i < nd; i++)
		failed += d[i].state == CTL_UNBIND_FAILED;
	if (!nd)
		printf("nothing was bound: every disk uses the builtin linear model\n");
	if (failed) {
		fprintf(stderr, "iocostctl: %s: %zu of %zu disks still bound\n",
			what, failed, nd);
		ret = 1;
	}
out:
	free(d);
	return ret;
}

static int cmd_unbind(int argc, char **argv)
{
	struct ctl_binding *binds = NULL;
	struct ctl_devt dev;
	char what[128], label[64];
	const char *was = NULL, *bad;
	bool all = false, dry_run = false;
	size_t n = 0, i;
	int ret;

	ret = command_options("unbind", argc, argv, NULL, NULL, NULL, &all,
			      &dry_run, NULL);
	if (ret >= 0)
		return ret;
	bad = ctl_unbind_usage(all, dry_run, argc - optind);
	if (bad)
		return usage_error("unbind", "%s", bad);
	if (all)
		return unbind_all(dry_run);
	ret = dev_operands("unbind", argc, argv, NULL, CTL_MODE_ENFORCE, &dev,
			   what, sizeof(what));
	if (ret >= 0)
		return ret;
	if (read_bindings(what, &binds, &n))
		return 1;
	for (i = 0; i < n; i++)
		if (binds[i].dev.major == dev.major && binds[i].dev.minor == dev.minor)
			was = binds[i].model;
	ret = write_binding(what, dev, NULL, CTL_MODE_ENFORCE);
	if (!ret && was)
		printf("unbound %s from %s: back to the builtin linear model\n",
		       devt_label(dev, label, sizeof(label)), was);
	else if (!ret)
		printf("%s was not bound: it uses the builtin linear model\n",
		       devt_label(dev, label, sizeof(label)));
	free(binds);
	return ret;
}

/* ---- status -------------------------------------------------------------- */

/* 1: PIN_DIR/NAME exists, 0: it does not, -1: cannot tell (permissions) */
static int pin_state(const char *name, char *path, size_t size)
{
	struct stat st;

	snprintf(path, size, "%s/%s", PIN_DIR, name);
	if (!lstat(path, &st))
		return 1;
	return errno == ENOENT ? 0 : -1;
}

struct dev_row {
	struct ctl_devt dev;
	char name[CTL_DISK_NAME_LEN];
	const struct ctl_qos *qos;
	const struct ctl_binding *bind;
	const struct ctl_stats *stats;
};

static struct dev_row *dev_row(struct dev_row **rows, size_t *n,
			       struct ctl_devt dev)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*rows)[i].dev.major == dev.major &&
		    (*rows)[i].dev.minor == dev.minor)
			return &(*rows)[i];
	*rows = xrealloc(*rows, (*n + 1) * sizeof(**rows));
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].dev = dev;
	devt_name(dev, (*rows)[*n].name, sizeof((*rows)[*n].name));
	return &(*rows)[(*n)++];
}

static int dev_row_cmp(const void *a, const void *b)
{
	const struct dev_row *x = a, *y = b;

	if (x->dev.major != y->dev.major)
		return x->dev.major < y->dev.major ? -1 : 1;
	if (x->dev.minor != y->dev.minor)
		return x->dev.minor < y->dev.minor ? -1 : 1;
	return 0;
}

static void json_str(const char *s)
{
	size_t n = ctl_json_str(NULL, 0, s);
	char *buf = xrealloc(NULL, n + 1);

	ctl_json_str(buf, n + 1, s);
	fputs(buf, stdout);
	free(buf);
}

static const char *json_bool(int v)
{
	return v ? "true" : "false";
}

static void status_json(const struct ctl_model *models, size_t nmodels,
			const struct dev_row *rows, size_t nrows)
{
	char pin[PATH_MAX];
	size_t i;

	printf("{\"schema\":\"iocostctl.status/1\",\"models\":[");
	for (i = 0; i < nmodels; i++) {
		int p = pin_state(models[i].name, pin, sizeof(pin));

		printf("%s{\"name\":", i ? "," : "");
		json_str(models[i].name);
		printf(",\"bindings\":%u,\"pinned\":%s,\"pin\":", models[i].bindings,
		       p < 0 ? "null" : json_bool(p));
		if (p > 0)
			json_str(pin);
		else
			fputs("null", stdout);
		putchar('}');
	}
	printf("],\"devices\":[");
	for (i = 0; i < nrows; i++) {
		const struct dev_row *r = &rows[i];
		const struct ctl_qos *q = r->qos;
		const struct ctl_stats *s = r->stats;
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", r->dev.major, r->dev.minor);
		printf("%s{\"dev\":\"%s\",\"major\":%u,\"minor\":%u,\"name\":",
		       i ? "," : "", dev, r->dev.major, r->dev.minor);
		if (r->name[0])
			json_str(r->name);
		else
			fputs("null", stdout);
		printf(",\"model\":");
		json_str(r->bind ? r->bind->model : "linear");
		printf(",\"bound\":%s,\"mode\":", json_bool(!!r->bind));
		if (r->bind)
			printf("\"%s\"", ctl_mode_name(r->bind->mode));
		else
			fputs("null", stdout);
		printf(",\"iocost\":");
		if (!q) {
			fputs("null", stdout);
		} else {
			printf("{\"enable\":%s,\"ctrl\":", json_bool(q->enable));
			json_str(q->ctrl);
			if (q->has_params)
				printf(",\"rpct\":%.2f,\"rlat\":%" PRIu64
				       ",\"wpct\":%.2f,\"wlat\":%" PRIu64
				       ",\"min\":%.2f,\"max\":%.2f}",
				       q->rpct, q->rlat, q->wpct, q->wlat, q->min, q->max);
			else
				fprintf(stdout,
					",\"rpct\":null,\"rlat\":null,\"wpct\":null,\"wlat\":null,\"min\":null,\"max\":null}");
		}
		printf(",\"stats\":");
		if (!s) {
			fputs("null", stdout);
		} else {
			size_t len = ctl_stats_json(NULL, 0, s);
			char *buf = xrealloc(NULL, len + 1);

			ctl_stats_json(buf, len + 1, s);
			fputs(buf, stdout);
			free(buf);
		}
		putchar('}');
	}
	printf("]}\n");
}

/*
 * A shadow binding's comparison: the builtin's sum (what was charged),
 * the model's (what enforcing would charge), their ratio, and the
 * histogram of the per-IO ratios under its bucket labels.
 */
static void status_shadow(const struct ctl_stats *s)
{
	char label[64], ratio[32];
	double r;
	unsigned int i;

	if (ctl_shadow_ratio(s, &r))
		snprintf(ratio, sizeof(ratio), "- (builtin 0)");
	else
		snprintf(ratio, sizeof(ratio), "%.3f", r);
	printf("\nshadow %s %s: builtin %.6f s (charged), model %.6f s, model/builtin %s\n",
	       devt_label(s->dev, label, sizeof(label)), s->model,
	       ctl_vtime_us(s->builtin) / 1e6, ctl_vtime_us(s->vtime) / 1e6, ratio);
	printf("  %-10s", "IO RATIO");
	for (i = 0; i < CTL_HIST_BUCKETS; i++)
		printf(" %10s", ctl_hist_label(i));
	printf("\n  %-10s", "IOS");
	for (i = 0; i < CTL_HIST_BUCKETS; i++)
		printf(" %10" PRIu64, s->hist[i]);
	putchar('\n');
}

/*
 * On kernels hooked through the IPA-SRA clone: the bios the builtin priced
 * instead of the model, by reason, and while the registers were learned.
 */
static void status_clone(const struct ctl_stats *s)
{
	unsigned int i;

	printf("\nclone %u:%u: left to the builtin:", s->dev.major, s->dev.minor);
	for (i = 0; i < CTL_NR_FALLBACK; i++)
		printf(" %s %" PRIu64 ",", ctl_fallback_names[i], s->fallback[i]);
	printf(" learning %" PRIu64 "\n", s->learning);
}

static void status_text(const struct ctl_model *models, size_t nmodels,
			const struct dev_row *rows, size_t nrows)
{
	char pin[PATH_MAX];
	size_t i;

	if (!nmodels) {
		printf("no models registered\n");
	} else {
		printf("%-15s  %8s  %s\n", "MODEL", "BINDINGS", "PINNED");
		for (i = 0; i < nmodels; i++) {
			int p = pin_state(models[i].name, pin, sizeof(pin));

			printf("%-15s  %8u  %s\n", models[i].name, models[i].bindings,
			       p > 0 ? pin : p == 0 ? "no (registered by another loader)" :
			       "? (need root to look into " PIN_DIR ")");
		}
	}
	putchar('\n');
	if (!nrows) {
		printf("no device has iocost configured or a model bound\n");
		return;
	}
	printf("%-12s  %-8s  %-6s  %10s  %8s  %8s  %6s  %7s  %12s  %-7s  %s\n",
	       "DEVICE", "NAME", "IOCOST", "CHARGES", "MERGES", "NODATA", "ZERO",
	       "CLAMPED", "VTIME_S", "MODE", "MODEL");
	for (i = 0; i < nrows; i++) {
		const struct dev_row *r = &rows[i];
		const struct ctl_stats *s = r->stats;
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", r->dev.major, r->dev.minor);
		printf("%-12s  %-8s  %-6s  ", dev, r->name[0] ? r->name : "-",
		       !r->qos ? "-" : r->qos->enable ? "on" : "off");
		if (s)
			printf("%10" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "  %6" PRIu64
			       "  %7" PRIu64 "  %12.6f  ", s->charges, s->merges,
			       s->nodata, s->zero, s->clamped,
			       ctl_vtime_us(s->vtime) / 1e6);
		else
			printf("%10s  %8s  %8s  %6s  %7s  %12s  ", "-", "-", "-", "-",
			       "-", "-");
		printf("%-7s  %s%s\n", r->bind ? ctl_mode_name(r->bind->mode) : "-",
		       r->bind ? r->bind->model : "linear",
		       s && !s->registered ? " (unregistered)" : "");
	}
	for (i = 0; i < nrows; i++)
		if (rows[i].stats && rows[i].stats->has_clone)
			status_clone(rows[i].stats);
	for (i = 0; i < nrows; i++)
		if (rows[i].stats && rows[i].stats->mode == CTL_MODE_SHADOW)
			status_shadow(rows[i].stats);
}

static int cmd_status(int argc, char **argv)
{
	struct ctl_model *models = NULL;
	struct ctl_binding *binds = NULL;
	struct ctl_stats *stats = NULL;
	struct ctl_qos *qos = NULL;
	struct dev_row *rows = NULL;
	size_t nmodels = 0, nbinds = 0, nstats = 0, nqos = 0, nrows = 0, i;
	bool json = false;
	int ret;

	ret = command_options("status", argc, argv, &json, NULL, NULL, NULL,
			      NULL, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind)
		return usage_error("status", "unexpected argument '%s'", argv[optind]);
	ret = need_module("status") ?: read_models("status", &models, &nmodels) ?:
	      read_bindings("status", &binds, &nbinds) ?:
	      read_lines(SYS_STATS, "status", parse_stats, sizeof(*stats),
			 (void **)&stats, &nstats, true) ?:
	      read_lines(QOS_FILE, "status", parse_qos, sizeof(*qos),
			 (void **)&qos, &nqos, false);
	if (ret)
		goto out;

	for (i = 0; i < nqos; i++)
		dev_row(&rows, &nrows, qos[i].dev)->qos = &qos[i];
	for (i = 0; i < nbinds; i++)
		dev_row(&rows, &nrows, binds[i].dev)->bind = &binds[i];
	for (i = 0; i < nstats; i++)
		dev_row(&rows, &nrows, stats[i].dev)->stats = &stats[i];
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), dev_row_cmp);
	if (json)
		status_json(models, nmodels, rows, nrows);
	else
		status_text(models, nmodels, rows, nrows);
	if (fflush(stdout))
		ret = fail("stdout", errno, "", "status");
out:
	free(rows);
	free(models);
	free(binds);
	free(stats);
	free(qos);
	return ret;
}

/* ---- top ----------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* where tracefs is (mounting it if nobody has); 0 or -errno */
static int find_tracefs(char *root, size_t size)
{
	static const char *const where[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	struct statfs sfs;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		if (!statfs(where[i], &sfs) &&
		    (unsigned long)sfs.f_type == TRACEFS_MAGIC) {
			snprintf(root, size, "%s", where[i]);
			return 0;
		}
	}
	if (mount("tracefs", where[0], "tracefs", 0, NULL))
		return -errno;
	snprintf(root, size, "%s", where[0]);
	return 0;
}

enum top_mode { TOP_TERMINAL, TOP_LINES, TOP_JSON };

struct top {
	enum top_mode mode;
	const char *dev;		/* only this device, or NULL */
	long count;			/* stop after this many ticks, or 0 */
	long shown;
	struct ctl_tick rows[MAX_TOP_ROWS];
	int nrows;
	int drawn;			/* terminal lines of the last refresh */
};

static void top_draw(struct top *t)
{
	int i;

	if (t->drawn)
		printf("\033[%dA\033[J", t->drawn);
	printf("iocost_ioc_tick%s%s: the last period of each device (Ctrl-C quits)\n",
	       t->dev ? " on " : "", t->dev ? t->dev : "");
	printf("%-10s %10s %10s %8s %5s %7s %7s  %s\n", "DEV", "PERIOD",
	       "PERIOD_US", "VRATE%", "BUSY", "ACTIVE", "USAGE%", "STATE");
	for (i = 0; i < t->nrows; i++) {
		const struct ctl_tick *k = &t->rows[i];

		printf("%-10s %10" PRIu64 " %10u %8.2f %5d %7u %7u  %s\n", k->dev,
		       k->period, k->period_us, ctl_vrate_pct(k->vrate), k->busy,
		       k->active, k->usage, ctl_tick_state(k->running));
	}
	if (!t->nrows)
		fprintf(stdout,
			"(waiting for a period to end: iocost must be enabled and busy on a device)\n");
	t->drawn = t->nrows + 2 + !t->nrows;
}

/* show one tick; false once stdout is gone */
static bool top_show(struct top *t, const struct ctl_tick *k)
{
	int i;

	switch (t->mode) {
	case TOP_TERMINAL:
		for (i = 0; i < t->nrows; i++)
			if (!strcmp(t->rows[i].dev, k->dev))
				break;
		if (i == t->nrows && t->nrows < MAX_TOP_ROWS) {
			/* keep the rows sorted by device name */
			for (i = t->nrows; i > 0 && strcmp(t->rows[i - 1].dev, k->dev) > 0; i--)
				t->rows[i] = t->rows[i - 1];
			t->nrows++;
		}
		if (i < MAX_TOP_ROWS)
			t->rows[i] = *k;
		top_draw(t);
		break;
	case TOP_LINES:
		printf("%s period=%" PRIu64
		       " period_us=%u vrate=%.2f%% busy=%d active=%u usage=%u%% state=%s\n",
		       k->dev, k->period, k->period_us, ctl_vrate_pct(k->vrate),
		       k->busy, k->active, k->usage, ctl_tick_state(k->running));
		break;
	case TOP_JSON:
		printf("{\"dev\":");
		json_str(k->dev);
		printf(",\"period\":%" PRIu64 ",\"period_us\":%u,\"vrate\":%" PRIu64
		       ",\"vrate_pct\":%.2f,\"busy\":%d,\"active\":%u,\"usage_pct\":%u,\"running\":%d,\"state\":\"%s\",\"ts\":",
		       k->period, k->period_us, k->vrate, ctl_vrate_pct(k->vrate),
		       k->busy, k->active, k->usage, k->running,
		       ctl_tick_state(k->running));
		if (k->has_ts)
			printf("%.6f}\n", k->ts);
		else
			printf("null}\n");
		break;
	}
	return !fflush(stdout);
}

/* the device name top filters on, from a name, MAJ:MIN or /dev path */
static int top_dev_name(const char *arg, char *name, size_t size)
{
	struct ctl_devt dev;
	char path[PATH_MAX];
	struct stat st;

	if (!strchr(arg, '/') && !strchr(arg, ':')) {
		snprintf(path, sizeof(path), "/sys/class/block/%s", arg);
		if (stat(path, &st))
			return fail(path, errno, "no block device of that name",
				    "top %s", arg);
		snprintf(name, size, "%s", arg);
		return 0;
	}
	if (resolve_dev(arg, "top", &dev))
		return 1;
	devt_name(dev, name, size);
	if (!name[0])
		return fail(NULL, ENODEV, "", "top %s: no block device %u:%u", arg,
			    dev.major, dev.minor);
	return 0;
}

/* the tick event's format has a devname field a filter can test */
static bool tick_has_devname(const char event[128])
{
	char path[256], *fmt;
	bool yes;

	snprintf(path, sizeof(path), "%s/format", event);
	fmt = read_file(path);
	if (!fmt)
		return false;
	yes = !!strstr(fmt, " devname[");
	free(fmt);
	return yes;
}

/* remove the instances of earlier tops that could not clean up (SIGKILL) */
static void top_reap_instances(const char root[32])
{
	char dir[64], path[128];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, "iocostctl.", 10))
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX ||
		    !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%.40s", dir, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

/* read trace_pipe until a signal, --count ticks, or stdout going away */
static int top_loop(struct top *t, int fd, const char *pipe_path)
{
	static char buf[65536];
	size_t have = 0;

	if (t->mode == TOP_TERMINAL) {
		top_draw(t);
		fflush(stdout);
	}
	while (!stop_signal) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *line, *nl;
		ssize_t n;

		if (poll(&pfd, 1, 1000) < 0) {
			if (errno == EINTR)
				continue;
			return fail(pipe_path, errno, NULL, "top: poll");
		}
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return fail(pipe_path, errno, NULL, "top: read");
		}
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			struct ctl_tick k;

			*nl = '\0';
			if (!ctl_parse_tick(line, &k) &&
			    (!t->dev || !strcmp(k.dev, t->dev))) {
				if (!top_show(t, &k))
					return 0;	/* the reader went away */
				if (t->count && ++t->shown >= t->count)
					return 0;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: drop it */
	}
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	char root[32], event[128], inst[128], path[256];
	char devname[CTL_DISK_NAME_LEN], filter[80];
	struct sigaction sa;
	struct top t;
	bool json = false;
	long count = 0;
	int ret, err, fd, i;

	memset(&t, 0, sizeof(t));
	ret = command_options("top", argc, argv, &json, &count, NULL, NULL, NULL,
			      NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind > 1)
		return usage_error("top", "expected at most one DEV");
	if (argc - optind == 1) {
		if (top_dev_name(argv[optind], devname, sizeof(devname)))
			return 1;
		t.dev = devname;
	}
	t.count = count;
	t.mode = json ? TOP_JSON : isatty(STDOUT_FILENO) ? TOP_TERMINAL : TOP_LINES;

	err = -find_tracefs(root, sizeof(root));
	if (err)
		return fail("/sys/kernel/tracing", err, NULL, "top: tracefs");
	snprintf(event, sizeof(event), "%s/%s", root, TICK_EVENT_DIR);
	if (access(event, F_OK)) {
		err = errno;
		return fail(event, err,
			    err != ENOENT ? NULL : module_loaded() ? HINT_NO_EVENT :
			    HINT_MODULE, "top");
	}

	top_reap_instances(root);
	snprintf(inst, sizeof(inst), "%s/instances/iocostctl.%d", root, (int)getpid());
	if (mkdir(inst, 0700))
		return fail(inst, errno, NULL, "top: create a tracefs instance");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: wake poll() */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (t.dev && tick_has_devname(event)) {
		/* the kernel drops other devices' ticks; top checks again */
		snprintf(path, sizeof(path), "%s/%s/filter", inst, TICK_EVENT_DIR);
		snprintf(filter, sizeof(filter), "devname == \"%s\"", t.dev);
		if (!strpbrk(t.dev, "\"\\"))
			write_file(path, filter);
	}
	snprintf(path, sizeof(path), "%s/%s/enable", inst, TICK_EVENT_DIR);
	err = -write_file(path, "1");
	if (err) {
		/* ENODEV: the module could not attach the event on this kernel */
		ret = fail(path, err, err == ENODEV ? HINT_NO_EVENT : NULL,
			   "top: enable the event");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/trace_pipe", inst);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = fail(path, errno, NULL, "top");
	} else {
		ret = top_loop(&t, fd, path);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/%s/enable", inst, TICK_EVENT_DIR);
	write_file(path, "0");
out:
	/* rmdir fails with EBUSY while the instance is still in use */
	for (i = 0; rmdir(inst); i++) {
		if (errno != EBUSY || i == 100) {
			ret = fail(inst, errno, NULL, "top: remove the tracefs instance");
			break;
		}
		usleep(20 * 1000);
	}
	return ret;
}

/* ---- main ---------------------------------------------------------------- */

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *summary;
	const char *help;
};

static const struct command commands[] = {
	{ "load", cmd_load, "OBJ.bpf.o [--name NAME]", "register and pin a model",
	  "Register the iocost_model_ops struct_ops map(s) of a BPF object and pin\n"
	  "their links at " PIN_DIR "/NAME, so that the model stays\n"
	  "registered after iocostctl exits.\n\n"
	  "  -n, --name NAME  register the model under NAME instead of its own name\n"
	  "                   (1-15 printable characters without blanks, not linear)\n" },
	{ "unload", cmd_unload, "NAME", "unpin a loaded model",
	  "Remove the pin " PIN_DIR "/NAME and wait until the model\n"
	  "is unregistered.  Devices it is bound to keep pricing with it until\n"
	  "they are unbound.\n" },
	{ "bind", cmd_bind, "DEV MODEL [--shadow | --mode MODE]",
	  "price a disk's IO with a model",
	  "Price DEV's IO with MODEL.  DEV is MAJ:MIN, a block device node such as\n"
	  "/dev/vda, or a block device's name; a whole disk, not a partition.\n"
	  "Rebinding a bound disk replaces its model and mode, and resets its\n"
	  "statistics.\n\n"
	  "      --mode MODE  enforce (the default): charge the model's prices;\n"
	  "                   shadow: call the model for every bio but charge the\n"
	  "                   builtin's prices, and count how the two compare\n"
	  "                   (iocostctl status shows the histogram)\n"
	  "      --shadow     the same as --mode shadow\n" },
	{ "unbind", cmd_unbind, "{DEV | --all [--dry-run]}",
	  "back to the builtin linear model",
	  "Give DEV back to the builtin linear model (\"MAJ:MIN model=linear\").\n\n"
	  "  -a, --all      every bound disk, whatever its model, registered or not:\n"
	  "                 read the bindings, unbind each disk, and again until none\n"
	  "                 is left (at most 5 passes: a bind may race).  With the\n"
	  "                 last binding the module unhooks the kernel's pricing\n"
	  "                 function, so that something else (a livepatch) can take\n"
	  "                 it over.  A disk that went away is no failure; a disk it\n"
	  "                 cannot unbind is named with its error, exit status 1.\n"
	  "      --dry-run  with --all: list the disks it would unbind, change nothing\n" },
	{ "status", cmd_status, "[--json]", "models, bindings, statistics",
	  "Show the registered models, which of them are pinned, the bindings\n"
	  "and their modes, per-device statistics (for a shadow binding: the\n"
	  "builtin's sum, the model/builtin ratio and the histogram of per-IO\n"
	  "ratios) and each device's iocost state.\n\n"
	  "  -j, --json  one JSON object (schema in iocostctl(8))\n" },
	{ "top", cmd_top, "[DEV] [--count N] [--json]", "live per-period view",
	  "Follow the iocost_ioc_tick trace event: one line per controller period\n"
	  "and device (a table refreshed in place on a terminal).  DEV (a name,\n"
	  "MAJ:MIN or /dev path) limits it to one device.\n\n"
	  "  -c, --count N  stop after N ticks\n"
	  "  -j, --json     one JSON object per tick\n" },
};

#define NR_COMMANDS ARRAY_SIZE(commands)

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int command_help(const char *name)
{
	const struct command *c = find_command(name);

	printf("Usage: iocostctl %s %s\n\n%s", c->name, c->args, c->help);
	return 0;
}

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: iocostctl [-d] COMMAND [ARGS]\n"
		"       iocostctl {-h | --help | -V | --version}\n\n"
		"Load, bind and watch iocost_bpf cost models.\n\nCommands:\n");
	for (i = 0; i < NR_COMMANDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", commands[i].name,
			 commands[i].args);
		fprintf(f, "  %-39s  %s\n", head, commands[i].summary);
	}
	fprintf(f, "\nOptions:\n"
		"  -d, --debug    show libbpf's debug messages\n"
		"  -h, --help     this text; 'iocostctl COMMAND --help' for a command\n"
		"  -V, --version  the version\n\n"
		"Exit status: 0 success, 1 failure, 2 usage error.  See iocostctl(8).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "debug", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	char opt[64];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hVd", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_usage(stdout);
			return 0;
		case 'V':
			printf("iocostctl %s (libbpf %s)\n", IOCOSTCTL_VERSION,
			       libbpf_version_string());
			return 0;
		case 'd':
			debug = true;
			break;
		default:
			return usage_error(NULL, "unknown option '%s'",
					   bad_option(argv, opt, sizeof(opt)));
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return 2;
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[optind]);
	return cmd->fn(argc - optind, argv + optind);
}
