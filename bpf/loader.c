// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - register one BPF cost model through its libbpf skeleton
 *
 * Built once per model (the Makefile passes -DSKEL=<skeleton name> and
 * -DSKEL_H=<its header>), in the style of sched_ext's scx_* loaders.  The
 * model's struct_ops variable is called iocost_ops in every model.
 *
 *   MODEL [--name NAME] [--pin PATH | --foreground]
 *
 * By default the struct_ops link is pinned at /sys/fs/bpf/iocost_bpf/NAME
 * and the loader exits: the model stays registered until the pin is
 * removed (rm PATH).  --foreground keeps it registered until SIGINT or
 * SIGTERM instead.  --name overrides the model name (at most 16 bytes are
 * copied, so a 16-character name arrives unterminated, as a test needs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include SKEL_H

typedef uint32_t u32;
typedef uint64_t u64;
typedef uint64_t sector_t;
#include "../include/iocost_model.h"

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define SKEL_FN(fn) XCAT(SKEL, XCAT(__, fn))
#define STR(x) #x
#define XSTR(x) STR(x)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int print_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--name NAME] [--pin PATH | --foreground]\n",
		prog);
	return 2;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s (errno=%s)\n", XSTR(SKEL), what,
		strerror(err), strerrorname_np(err) ? strerrorname_np(err) : "?");
	return 1;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *pin = NULL;
	char pinbuf[256];
	struct iocost_model_ops *ops;
	struct SKEL *skel;
	size_t size;
	struct bpf_link *link;
	int i, err, fg = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--pin") && i + 1 < argc)
			pin = argv[++i];
		else if (!strcmp(argv[i], "--foreground"))
			fg = 1;
		else
			return print_usage(argv[0]);
	}

	skel = SKEL_FN(open)();
	if (!skel)
		return fail("open", errno);
	/* the struct_ops map's initial value is the model's struct */
	ops = bpf_map__initial_value(skel->maps.iocost_ops, &size);
	if (!ops || size < sizeof(*ops))
		return fail("struct_ops map iocost_ops", EINVAL);
	if (name) {
		size_t n = strlen(name);

		memset(ops->name, 0, sizeof(ops->name));
		memcpy(ops->name, name, n < sizeof(ops->name) ? n : sizeof(ops->name));
	}
	err = SKEL_FN(load)(skel);
	if (err) {
		err = fail("load (verifier or init_member refused it)", -err);
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.iocost_ops);
	if (!link) {
		err = fail("register", errno);
		goto out;
	}
	if (fg) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		printf("%s: registered; Ctrl-C unregisters\n", XSTR(SKEL));
		fflush(stdout);
		while (!stop)
			pause();
		bpf_link__destroy(link);
		err = 0;
		goto out;
	}
	if (!pin) {
		mkdir("/sys/fs/bpf/iocost_bpf", 0700);
		snprintf(pinbuf, sizeof(pinbuf), "/sys/fs/bpf/iocost_bpf/%.16s",
			 ops->name);
		pin = pinbuf;
	}
	err = bpf_link__pin(link, pin);
	if (err) {
		err = fail(pin, -err);
		bpf_link__destroy(link);
		goto out;
	}
	printf("%s: registered, link pinned at %s\n", XSTR(SKEL), pin);
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
out:
	SKEL_FN(destroy)(skel);
	return err;
}
