// SPDX-License-Identifier: GPL-2.0
/*
 * openmetrics.c - iocostctl status as OpenMetrics 1.0 text (openmetrics.h)
 *
 * One metric family after the other (OpenMetrics wants a family's samples
 * together), each with its # HELP and # TYPE lines and # UNIT where it has
 * one, then "# EOF".  Only the types counter and gauge: node_exporter's
 * textfile collector reads files with the Prometheus text parser, which
 * takes those two and reads # UNIT and # EOF as comments.  Counters are
 * named without "_total" in # TYPE and with it on their samples.
 *
 * The stats counters come from the module's list (src/iocost_stats.h),
 * expanded here as it is in ctlparse.c: a counter added there shows up
 * here as iocost_bpf_NAME_total.  Those that sum vtime are printed in
 * seconds (2^37 vtime = 1 s), as iocost_bpf_NAME_seconds_total.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "openmetrics.h"

#define PREFIX	"iocost_bpf_"

/* the HELP of the list's counters, and which of them sum vtime */
static const struct om_counter_doc {
	const char *name;
	int vtime;
	const char *help;
} counter_docs[] = {
	{ "charges", 0, "Bios the model priced." },
	{ "merges", 0, "Of the bios the model priced, merges." },
	{ "nodata", 0, "Of the bios the model priced, bios without data (flushes)." },
	{ "zero", 0, "Data bios the model priced at 0." },
	{ "clamped", 0, "Prices above 1 s of vtime, charged as 1 s." },
	{ "vtime", 1,
	  "Sum of the model's prices, 2^37 vtime = 1 s; in shadow mode not charged." },
	{ "builtin", 1,
	  "Shadow mode: sum of the builtin's prices (charged), 2^37 vtime = 1 s." },
	{ "learning", 0,
	  "IPA-SRA clone: bios the builtin priced while learning the registers." },
};

static const struct om_counter_doc *counter_doc(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counter_docs); i++)
		if (!strcmp(counter_docs[i].name, name))
			return &counter_docs[i];
	return NULL;
}

const char *ctl_om_counter_help(const char *name)
{
	const struct om_counter_doc *d = counter_doc(name);

	return d ? d->help : NULL;
}

int ctl_om_escape(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc = c == '\\' ? '\\' : c == '"' ? '"' : c == '\n' ? 'n' : 0;

		if (!esc && (c < 0x20 || c > 0x7e))
			return -EINVAL;
		if (n + (esc ? 2 : 1) >= size)
			return -ENOSPC;
		if (esc) {
			buf[n++] = '\\';
			buf[n++] = esc;
		} else {
			buf[n++] = (char)c;
		}
	}
	if (!size)
		return -ENOSPC;
	buf[n] = '\0';
	return 0;
}

/* the text being built, and the first error */
struct om {
	FILE *f;
	const struct ctl_om_input *in;
	char *err;
	size_t errsize;
	int ret;
};

static void om_error(struct om *o, const char *fmt, ...)
{
	va_list ap;

	if (o->ret)
		return;
	o->ret = -EINVAL;
	va_start(ap, fmt);
	vsnprintf(o->err, o->errsize, fmt, ap);
	va_end(ap);
}

static void om_meta(struct om *o, const char *family, const char *type,
		    const char *unit, const char *help)
{
	fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", family, help, family, type);
	if (unit)
		fprintf(o->f, "# UNIT %s %s\n", family, unit);
}

/* ",KEY=\"VALUE\"" (without the comma first) */
static void om_label(struct om *o, int first, const char *key,
		     const char *value, const char *whose)
{
	char esc[4 * CTL_DISK_NAME_LEN + 2 * IOCOST_MODEL_NAME_LEN];
	int ret = ctl_om_escape(esc, sizeof(esc), value);

	if (ret) {
		om_error(o, "%s: the value of label %s is %s", whose, key,
			 ret == -EINVAL ? "not printable ASCII" : "too long");
		return;
	}
	fprintf(o->f, "%s%s=\"%s\"", first ? "" : ",", key, esc);
}

/*
 * The labels of @r: dev, disk (if known), model and mode (@stats: of the
 * stats line), then @key="@value" if @key; "{...}" and a blank.
 */
static void om_labels(struct om *o, const struct ctl_dev_row *r, int stats,
		      const char *key, const char *value)
{
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", r->dev.major, r->dev.minor);
	fputc('{', o->f);
	om_label(o, 1, "dev", dev, dev);
	if (r->name[0])
		om_label(o, 0, "disk", r->name, dev);
	if (stats) {
		om_label(o, 0, "model", r->stats->model, dev);
		om_label(o, 0, "mode", ctl_mode_name(r->stats->mode), dev);
	}
	if (key)
		om_label(o, 0, key, value, dev);
	fputs("} ", o->f);
}

/*
 * vtime in seconds, to the nanosecond (rounded down), in 64 bits (no
 * __int128 on 32-bit targets): the fraction (< 2^37) times 10^9 / 2^37
 * is the fraction times 5^9 / 2^28, below 2^58.
 */
#if IOCOST_VTIME_PER_SEC != 0x2000000000ULL
#error "om_seconds() assumes IOCOST_VTIME_PER_SEC is 2^37"
#endif
static void om_seconds(struct om *o, u64 vtime)
{
	u64 frac = vtime % IOCOST_VTIME_PER_SEC;

	fprintf(o->f, "%llu.%09llu\n", vtime / IOCOST_VTIME_PER_SEC,
		frac * 1953125 >> 28);
}

/* which rows a stats family has */
enum om_rows {
	OM_STATS,	/* every row with a stats line */
	OM_SHADOW,	/* those in shadow mode */
	OM_CLONE,	/* those of a kernel hooked through the IPA-SRA clone */
};

static int om_has(const struct ctl_dev_row *r, enum om_rows which)
{
	if (!r->stats)
		return 0;
	switch (which) {
	case OM_STATS:
		return 1;
	case OM_SHADOW:
		return r->stats->mode == CTL_MODE_SHADOW;
	case OM_CLONE:
		return r->stats->has_clone;
	}
	return 0;
}

static size_t om_count(const struct om *o, enum om_rows which)
{
	size_t i, n = 0;

	for (i = 0; i < o->in->nrows; i++)
		n += om_has(&o->in->rows[i], which);
	return n;
}

/* the family of the stats counter @name (at @off in struct ctl_stats) */
static void om_stat(struct om *o, const char *name, size_t off,
		    enum om_rows which)
{
	const struct om_counter_doc *d = counter_doc(name);
	char family[64], help[96];
	size_t i;

	if (!om_count(o, which))
		return;
	snprintf(family, sizeof(family), PREFIX "%s%s", name,
		 d && d->vtime ? "_seconds" : "");
	if (!d)
		snprintf(help, sizeof(help), "The module's %s counter.", name);
	om_meta(o, family, "counter", d && d->vtime ? "seconds" : NULL,
		d ? d->help : help);
	for (i = 0; i < o->in->nrows; i++) {
		const struct ctl_dev_row *r = &o->in->rows[i];
		u64 v;

		if (!om_has(r, which))
			continue;
		memcpy(&v, (const char *)r->stats + off, sizeof(v));
		fprintf(o->f, "%s_total", family);
		om_labels(o, r, 1, NULL, NULL);
		if (d && d->vtime)
			om_seconds(o, v);
		else
			fprintf(o->f, "%llu\n", v);
	}
}

static void om_models(struct om *o)
{
	const struct ctl_om_input *in = o->in;
	size_t i, npinned = 0;

	om_meta(o, PREFIX "models", "gauge", NULL,
		"Models registered with the module.");
	fprintf(o->f, PREFIX "models %zu\n", in->nmodels);
	if (!in->nmodels)
		return;
	om_meta(o, PREFIX "model_bindings", "gauge", NULL,
		"Disks bound to the model.");
	for (i = 0; i < in->nmodels; i++) {
		fputs(PREFIX "model_bindings{", o->f);
		om_label(o, 1, "model", in->models[i].name, "models");
		fprintf(o->f, "} %u\n", in->models[i].bindings);
		npinned += in->pinned[i] >= 0;
	}
	if (!npinned)
		return;
	om_meta(o, PREFIX "model_pinned", "gauge", NULL,
		"1 if iocostctl load pinned the model, 0 if another loader registered it.");
	for (i = 0; i < in->nmodels; i++) {
		if (in->pinned[i] < 0)
			continue;
		fputs(PREFIX "model_pinned{", o->f);
		om_label(o, 1, "model", in->models[i].name, "models");
		fprintf(o->f, "} %d\n", in->pinned[i] > 0);
	}
}

/* the gauges of a device */
enum om_gauge {
	OM_QOS_ENABLED,	/* rows with an io.cost.qos line */
	OM_VRATE,	/* rows with io.stat's cost.vrate */
	OM_REGISTERED,	/* rows with a stats line */
};

static int om_gauge_has(const struct ctl_dev_row *r, enum om_gauge g)
{
	switch (g) {
	case OM_QOS_ENABLED:
		return !!r->qos;
	case OM_VRATE:
		return r->has_vrate;
	case OM_REGISTERED:
		return !!r->stats;
	}
	return 0;
}

/* the family of gauge @g: one sample per row that has it */
static void om_gauge(struct om *o, const char *family, const char *unit,
		     const char *help, enum om_gauge g)
{
	const struct ctl_om_input *in = o->in;
	size_t i, n = 0;

	for (i = 0; i < in->nrows; i++)
		n += !!om_gauge_has(&in->rows[i], g);
	if (!n)
		return;
	om_meta(o, family, "gauge", unit, help);
	for (i = 0; i < in->nrows; i++) {
		const struct ctl_dev_row *r = &in->rows[i];

		if (!om_gauge_has(r, g))
			continue;
		fputs(family, o->f);
		om_labels(o, r, g == OM_REGISTERED, NULL, NULL);
		if (g == OM_QOS_ENABLED)
			fprintf(o->f, "%d\n", !!r->qos->enable);
		else if (g == OM_VRATE)
			fprintf(o->f, "%u.%04u\n", r->vrate / 10000, r->vrate % 10000);
		else
			fprintf(o->f, "%d\n", !!r->stats->registered);
	}
}

/* the devices: bindings, io.cost.qos, vrate, registered */
static void om_devices(struct om *o)
{
	size_t i, nbound = 0;

	for (i = 0; i < o->in->nrows; i++)
		nbound += !!o->in->rows[i].bind;
	om_meta(o, PREFIX "bindings", "gauge", NULL,
		"Disks bound to a model.");
	fprintf(o->f, PREFIX "bindings %zu\n", nbound);
	om_gauge(o, PREFIX "qos_enabled", NULL,
		 "1 if iocost is enabled on the disk (enable= of the root cgroup's io.cost.qos).",
		 OM_QOS_ENABLED);
	om_gauge(o, PREFIX "vrate_ratio", "ratio",
		 "The iocost controller's vrate, 1 = 100% (cost.vrate of the root cgroup's io.stat).",
		 OM_VRATE);
	om_gauge(o, PREFIX "registered", NULL,
		 "1 if the bound model is registered, 0 if it was unloaded while bound.",
		 OM_REGISTERED);
}

/*
 * A counter family of @which rows with one sample per entry of a stats
 * array (at @off in struct ctl_stats, @n u64s), labelled @key="@names[i]"
 */
static void om_by(struct om *o, const char *family, const char *help,
		  enum om_rows which, const char *key,
		  const char *const *names, size_t off, unsigned int n)
{
	const struct ctl_om_input *in = o->in;
	unsigned int k;
	size_t i;

	if (!om_count(o, which))
		return;
	om_meta(o, family, "counter", NULL, help);
	for (i = 0; i < in->nrows; i++) {
		const u64 *v;

		if (!om_has(&in->rows[i], which))
			continue;
		v = (const u64 *)((const char *)in->rows[i].stats + off);
		for (k = 0; k < n; k++) {
			fprintf(o->f, "%s_total", family);
			om_labels(o, &in->rows[i], 1, key, names[k]);
			fprintf(o->f, "%llu\n", v[k]);
		}
	}
}

/*
 * A shadow binding's histogram of per-IO model/builtin ratios, and the
 * IPA-SRA clone's fallbacks to the builtin, by reason
 */
static void om_hist_fallbacks(struct om *o)
{
	const char *buckets[CTL_HIST_BUCKETS];
	unsigned int b;

	for (b = 0; b < CTL_HIST_BUCKETS; b++)
		buckets[b] = ctl_hist_label(b);
	om_by(o, PREFIX "shadow_ios",
	      "Shadow mode: bios by the ratio of the model's price to the builtin's (bucket builtin 0: the builtin priced it 0).",
	      OM_SHADOW, "ratio", buckets, offsetof(struct ctl_stats, hist),
	      CTL_HIST_BUCKETS);
	om_by(o, PREFIX "fallbacks",
	      "IPA-SRA clone: bios the builtin priced instead of the model, by reason.",
	      OM_CLONE, "reason", ctl_fallback_names,
	      offsetof(struct ctl_stats, fallback), CTL_NR_FALLBACK);
}

static void om_check_rows(struct om *o)
{
	const struct ctl_om_input *in = o->in;
	size_t i, j;

	for (i = 0; i < in->nrows; i++)
		for (j = 0; j < i; j++)
			if (in->rows[i].dev.major == in->rows[j].dev.major &&
			    in->rows[i].dev.minor == in->rows[j].dev.minor)
				om_error(o, "device %u:%u is listed twice",
					 in->rows[i].dev.major,
					 in->rows[i].dev.minor);
}

int ctl_openmetrics(FILE *out, const struct ctl_om_input *in, char *err,
		    size_t errsize)
{
	struct om o = { .in = in, .err = err, .errsize = errsize };
	char *buf = NULL;
	size_t len = 0;
	int ret;

	om_check_rows(&o);
	if (o.ret)
		return o.ret;
	o.f = open_memstream(&buf, &len);
	if (!o.f) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	om_models(&o);
	om_devices(&o);
	/* the module's counters, from its list */
#define IOCOST_STAT(name) \
	om_stat(&o, #name, offsetof(struct ctl_stats, name), OM_STATS)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT
#define IOCOST_STAT_SHADOW(name) \
	om_stat(&o, #name, offsetof(struct ctl_stats, name), OM_SHADOW)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_SHADOW
	om_hist_fallbacks(&o);
#define IOCOST_STAT_CLONE(name) \
	om_stat(&o, #name, offsetof(struct ctl_stats, name), OM_CLONE)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_CLONE
	fputs("# EOF\n", o.f);
	if (fclose(o.f) && !o.ret) {
		snprintf(err, errsize, "out of memory");
		o.ret = -ENOMEM;
	}
	ret = o.ret;
	if (!ret && (fwrite(buf, 1, len, out) != len || fflush(out))) {
		snprintf(err, errsize, "cannot write the output");
		ret = -EIO;
	}
	free(buf);
	return ret;
}
