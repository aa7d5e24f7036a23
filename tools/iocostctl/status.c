// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - iocostctl status, as text, as JSON (--json) and as
 * OpenMetrics text (--format openmetrics)
 *
 * One row per device that has iocost configured, a binding or stats,
 * joined from the module's bindings and stats files and the root
 * cgroup's io.cost.qos; the registered models with their pins.  The JSON
 * (schema iocostctl.status/1, man/iocostctl.8) goes through json.c; the
 * OpenMetrics text through openmetrics.c, with the controller's vrate
 * from the root cgroup's io.stat (read for that format only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common.h"
#include "openmetrics.h"

/* 1: PIN_DIR/NAME exists, 0: it does not, -1: cannot tell (permissions) */
static int pin_state(const char *name, char *path, size_t size)
{
	struct stat st;

	snprintf(path, size, "%s/%s", PIN_DIR, name);
	if (!lstat(path, &st))
		return 1;
	return errno == ENOENT ? 0 : -1;
}

static struct ctl_dev_row *dev_row(struct ctl_dev_row **rows, size_t *n,
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
	const struct ctl_dev_row *x = a, *y = b;

	if (x->dev.major != y->dev.major)
		return x->dev.major < y->dev.major ? -1 : 1;
	if (x->dev.minor != y->dev.minor)
		return x->dev.minor < y->dev.minor ? -1 : 1;
	return 0;
}

/* a device's io.cost.qos as the value of "iocost" */
static void status_json_qos(struct json_writer *w, const struct ctl_qos *q)
{
	if (!q) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_bool_field(w, "enable", q->enable);
	jsonw_string_field(w, "ctrl", q->ctrl);
	if (q->has_params) {
		jsonw_float_field(w, "rpct", 2, q->rpct);
		jsonw_uint_field(w, "rlat", q->rlat);
		jsonw_float_field(w, "wpct", 2, q->wpct);
		jsonw_uint_field(w, "wlat", q->wlat);
		jsonw_float_field(w, "min", 2, q->min);
		jsonw_float_field(w, "max", 2, q->max);
	} else {
		jsonw_null_field(w, "rpct");
		jsonw_null_field(w, "rlat");
		jsonw_null_field(w, "wpct");
		jsonw_null_field(w, "wlat");
		jsonw_null_field(w, "min");
		jsonw_null_field(w, "max");
	}
	jsonw_end_object(w);
}

static void status_json(const struct ctl_model *models, size_t nmodels,
			const struct ctl_dev_row *rows, size_t nrows)
{
	struct json_writer w;
	char pin[PATH_MAX];
	size_t i;

	jsonw_init(&w, stdout);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "schema", "iocostctl.status/1");
	jsonw_name(&w, "models");
	jsonw_start_array(&w);
	for (i = 0; i < nmodels; i++) {
		int p = pin_state(models[i].name, pin, sizeof(pin));

		jsonw_start_object(&w);
		jsonw_string_field(&w, "name", models[i].name);
		jsonw_uint_field(&w, "bindings", models[i].bindings);
		if (p < 0)
			jsonw_null_field(&w, "pinned");
		else
			jsonw_bool_field(&w, "pinned", p);
		if (p > 0)
			jsonw_string_field(&w, "pin", pin);
		else
			jsonw_null_field(&w, "pin");
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_name(&w, "devices");
	jsonw_start_array(&w);
	for (i = 0; i < nrows; i++) {
		const struct ctl_dev_row *r = &rows[i];
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", r->dev.major, r->dev.minor);
		jsonw_start_object(&w);
		jsonw_string_field(&w, "dev", dev);
		jsonw_uint_field(&w, "major", r->dev.major);
		jsonw_uint_field(&w, "minor", r->dev.minor);
		if (r->name[0])
			jsonw_string_field(&w, "name", r->name);
		else
			jsonw_null_field(&w, "name");
		jsonw_string_field(&w, "model", r->bind ? r->bind->model : "linear");
		jsonw_bool_field(&w, "bound", r->bind);
		if (r->bind)
			jsonw_string_field(&w, "mode", ctl_mode_name(r->bind->mode));
		else
			jsonw_null_field(&w, "mode");
		jsonw_name(&w, "iocost");
		status_json_qos(&w, r->qos);
		jsonw_name(&w, "stats");
		if (r->stats)
			ctl_stats_json(&w, r->stats);
		else
			jsonw_null(&w);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	putchar('\n');
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
		printf(" %10llu", s->hist[i]);
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
		printf(" %s %llu,", ctl_fallback_names[i], s->fallback[i]);
	printf(" learning %llu\n", s->learning);
}

static void status_text(const struct ctl_model *models, size_t nmodels,
			const struct ctl_dev_row *rows, size_t nrows)
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
		const struct ctl_dev_row *r = &rows[i];
		const struct ctl_stats *s = r->stats;
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", r->dev.major, r->dev.minor);
		printf("%-12s  %-8s  %-6s  ", dev, r->name[0] ? r->name : "-",
		       !r->qos ? "-" : r->qos->enable ? "on" : "off");
		if (s)
			printf("%10llu  %8llu  %8llu  %6llu  %7llu  %12.6f  ",
			       s->charges, s->merges,
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

/* OpenMetrics text (openmetrics.c): all of it, or nothing and exit 1 */
static int status_openmetrics(const struct ctl_model *models, size_t nmodels,
			      const struct ctl_dev_row *rows, size_t nrows)
{
	struct ctl_om_input in = {
		.models = models, .nmodels = nmodels, .rows = rows, .nrows = nrows,
	};
	char pin[PATH_MAX], err[256];
	int *pinned, ret;
	size_t i;

	pinned = xrealloc(NULL, (nmodels ?: 1) * sizeof(*pinned));
	for (i = 0; i < nmodels; i++)
		pinned[i] = pin_state(models[i].name, pin, sizeof(pin));
	in.pinned = pinned;
	ret = ctl_openmetrics(stdout, &in, err, sizeof(err));
	free(pinned);
	if (ret)
		return fail(ret == -EIO ? "stdout" : NULL, -ret, "", "status: %s", err);
	return 0;
}

int cmd_status(int argc, char **argv)
{
	struct ctl_model *models = NULL;
	struct ctl_binding *binds = NULL;
	struct ctl_stats *stats = NULL;
	struct ctl_qos *qos = NULL;
	struct ctl_vrate *vrates = NULL;
	struct ctl_dev_row *rows = NULL;
	size_t nmodels = 0, nbinds = 0, nstats = 0, nqos = 0, nvrates = 0;
	size_t nrows = 0, i;
	enum ctl_format format = CTL_FORMAT_TEXT;
	bool json = false;
	int ret;

	ret = command_options("status", argc, argv, &json, NULL, NULL, NULL,
			      NULL, NULL, &format);
	if (ret >= 0)
		return ret;
	if (argc - optind)
		return usage_error("status", "unexpected argument '%s'", argv[optind]);
	ret = need_module("status") ?: read_models("status", &models, &nmodels) ?:
	      read_bindings("status", &binds, &nbinds) ?:
	      read_stats("status", &stats, &nstats) ?:
	      read_qos("status", &qos, &nqos) ?:
	      (format == CTL_FORMAT_OPENMETRICS ?
	       read_vrates("status", &vrates, &nvrates) : 0);
	if (ret)
		goto out;

	for (i = 0; i < nqos; i++)
		dev_row(&rows, &nrows, qos[i].dev)->qos = &qos[i];
	for (i = 0; i < nbinds; i++)
		dev_row(&rows, &nrows, binds[i].dev)->bind = &binds[i];
	for (i = 0; i < nstats; i++)
		dev_row(&rows, &nrows, stats[i].dev)->stats = &stats[i];
	for (i = 0; i < nvrates; i++) {
		struct ctl_dev_row *r = dev_row(&rows, &nrows, vrates[i].dev);

		r->has_vrate = 1;
		r->vrate = vrates[i].vrate;
	}
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), dev_row_cmp);
	if (format == CTL_FORMAT_OPENMETRICS) {
		ret = status_openmetrics(models, nmodels, rows, nrows);
		goto out;
	}
	if (format == CTL_FORMAT_JSON)
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
	free(vrates);
	return ret;
}
