// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - iocostctl load and unload
 *
 * load opens a BPF object with libbpf, registers every iocost_model_ops
 * map in it and pins each link at PIN_DIR/NAME, through
 * tools/lib/model_load.c (the skeleton loaders' path too); unload removes
 * the pin and waits until the module has let the model go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>
#include "common.h"

#define BPFFS		"/sys/fs/bpf"
#define MAX_MODELS	8	/* iocost_model_ops maps in one object */
#define UNLOAD_WAIT_MS	5000

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN && !debug)
		return 0;
	return vfprintf(stderr, fmt, ap);
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
	return model_name_ok(name) && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* the models of one object, and where they are pinned */
struct load {
	struct model_map m[MAX_MODELS];
	char name[MAX_MODELS][IOCOST_MODEL_NAME_LEN];
	char pin[MAX_MODELS][PATH_MAX];
	int n;
};

/*
 * Find the iocost_model_ops maps of @obj, apply --name, check the names
 * and where they will be pinned.  0 or the exit status.
 */
static int load_prepare(struct bpf_object *obj, const char *path,
			const char *newname, struct load *l)
{
	int n, i;

	n = model_find(obj, l->m, MAX_MODELS);
	if (n == -E2BIG)
		return fail(path, E2BIG, "more than 8 models in one object",
			    "load");
	if (n <= 0)
		return fail(path, EINVAL,
			    "no struct_ops map of type " IOCOST_MODEL_TYPE
			    " in it: a model defines SEC(\".struct_ops.link\") struct "
			    IOCOST_MODEL_TYPE " VAR = { ... }", "load");
	if (newname && n > 1)
		return usage_error("load", "--name: %s holds %d models; it can only rename one",
				   path, n);
	for (i = 0; i < n; i++) {
		struct model_map *m = &l->m[i];
		const char *var = bpf_map__name(m->map);

		if (model_ops(obj, m))
			return fail(path, EINVAL,
				    "its struct " IOCOST_MODEL_TYPE
				    " is not the one of include/iocost_model.h",
				    "load: struct_ops map %s", var);
		if (newname)
			model_set_name(m, newname);
		if (strnlen(m->ops->name, sizeof(m->ops->name)) ==
		    sizeof(m->ops->name))
			return fail(path, EINVAL, "its name is not NUL-terminated",
				    "load: struct_ops map %s", var);
		memcpy(l->name[i], m->ops->name, sizeof(l->name[i]));
		if (!pin_name_ok(l->name[i]))
			return fail(path, EINVAL,
				    "model names are 1-15 printable characters without blanks or '/', not linear",
				    "load: struct_ops map %s: model name \"%s\"",
				    var, l->name[i]);
		model_pin_path(m, l->pin[i], sizeof(l->pin[i]));
		if (model_want_link(m))
			return fail(path, EINVAL, "", "load: struct_ops map %s: set BPF_F_LINK",
				    var);
	}
	l->n = n;
	return 0;
}

/* pins and the pin directory, before anything is loaded */
static int load_check_pins(const struct load *l)
{
	struct stat st;
	char what[64];
	int i, err;

	if (ensure_bpffs("load"))
		return 1;
	err = -model_pin_dir();
	if (err)
		return fail(PIN_DIR, err, NULL, "load: create the pin directory");
	for (i = 0; i < l->n; i++) {
		snprintf(what, sizeof(what), "load %s", l->name[i]);
		if (!lstat(l->pin[i], &st))
			return fail(l->pin[i], EEXIST,
				    "pinned already: iocostctl unload it first", "%s",
				    what);
		if (errno != ENOENT)
			return fail(l->pin[i], errno, NULL, "%s", what);
	}
	return 0;
}

int cmd_load(int argc, char **argv)
{
	const char *newname = NULL, *path;
	struct bpf_object *obj;
	struct load l;
	char hint[128];
	int ret, i, err;

	ret = command_options("load", argc, argv, NULL, NULL, &newname, NULL,
			      NULL, NULL, NULL);
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
	memset(&l, 0, sizeof(l));
	ret = load_prepare(obj, path, newname, &l) ?: load_check_pins(&l);
	if (ret)
		goto out;

	err = -bpf_object__load(obj);
	if (err) {
		const char *h =
			"the verifier or the kernel refused it: see the messages above and dmesg";

		if (err == EPERM || (err == EACCES && geteuid()))
			h = HINT_ROOT;
		ret = fail(path, err, h, "load %s", l.name[0]);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		err = -model_register(&l.m[i]);
		if (err) {
			if (err == EEXIST)
				snprintf(hint, sizeof(hint),
					 "a model named %s is already registered", l.name[i]);
			else
				snprintf(hint, sizeof(hint),
					 "the module refused it (no calc_cost? a bad name?): see dmesg");
			ret = fail(path, err, err == EPERM ? NULL : hint,
				   "load %s: register", l.name[i]);
			goto undo;
		}
		err = -model_pin(&l.m[i], l.pin[i]);
		if (err) {
			ret = fail(l.pin[i], err, NULL, "load %s: pin", l.name[i]);
			goto undo;
		}
	}
	for (i = 0; i < l.n; i++) {
		/* the pin keeps the link, and so the registration */
		model_release(&l.m[i]);
		printf("loaded %s (pinned at %s)\n", l.name[i], l.pin[i]);
	}
	goto out;
undo:
	/* unregister what this call registered */
	for (i = 0; i < l.n; i++)
		model_unregister(&l.m[i]);
out:
	bpf_object__close(obj);
	return ret;
}

int cmd_unload(int argc, char **argv)
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
			      NULL, NULL);
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
