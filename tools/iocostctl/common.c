// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - what the commands of iocostctl share (see common.h)
 *
 * Failures and usage errors, whole-file reads and writes, the lines of
 * the module's control files and of io.cost.qos, block device names and
 * the DEV operand.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/libbpf.h>
#include "common.h"

bool module_loaded(void)
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

int fail(const char *file, int err, const char *hint, const char *fmt, ...)
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

int usage_error(const char *cmd, const char *fmt, ...)
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

int need_module(const char *what)
{
	if (module_loaded())
		return 0;
	return fail(SYS_DIR, errno, errno == ENOENT ? HINT_MODULE : NULL, "%s",
		    what);
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "iocostctl: out of memory\n");
		exit(1);
	}
	return p;
}

char *read_file(const char *path)
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

int write_file(const char *path, const char *s)
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

static int parse_model(const char *l, void *o)
{
	return ctl_parse_model_line(l, o);
}

static int parse_binding(const char *l, void *o)
{
	return ctl_parse_binding_line(l, o);
}

static int parse_stats(const char *l, void *o)
{
	return ctl_parse_stats_line(l, o);
}

static int parse_qos(const char *l, void *o)
{
	return ctl_parse_qos_line(l, o);
}

static int parse_vrate(const char *l, void *o)
{
	struct ctl_vrate *v = o;

	return ctl_parse_iostat_vrate(l, &v->dev, &v->vrate);
}

/*
 * Parse every line of @path into an array of @size-byte entries (*@v, *@n).
 * The module's files must parse (@strict: a line that does not is an
 * error); a kernel file (io.cost.qos, io.stat) may be missing or hold
 * lines of another shape, which are skipped with a warning, or without
 * the key looked for (-ENOENT), skipped silently.  0 or 1 (reported).
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
		if (err == -ENOENT)
			continue;	/* io.stat: a device without iocost */
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

int read_models(const char *what, struct ctl_model **m, size_t *n)
{
	return read_lines(SYS_MODELS, what, parse_model, sizeof(**m),
			  (void **)m, n, true);
}

int read_bindings(const char *what, struct ctl_binding **b, size_t *n)
{
	return read_lines(SYS_BINDINGS, what, parse_binding, sizeof(**b),
			  (void **)b, n, true);
}

int read_stats(const char *what, struct ctl_stats **s, size_t *n)
{
	return read_lines(SYS_STATS, what, parse_stats, sizeof(**s),
			  (void **)s, n, true);
}

int read_qos(const char *what, struct ctl_qos **q, size_t *n)
{
	return read_lines(QOS_FILE, what, parse_qos, sizeof(**q),
			  (void **)q, n, false);
}

int read_vrates(const char *what, struct ctl_vrate **v, size_t *n)
{
	return read_lines(IOSTAT_FILE, what, parse_vrate, sizeof(**v),
			  (void **)v, n, false);
}

const struct ctl_model *find_model(const struct ctl_model *m, size_t n,
				   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

void devt_name(struct ctl_devt d, char *buf, size_t size)
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

const char *devt_label(struct ctl_devt d, char *buf, size_t size)
{
	char name[CTL_DISK_NAME_LEN];

	devt_name(d, name, sizeof(name));
	if (name[0])
		snprintf(buf, size, "%u:%u (%s)", d.major, d.minor, name);
	else
		snprintf(buf, size, "%u:%u", d.major, d.minor);
	return buf;
}

int resolve_dev(const char *arg, const char *what, struct ctl_devt *dev)
{
	char path[PATH_MAX], hint[64];
	struct stat st;
	int ret;

	ret = ctl_parse_devt(arg, dev);
	if (!ret)
		return 0;
	if (ret == -ERANGE) {
		snprintf(hint, sizeof(hint), "major <= %u, minor <= %u",
			 IOCOST_MAJOR_MAX, IOCOST_MINOR_MAX);
		return fail(NULL, ERANGE, hint, "%s: %s", what, arg);
	}
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

bool model_name_ok(const char *name)
{
	return iocost_name_valid(name, strlen(name) + 1);
}
