// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - register one BPF cost model through its libbpf skeleton
 *
 * Built once per model (the Makefile passes -DSKEL=<skeleton name> and
 * -DSKEL_H=<its header>), in the style of sched_ext's scx_* loaders.  The
 * model's struct_ops variable is called iocost_ops in every model.  The
 * registering itself is tools/lib/model_load.c's, as for iocostctl load.
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
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include SKEL_H
#include "../tools/lib/model_load.h"

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define SKEL_FN(fn) XCAT(SKEL, XCAT(__, fn))
#define STR(x) #x
#define XSTR(x) STR(x)

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
	char pinbuf[256], ready[64];
	struct model_map m = { 0 };
	struct SKEL *skel;
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
	m.map = skel->maps.iocost_ops;
	if (model_ops(skel->obj, &m) || model_want_link(&m)) {
		err = fail("struct_ops map iocost_ops", EINVAL);
		goto out;
	}
	if (name)
		model_set_name(&m, name);
	err = SKEL_FN(load)(skel);
	if (err) {
		err = fail("load (verifier or init_member refused it)", -err);
		goto out;
	}
	err = model_register(&m);
	if (err) {
		err = fail("register", -err);
		goto out;
	}
	if (fg) {
		snprintf(ready, sizeof(ready), "%s: registered; Ctrl-C unregisters\n",
			 XSTR(SKEL));
		err = model_foreground(&m, 1, ready);
		if (err)
			err = fail("wait for SIGINT or SIGTERM", -err);
		goto out;
	}
	if (!pin) {
		model_pin_dir();
		model_pin_path(&m, pinbuf, sizeof(pinbuf));
		pin = pinbuf;
	}
	err = model_pin(&m, pin);
	if (err) {
		err = fail(pin, -err);
		model_unregister(&m);
		goto out;
	}
	printf("%s: registered, link pinned at %s\n", XSTR(SKEL), pin);
	model_release(&m);
out:
	SKEL_FN(destroy)(skel);
	return err;
}
