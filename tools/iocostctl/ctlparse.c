// SPDX-License-Identifier: GPL-2.0
/*
 * ctlparse.c - pure parsers and formatters of iocostctl (see ctlparse.h)
 *
 * The parsers are strict about the shapes the module and the kernel print
 * (decimal numbers without signs or blanks, the keys in their order) and
 * refuse anything else with -EINVAL, so a changed kernel format shows up as
 * an error instead of as wrong numbers.  The one tolerance is io.cost.qos,
 * a kernel file whose keys iocostctl does not own: unknown keys are skipped.
 * MAJ:MIN and model names follow the module's own rules (src/parse.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctlparse.h"

#define TICK_EVENT "iocost_ioc_tick: "

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_blanks(const char **p)
{
	while (is_blank(**p))
		(*p)++;
}

/* at least one blank, then the next token */
static int need_blanks(const char **p)
{
	if (!is_blank(**p))
		return -EINVAL;
	skip_blanks(p);
	return 0;
}

/* nothing but blanks and at most one newline is left of the line */
static int rest_blank(const char *p)
{
	skip_blanks(&p);
	if (*p == '\n')
		p++;
	return !*p;
}

static int at_end(const char *p)
{
	return rest_blank(p) ? 0 : -EINVAL;
}

static int literal(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return -EINVAL;
	*p += n;
	return 0;
}

/* a decimal number, digits only, at most @max */
static int parse_u64(const char **p, u64 max, u64 *out)
{
	const char *s = *p;
	u64 v = 0;
	int range = 0;

	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		unsigned int d = *s - '0';

		if (v > (UINT64_MAX - d) / 10)
			range = 1;
		else
			v = v * 10 + d;
	}
	if (range || v > max)
		return -ERANGE;
	*p = s;
	*out = v;
	return 0;
}

static int parse_u32(const char **p, u32 *out)
{
	u64 v;
	int ret = parse_u64(p, UINT32_MAX, &v);

	if (!ret)
		*out = (u32)v;
	return ret;
}

/* an int with an optional minus sign */
static int parse_int(const char **p, int *out)
{
	const char *s = *p;
	u64 v;
	int neg = 0, ret;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	ret = parse_u64(&s, neg ? 2147483648ULL : 2147483647ULL, &v);
	if (ret)
		return ret;
	*out = neg ? (int)(-(long long)v) : (int)v;
	*p = s;
	return 0;
}

/* "KEY=" then a u64 */
static int key_u64(const char **p, const char *key, u64 *out)
{
	return literal(p, key) ?: literal(p, "=") ?: parse_u64(p, UINT64_MAX, out);
}

/* a token of non-blank characters into @buf (size @size), 1..size-1 long */
static int parse_word(const char **p, char *buf, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (*s && !is_blank(*s) && *s != '\n') {
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return -EINVAL;
		s++;
		n++;
	}
	if (!n || n >= size)
		return -EINVAL;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p = s;
	return 0;
}

/* MAJ:MIN, as the module parses it (src/parse.c) */
static int parse_devt_at(const char **p, struct ctl_devt *dev)
{
	size_t pos = 0;
	u32 maj, min;
	int ret;

	ret = iocost_parse_devt(*p, strlen(*p), &pos, &maj, &min);
	if (ret)
		return ret;
	*p += pos;
	dev->major = maj;
	dev->minor = min;
	return 0;
}

int ctl_parse_devt(const char *s, struct ctl_devt *dev)
{
	struct ctl_devt d;
	int ret = parse_devt_at(&s, &d);

	if (ret)
		return ret;
	if (*s)
		return -EINVAL;
	*dev = d;
	return 0;
}

int ctl_parse_model_line(const char *line, struct ctl_model *m)
{
	struct ctl_model r;
	u64 n;
	int ret;

	ret = parse_word(&line, r.name, sizeof(r.name)) ?: need_blanks(&line);
	if (ret)
		return ret;
	if (literal(&line, "bindings="))
		return -EINVAL;
	ret = parse_u64(&line, UINT32_MAX, &n) ?: at_end(line);
	if (ret)
		return ret;
	r.bindings = (unsigned int)n;
	*m = r;
	return 0;
}

/* "MAJ:MIN model=NAME" at the start of a bindings or stats line */
static int parse_dev_model(const char **p, struct ctl_devt *dev, char *model)
{
	return parse_devt_at(p, dev) ?: need_blanks(p) ?:
	       literal(p, "model=") ?: parse_word(p, model, IOCOST_MODEL_NAME_LEN);
}

/* "mode=enforce" or "mode=shadow" */
static int parse_mode_at(const char **p, enum ctl_mode *mode)
{
	char word[IOCOST_MODEL_NAME_LEN];
	const char *s = *p;
	int ret;

	ret = literal(&s, "mode=") ?: parse_word(&s, word, sizeof(word)) ?:
	      ctl_parse_mode(word, mode);
	if (ret)
		return ret;
	*p = s;
	return 0;
}

/* "MAJ:MIN model=NAME mode=MODE", the start of a bindings or stats line */
static int parse_dev_model_mode(const char **p, struct ctl_devt *dev,
				char *model, enum ctl_mode *mode)
{
	return parse_dev_model(p, dev, model) ?: need_blanks(p) ?:
	       parse_mode_at(p, mode);
}

int ctl_parse_binding_line(const char *line, struct ctl_binding *b)
{
	struct ctl_binding r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_dev_model_mode(&line, &r.dev, r.model, &r.mode) ?:
	      at_end(line);
	if (ret)
		return ret;
	*b = r;
	return 0;
}

/* "hist=H0,...,H7": exactly CTL_HIST_BUCKETS counts */
static int parse_hist(const char **p, u64 *hist)
{
	unsigned int i;
	int ret;

	ret = literal(p, "hist=");
	for (i = 0; !ret && i < CTL_HIST_BUCKETS; i++)
		ret = (i ? literal(p, ",") : 0) ?:
		      parse_u64(p, UINT64_MAX, &hist[i]);
	return ret;
}

const char *const ctl_fallback_names[CTL_NR_FALLBACK] = {
#define IOCOST_FALLBACK(reason) #reason
#include "../../src/iocost_stats.h"
#undef IOCOST_FALLBACK
};

/* " fallback_kind=N ... fallback_blkg=N" */
static int parse_fallbacks(const char **p, u64 fallback[CTL_NR_FALLBACK])
{
	char key[32];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < CTL_NR_FALLBACK && !ret; i++) {
		snprintf(key, sizeof(key), "fallback_%s", ctl_fallback_names[i]);
		ret = need_blanks(p) ?: key_u64(p, key, &fallback[i]);
	}
	return ret;
}

int ctl_parse_stats_line(const char *line, struct ctl_stats *st)
{
	struct ctl_stats r;
	u64 reg;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_dev_model_mode(&line, &r.dev, r.model, &r.mode) ?:
	      need_blanks(&line) ?: key_u64(&line, "registered", &reg);
	if (ret)
		return ret;
	if (reg > 1)
		return -EINVAL;
	/* the counters, in the module's order (src/iocost_stats.h) */
#define PARSE_COUNTER(name) \
	(ret = ret ?: need_blanks(&line) ?: key_u64(&line, #name, &r.name))
#define IOCOST_STAT(name) PARSE_COUNTER(name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT
	if (!ret && r.mode == CTL_MODE_SHADOW) {
#define IOCOST_STAT_SHADOW(name) PARSE_COUNTER(name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_SHADOW
		ret = ret ?: need_blanks(&line) ?: parse_hist(&line, r.hist);
	}
	/* then the clone's counters, or the end */
	if (!ret && at_end(line)) {
		ret = parse_fallbacks(&line, r.fallback);
#define IOCOST_STAT_CLONE(name) PARSE_COUNTER(name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_CLONE
		r.has_clone = !ret;
	}
#undef PARSE_COUNTER
	ret = ret ?: at_end(line);
	if (ret)
		return ret;
	r.registered = (int)reg;
	*st = r;
	return 0;
}

/* a non-negative decimal with an optional fraction, as the kernel prints it */
static int parse_fixed(const char **p, double *out)
{
	const char *s = *p;
	char buf[32];
	size_t n;

	if (!is_digit(*s))
		return -EINVAL;
	while (is_digit(*s))
		s++;
	if (*s == '.') {
		s++;
		if (!is_digit(*s))
			return -EINVAL;
		while (is_digit(*s))
			s++;
	}
	n = (size_t)(s - *p);
	if (n >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	*p = s;
	return 0;
}

/* the keys of an io.cost.qos line, and how their values are parsed */
enum qos_kind { QOS_BOOL, QOS_WORD, QOS_PCT, QOS_US };

static const struct qos_key {
	const char *key;
	enum qos_kind kind;
	size_t off;		/* in struct ctl_qos */
} qos_keys[] = {
	{ "enable", QOS_BOOL, offsetof(struct ctl_qos, enable) },
	{ "ctrl", QOS_WORD, offsetof(struct ctl_qos, ctrl) },
	{ "rpct", QOS_PCT, offsetof(struct ctl_qos, rpct) },
	{ "rlat", QOS_US, offsetof(struct ctl_qos, rlat) },
	{ "wpct", QOS_PCT, offsetof(struct ctl_qos, wpct) },
	{ "wlat", QOS_US, offsetof(struct ctl_qos, wlat) },
	{ "min", QOS_PCT, offsetof(struct ctl_qos, min) },
	{ "max", QOS_PCT, offsetof(struct ctl_qos, max) },
};

#define NR_QOS_KEYS	ARRAY_SIZE(qos_keys)
#define QOS_REQUIRED	3u	/* enable and ctrl */
#define QOS_ALL		((1u << NR_QOS_KEYS) - 1)

/* the value of @k at *@p into @r */
static int parse_qos_value(const char **p, const struct qos_key *k,
			   struct ctl_qos *r)
{
	void *field = (char *)r + k->off;
	u64 v;
	int ret;

	switch (k->kind) {
	case QOS_BOOL:
		ret = parse_u64(p, 1, &v);
		if (!ret)
			*(int *)field = (int)v;
		return ret;
	case QOS_WORD:
		return parse_word(p, field, sizeof(r->ctrl));
	case QOS_PCT:
		return parse_fixed(p, field);
	case QOS_US:
		return parse_u64(p, UINT64_MAX, field);
	}
	return -EINVAL;
}

int ctl_parse_qos_line(const char *line, struct ctl_qos *q)
{
	struct ctl_qos r;
	unsigned int seen = 0;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_devt_at(&line, &r.dev);
	if (ret)
		return ret;
	while (!rest_blank(line)) {
		const char *k;
		size_t n, i;

		ret = need_blanks(&line);
		if (ret)
			return ret;
		if (rest_blank(line))
			break;
		k = line;
		while (*line && *line != '=' && !is_blank(*line) && *line != '\n')
			line++;
		n = (size_t)(line - k);
		if (!n || *line != '=')
			return -EINVAL;
		line++;
		for (i = 0; i < NR_QOS_KEYS; i++)
			if (strlen(qos_keys[i].key) == n &&
			    !strncmp(qos_keys[i].key, k, n))
				break;
		if (i == NR_QOS_KEYS) {
			/* a key of a newer kernel: skip its value */
			while (*line && !is_blank(*line) && *line != '\n')
				line++;
			continue;
		}
		if (seen & (1u << i))
			return -EINVAL;	/* a key twice */
		seen |= 1u << i;
		ret = parse_qos_value(&line, &qos_keys[i], &r);
		if (ret)
			return ret;
		if (*line && !is_blank(*line) && *line != '\n')
			return -EINVAL;	/* junk glued to a value */
	}
	if ((seen & QOS_REQUIRED) != QOS_REQUIRED)
		return -EINVAL;
	r.has_params = seen == QOS_ALL;
	*q = r;
	return 0;
}

/*
 * The trace_pipe prefix "... TIMESTAMP: " ends right before @ev (the event
 * name); parse TIMESTAMP backwards from there.
 */
static int tick_timestamp(const char *line, const char *ev, double *ts)
{
	const char *end = ev, *s;
	char buf[40];
	size_t n;

	if (end - line < 3 || end[-1] != ' ' || end[-2] != ':')
		return -EINVAL;
	end -= 2;
	s = end;
	while (s > line && (is_digit(s[-1]) || s[-1] == '.'))
		s--;
	n = (size_t)(end - s);
	if (!n || n >= sizeof(buf) || !is_digit(*s) || (s > line && !is_blank(s[-1])))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strchr(buf, '.') != strrchr(buf, '.'))
		return -EINVAL;
	*ts = strtod(buf, NULL);
	return 0;
}

int ctl_parse_tick(const char *line, struct ctl_tick *t)
{
	struct ctl_tick r;
	const char *p, *ev, *name;
	size_t n;
	int ret;

	memset(&r, 0, sizeof(r));
	ev = strstr(line, TICK_EVENT);
	if (ev) {
		p = ev + strlen(TICK_EVENT);
		r.has_ts = !tick_timestamp(line, ev, &r.ts);
	} else {
		p = line;
		skip_blanks(&p);
	}
	if (literal(&p, "["))
		return -EINVAL;
	name = p;
	while (*p && *p != ']') {
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			return -EINVAL;
		p++;
	}
	n = (size_t)(p - name);
	if (*p != ']' || !n || n >= sizeof(r.dev))
		return -EINVAL;
	memcpy(r.dev, name, n);
	r.dev[n] = '\0';
	p++;
	ret = need_blanks(&p) ?: key_u64(&p, "period", &r.period) ?:
	      literal(&p, ":") ?: parse_u32(&p, &r.period_us) ?:
	      literal(&p, "us") ?: need_blanks(&p) ?:
	      key_u64(&p, "vrate", &r.vrate) ?: need_blanks(&p) ?:
	      literal(&p, "busy=") ?: parse_int(&p, &r.busy) ?: need_blanks(&p) ?:
	      literal(&p, "active=") ?: parse_u32(&p, &r.active) ?:
	      need_blanks(&p) ?: literal(&p, "usage=") ?:
	      parse_u32(&p, &r.usage) ?: literal(&p, "%") ?: need_blanks(&p) ?:
	      literal(&p, "running=") ?: parse_int(&p, &r.running) ?: at_end(p);
	if (ret)
		return ret;
	*t = r;
	return 0;
}

int ctl_parse_iostat_vrate(const char *line, struct ctl_devt *dev, u32 *vrate)
{
	struct ctl_devt d;
	u64 pct, frac;
	int ret;

	ret = parse_devt_at(&line, &d);
	if (ret)
		return ret;
	while (!rest_blank(line)) {
		ret = need_blanks(&line);
		if (ret)
			return ret;
		if (literal(&line, "cost.vrate=")) {
			/* another key's value: skip it */
			while (*line && !is_blank(*line) && *line != '\n')
				line++;
			continue;
		}
		if (!is_digit(*line))
			return -EINVAL;
		ret = parse_u64(&line, UINT32_MAX / 100, &pct) ?:
		      literal(&line, ".");
		if (ret)
			return ret;
		if (!is_digit(line[0]) || !is_digit(line[1]) ||
		    (line[2] && !is_blank(line[2]) && line[2] != '\n'))
			return -EINVAL;	/* blk-iocost prints two decimals */
		frac = (u64)(line[0] - '0') * 10 + (u64)(line[1] - '0');
		if (pct * 100 + frac > UINT32_MAX)
			return -ERANGE;
		*dev = d;
		*vrate = (u32)(pct * 100 + frac);
		return 0;
	}
	return -ENOENT;
}

int ctl_parse_format(const char *s, enum ctl_format *format)
{
	if (!strcmp(s, "text"))
		*format = CTL_FORMAT_TEXT;
	else if (!strcmp(s, "json"))
		*format = CTL_FORMAT_JSON;
	else if (!strcmp(s, "openmetrics"))
		*format = CTL_FORMAT_OPENMETRICS;
	else
		return -EINVAL;
	return 0;
}

int ctl_parse_mode(const char *s, enum ctl_mode *mode)
{
	if (!strcmp(s, "enforce"))
		*mode = CTL_MODE_ENFORCE;
	else if (!strcmp(s, "shadow"))
		*mode = CTL_MODE_SHADOW;
	else
		return -EINVAL;
	return 0;
}

const char *ctl_mode_name(enum ctl_mode mode)
{
	return mode == CTL_MODE_SHADOW ? "shadow" : "enforce";
}

static const char *const hist_labels[CTL_HIST_BUCKETS] = {
	"builtin 0", "<1/4", "1/4-1/2", "1/2-0.9", "0.9-1.1", "1.1-2", "2-4",
	">=4",
};

const char *ctl_hist_label(unsigned int i)
{
	return i < CTL_HIST_BUCKETS ? hist_labels[i] : NULL;
}

int ctl_shadow_ratio(const struct ctl_stats *st, double *ratio)
{
	if (st->mode != CTL_MODE_SHADOW)
		return -EINVAL;
	if (!st->builtin)
		return -EDOM;
	*ratio = (double)st->vtime / (double)st->builtin;
	return 0;
}

int ctl_format_bind_line(char *buf, size_t size, struct ctl_devt dev,
			 const char *model, enum ctl_mode mode)
{
	int n;

	if (dev.major > IOCOST_MAJOR_MAX || dev.minor > IOCOST_MINOR_MAX)
		return -EINVAL;
	if (model && !iocost_name_valid(model, strlen(model) + 1))
		return -EINVAL;
	if (mode != CTL_MODE_ENFORCE && mode != CTL_MODE_SHADOW)
		return -EINVAL;
	if (!model && mode != CTL_MODE_ENFORCE)
		return -EINVAL;	/* linear has no mode */
	if (model)
		n = snprintf(buf, size, "%u:%u model=%s mode=%s\n", dev.major,
			     dev.minor, model, ctl_mode_name(mode));
	else
		n = snprintf(buf, size, "%u:%u model=linear\n", dev.major,
			     dev.minor);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

void ctl_stats_json(struct json_writer *w, const struct ctl_stats *st)
{
	const struct ctl_stats c = *st;	/* c.name: the counters' list below */
	double ratio;
	unsigned int i;

	jsonw_start_object(w);
	jsonw_string_field(w, "mode", ctl_mode_name(st->mode));
	jsonw_bool_field(w, "registered", st->registered);
#define IOCOST_STAT(name) jsonw_uint_field(w, #name, c.name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT
	jsonw_float_field(w, "vtime_us", 3, ctl_vtime_us(st->vtime));
	if (!st->has_clone) {
		jsonw_null_field(w, "fallback");
#define IOCOST_STAT_CLONE(name) jsonw_null_field(w, #name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_CLONE
	} else {
		jsonw_name(w, "fallback");
		jsonw_start_object(w);
		for (i = 0; i < CTL_NR_FALLBACK; i++)
			jsonw_uint_field(w, ctl_fallback_names[i], st->fallback[i]);
		jsonw_end_object(w);
#define IOCOST_STAT_CLONE(name) jsonw_uint_field(w, #name, c.name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_CLONE
	}
	if (st->mode != CTL_MODE_SHADOW) {
#define IOCOST_STAT_SHADOW(name) jsonw_null_field(w, #name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_SHADOW
		jsonw_null_field(w, "builtin_us");
		jsonw_null_field(w, "ratio");
		jsonw_null_field(w, "hist");
		jsonw_end_object(w);
		return;
	}
#define IOCOST_STAT_SHADOW(name) jsonw_uint_field(w, #name, c.name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT_SHADOW
	jsonw_float_field(w, "builtin_us", 3, ctl_vtime_us(st->builtin));
	if (ctl_shadow_ratio(st, &ratio))
		jsonw_null_field(w, "ratio");
	else
		jsonw_float_field(w, "ratio", 3, ratio);
	jsonw_name(w, "hist");
	jsonw_start_array(w);
	for (i = 0; i < CTL_HIST_BUCKETS; i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "bucket", hist_labels[i]);
		jsonw_uint_field(w, "ios", st->hist[i]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

const char *ctl_tick_state(int running)
{
	switch (running) {
	case 0:
		return "idle";
	case 1:
		return "running";
	case 2:
		return "stop";
	}
	return "unknown";
}

double ctl_vrate_pct(u64 vrate)
{
	return (double)vrate * 100.0 / (double)CTL_VRATE_100;
}

double ctl_vtime_us(u64 vtime)
{
	return (double)vtime * 1e6 / (double)IOCOST_VTIME_PER_SEC;
}

const char *ctl_bind_explain(int err, const char *model, char *buf, size_t size)
{
	switch (err) {
	case ENOENT:
		snprintf(buf, size, "no model named %s is registered",
			 model ? model : "?");
		break;
	case ENODEV:
		snprintf(buf, size,
			 "no such disk, or a partition: bind the whole disk");
		break;
	case EINVAL:
		snprintf(buf, size,
			 "malformed: model names are 1-%d printable characters without blanks, not linear",
			 IOCOST_MODEL_NAME_LEN - 1);
		break;
	case ERANGE:
		snprintf(buf, size,
			 "device number out of range: major <= %u, minor <= %u",
			 IOCOST_MAJOR_MAX, IOCOST_MINOR_MAX);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, size, "need root (CAP_SYS_ADMIN)");
		break;
	default:
		return NULL;
	}
	return buf;
}

const char *ctl_unbind_usage(int all, int dry_run, int ndev)
{
	if (all && ndev)
		return "--all takes no DEV: it unbinds every bound disk";
	if (!all && dry_run)
		return "--dry-run goes with --all";
	if (!all && ndev != 1)
		return "expected DEV or --all";
	return NULL;
}

static int devt_eq(struct ctl_devt a, struct ctl_devt b)
{
	return a.major == b.major && a.minor == b.minor;
}

static const struct ctl_binding *find_binding(const struct ctl_binding *b,
					      size_t nb, struct ctl_devt dev)
{
	size_t i;

	for (i = 0; i < nb; i++)
		if (devt_eq(b[i].dev, dev))
			return &b[i];
	return NULL;
}

size_t ctl_unbind_merge(struct ctl_unbind_disk *d, size_t *nd,
			const struct ctl_binding *b, size_t nb)
{
	size_t i, j, todo = 0;

	for (i = 0; i < *nd; i++) {
		const struct ctl_binding *bound = find_binding(b, nb, d[i].dev);

		if (bound)
			memcpy(d[i].model, bound->model, sizeof(d[i].model));
		switch (d[i].state) {
		case CTL_UNBIND_TODO:	/* not written: linear if not bound */
			d[i].state = bound ? CTL_UNBIND_TODO : CTL_UNBIND_DONE;
			break;
		case CTL_UNBIND_DONE:
		case CTL_UNBIND_GONE:
			if (bound)
				d[i].state = CTL_UNBIND_TODO;
			break;
		case CTL_UNBIND_VANISHING:
			/* it could not be opened: gone, unless it is still bound */
			d[i].state = bound ? CTL_UNBIND_FAILED : CTL_UNBIND_GONE;
			d[i].err = bound ? ENODEV : 0;
			d[i].news = 1;
			break;
		case CTL_UNBIND_FAILED:
			break;
		}
	}
	for (j = 0; j < nb; j++) {
		for (i = 0; i < *nd; i++)
			if (devt_eq(d[i].dev, b[j].dev))
				break;
		if (i < *nd)
			continue;
		memset(&d[i], 0, sizeof(d[i]));
		d[i].dev = b[j].dev;
		memcpy(d[i].model, b[j].model, sizeof(d[i].model));
		d[i].state = CTL_UNBIND_TODO;
		(*nd)++;
	}
	for (i = 0; i < *nd; i++)
		todo += d[i].state == CTL_UNBIND_TODO;
	return todo;
}

void ctl_unbind_result(struct ctl_unbind_disk *d, int err)
{
	d->err = err;
	if (!err)
		d->state = CTL_UNBIND_DONE;
	else if (err == ENODEV)
		d->state = CTL_UNBIND_VANISHING;
	else
		d->state = CTL_UNBIND_FAILED;
}

const char *ctl_unbind_explain(int err, unsigned int passes, char *buf,
			       size_t size)
{
	switch (err) {
	case ENODEV:
		snprintf(buf, size,
			 "the disk cannot be opened, yet it is still bound: see dmesg");
		break;
	case EBUSY:
		snprintf(buf, size,
			 "bound again in each of %u passes: stop what binds it, then retry",
			 passes);
		break;
	case ENOENT:
		return NULL;	/* the bindings file itself: the caller knows */
	default:
		return ctl_bind_explain(err, NULL, buf, size);
	}
	return buf;
}
