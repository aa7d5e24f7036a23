// SPDX-License-Identifier: GPL-2.0
/*
 * bind.c - iocostctl bind and unbind
 *
 * bind writes "MAJ:MIN model=MODEL mode=MODE" to the module's bindings
 * file and reads it back to check what the module made of it; unbind
 * writes "MAJ:MIN model=linear", and unbind --all does so for every bound
 * disk, pass after pass, until none is left (ctlparse.c's
 * ctl_unbind_merge() keeps the account).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common.h"

#define UNBIND_PASSES	5	/* of unbind --all, racing with binds */

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
		if (!model_name_ok(m))
			return usage_error(cmd,
					   "'%s' is not a model name: 1-%d printable characters without blanks",
					   m, IOCOST_MODEL_NAME_LEN - 1);
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

int cmd_bind(int argc, char **argv)
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
			      &mode, NULL);
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

int cmd_unbind(int argc, char **argv)
{
	struct ctl_binding *binds = NULL;
	struct ctl_devt dev;
	char what[128], label[64];
	const char *was = NULL, *bad;
	bool all = false, dry_run = false;
	size_t n = 0, i;
	int ret;

	ret = command_options("unbind", argc, argv, NULL, NULL, NULL, &all,
			      &dry_run, NULL, NULL);
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
