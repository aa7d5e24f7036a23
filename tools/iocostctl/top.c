// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - iocostctl top: the iocost_ioc_tick trace event, live
 *
 * Enables the event in a private tracefs instance (instances/iocostctl.PID,
 * filtered to one device where the kernel can), reads its trace_pipe and
 * shows each period: a table refreshed in place on a terminal, one line
 * per tick otherwise, or one JSON object per tick (--json).  SIGINT,
 * SIGTERM and SIGHUP stop it cleanly, through a signalfd.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "common.h"

#define TICK_EVENT_DIR	"events/iocost_bpf/iocost_ioc_tick"
#define HINT_NO_EVENT	"the iocost_ioc_tick event is unavailable on this kernel: see dmesg"
#define MAX_TOP_ROWS	64	/* devices top shows on a terminal */

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
	int sigfd;			/* SIGINT, SIGTERM, SIGHUP: stop */
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

		printf("%-10s %10llu %10u %8.2f %5d %7u %7u  %s\n", k->dev,
		       k->period, k->period_us, ctl_vrate_pct(k->vrate), k->busy,
		       k->active, k->usage, ctl_tick_state(k->running));
	}
	if (!t->nrows)
		fprintf(stdout,
			"(waiting for a period to end: iocost must be enabled and busy on a device)\n");
	t->drawn = t->nrows + 2 + !t->nrows;
}

/* one tick as one line of JSON */
static void top_json(const struct ctl_tick *k)
{
	struct json_writer w;

	jsonw_init(&w, stdout);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "dev", k->dev);
	jsonw_uint_field(&w, "period", k->period);
	jsonw_uint_field(&w, "period_us", k->period_us);
	jsonw_uint_field(&w, "vrate", k->vrate);
	jsonw_float_field(&w, "vrate_pct", 2, ctl_vrate_pct(k->vrate));
	jsonw_int_field(&w, "busy", k->busy);
	jsonw_uint_field(&w, "active", k->active);
	jsonw_uint_field(&w, "usage_pct", k->usage);
	jsonw_int_field(&w, "running", k->running);
	jsonw_string_field(&w, "state", ctl_tick_state(k->running));
	if (k->has_ts)
		jsonw_float_field(&w, "ts", 6, k->ts);
	else
		jsonw_null_field(&w, "ts");
	jsonw_end_object(&w);
	putchar('\n');
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
		fprintf(stdout,
			"%s period=%llu period_us=%u vrate=%.2f%% busy=%d active=%u usage=%u%% state=%s\n",
			k->dev, k->period, k->period_us, ctl_vrate_pct(k->vrate),
			k->busy, k->active, k->usage, ctl_tick_state(k->running));
		break;
	case TOP_JSON:
		top_json(k);
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
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = t->sigfd, .events = POLLIN },
		};
		char *line, *nl;
		ssize_t n;

		if (poll(pfd, 2, 1000) < 0) {
			if (errno == EINTR)
				continue;
			return fail(pipe_path, errno, NULL, "top: poll");
		}
		if (pfd[1].revents)
			return 0;	/* a signal to stop */
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
}

int cmd_top(int argc, char **argv)
{
	char root[32], event[128], inst[128], path[256];
	char devname[CTL_DISK_NAME_LEN], filter[80];
	sigset_t sigs;
	struct top t;
	bool json = false;
	long count = 0;
	int ret, err, fd, i;

	memset(&t, 0, sizeof(t));
	t.sigfd = -1;
	ret = command_options("top", argc, argv, &json, &count, NULL, NULL, NULL,
			      NULL, NULL);
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

	/*
	 * A signal to stop is read in top_loop(), the instance then removed;
	 * blocked before the instance exists, so that none arriving right
	 * after it is made kills top with the instance left behind.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	t.sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (t.sigfd < 0)
		return fail(NULL, errno, "", "top: signalfd");

	top_reap_instances(root);
	snprintf(inst, sizeof(inst), "%s/instances/iocostctl.%d", root, (int)getpid());
	if (mkdir(inst, 0700)) {
		ret = fail(inst, errno, NULL, "top: create a tracefs instance");
		close(t.sigfd);
		return ret;
	}

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
	if (t.sigfd >= 0)
		close(t.sigfd);
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
