// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/iocostctl/openmetrics.c (iocostctl status --format
 * openmetrics) and of the parsers it needs from ctlparse.c: io.stat's
 * cost.vrate and the --format names.  The fixture is made of lines of the
 * module's files as the suite and docs/USAGE.md show them, parsed by
 * ctlparse.c as status parses them; the output is compared byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "../../tools/iocostctl/openmetrics.h"

/* the models file (tests/vm/t/02-register.sh, 08-iocostctl.sh) */
static const char *const models_txt[] = {
	"iocost_2x bindings=2\n", "ms2 bindings=0\n", "test_min bindings=0\n",
};

/* pinned by iocostctl load, registered by another loader, cannot tell */
static const int pinned[] = { 1, 0, -1 };

/* the bindings file */
static const char *const binds_txt[] = {
	"254:0 model=iocost_2x mode=shadow\n",
	"254:16 model=iocost_2x mode=enforce\n",
};

/*
 * The stats file of a kernel hooked through the IPA-SRA clone: the shadow
 * line of docs/USAGE.md with tests/vm/t/17-clone.sh's clone fields, and
 * test_ctlparse.c's enforce line with fallbacks.
 */
static const char *const stats_txt[] = {
	"254:0 model=iocost_2x mode=shadow registered=1 charges=512 merges=0 nodata=0 zero=0 clamped=0 vtime=3374352384 builtin=1687176192 hist=0,0,0,0,0,0,512,0 fallback_kind=0 fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0 learning=0\n",
	"254:16 model=iocost_2x mode=enforce registered=1 charges=2048 merges=3 nodata=4 zero=5 clamped=6 vtime=6442450944 fallback_kind=1 fallback_caller=2 fallback_costp=3 fallback_args=4 fallback_blkg=5 learning=64\n",
};

/* the root cgroup's io.cost.qos */
static const char *const qos_txt[] = {
	"254:0 enable=1 ctrl=auto\n",
	"254:16 enable=1 ctrl=user rpct=95.00 rlat=250000 wpct=95.00 wlat=250000 min=50.00 max=150.00\n",
	"8:0 enable=0 ctrl=auto\n",
};

/* the root cgroup's io.stat, as blk-iocost's ioc_pd_stat() adds to it */
static const char *const iostat_txt[] = {
	"254:0 rbytes=2097152 wbytes=0 rios=512 wios=0 dbytes=0 dios=0 cost.vrate=135.62 cost.usage=24551\n",
	"254:16 rbytes=0 wbytes=8388608 rios=0 wios=2048 dbytes=0 dios=0 cost.vrate=100.00 cost.usage=46875\n",
	"8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n",
};

/*
 * What status --format openmetrics prints for them (man/iocostctl.8 and
 * docs/USAGE.md quote it).
 */
static const char want_full[] =
	"# HELP iocost_bpf_models Models registered with the module.\n"
	"# TYPE iocost_bpf_models gauge\n"
	"iocost_bpf_models 3\n"
	"# HELP iocost_bpf_model_bindings Disks bound to the model.\n"
	"# TYPE iocost_bpf_model_bindings gauge\n"
	"iocost_bpf_model_bindings{model=\"iocost_2x\"} 2\n"
	"iocost_bpf_model_bindings{model=\"ms2\"} 0\n"
	"iocost_bpf_model_bindings{model=\"test_min\"} 0\n"
	"# HELP iocost_bpf_model_pinned 1 if iocostctl load pinned the model, 0 if another loader registered it.\n"
	"# TYPE iocost_bpf_model_pinned gauge\n"
	"iocost_bpf_model_pinned{model=\"iocost_2x\"} 1\n"
	"iocost_bpf_model_pinned{model=\"ms2\"} 0\n"
	"# HELP iocost_bpf_bindings Disks bound to a model.\n"
	"# TYPE iocost_bpf_bindings gauge\n"
	"iocost_bpf_bindings 2\n"
	"# HELP iocost_bpf_qos_enabled 1 if iocost is enabled on the disk (enable= of the root cgroup's io.cost.qos).\n"
	"# TYPE iocost_bpf_qos_enabled gauge\n"
	"iocost_bpf_qos_enabled{dev=\"8:0\"} 0\n"
	"iocost_bpf_qos_enabled{dev=\"254:0\",disk=\"vda\"} 1\n"
	"iocost_bpf_qos_enabled{dev=\"254:16\",disk=\"vdb\"} 1\n"
	"# HELP iocost_bpf_vrate_ratio The iocost controller's vrate, 1 = 100% (cost.vrate of the root cgroup's io.stat).\n"
	"# TYPE iocost_bpf_vrate_ratio gauge\n"
	"# UNIT iocost_bpf_vrate_ratio ratio\n"
	"iocost_bpf_vrate_ratio{dev=\"254:0\",disk=\"vda\"} 1.3562\n"
	"iocost_bpf_vrate_ratio{dev=\"254:16\",disk=\"vdb\"} 1.0000\n"
	"# HELP iocost_bpf_registered 1 if the bound model is registered, 0 if it was unloaded while bound.\n"
	"# TYPE iocost_bpf_registered gauge\n"
	"iocost_bpf_registered{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 1\n"
	"iocost_bpf_registered{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 1\n"
	"# HELP iocost_bpf_charges Bios the model priced.\n"
	"# TYPE iocost_bpf_charges counter\n"
	"iocost_bpf_charges_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 512\n"
	"iocost_bpf_charges_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 2048\n"
	"# HELP iocost_bpf_merges Of the bios the model priced, merges.\n"
	"# TYPE iocost_bpf_merges counter\n"
	"iocost_bpf_merges_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0\n"
	"iocost_bpf_merges_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 3\n"
	"# HELP iocost_bpf_nodata Of the bios the model priced, bios without data (flushes).\n"
	"# TYPE iocost_bpf_nodata counter\n"
	"iocost_bpf_nodata_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0\n"
	"iocost_bpf_nodata_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 4\n"
	"# HELP iocost_bpf_zero Data bios the model priced at 0.\n"
	"# TYPE iocost_bpf_zero counter\n"
	"iocost_bpf_zero_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0\n"
	"iocost_bpf_zero_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 5\n"
	"# HELP iocost_bpf_clamped Prices above 1 s of vtime, charged as 1 s.\n"
	"# TYPE iocost_bpf_clamped counter\n"
	"iocost_bpf_clamped_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0\n"
	"iocost_bpf_clamped_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 6\n"
	"# HELP iocost_bpf_vtime_seconds Sum of the model's prices, 2^37 vtime = 1 s; in shadow mode not charged.\n"
	"# TYPE iocost_bpf_vtime_seconds counter\n"
	"# UNIT iocost_bpf_vtime_seconds seconds\n"
	"iocost_bpf_vtime_seconds_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0.024551644\n"
	"iocost_bpf_vtime_seconds_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 0.046875000\n"
	"# HELP iocost_bpf_builtin_seconds Shadow mode: sum of the builtin's prices (charged), 2^37 vtime = 1 s.\n"
	"# TYPE iocost_bpf_builtin_seconds counter\n"
	"# UNIT iocost_bpf_builtin_seconds seconds\n"
	"iocost_bpf_builtin_seconds_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0.012275822\n"
	"# HELP iocost_bpf_shadow_ios Shadow mode: bios by the ratio of the model's price to the builtin's (bucket builtin 0: the builtin priced it 0).\n"
	"# TYPE iocost_bpf_shadow_ios counter\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"builtin 0\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"<1/4\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"1/4-1/2\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"1/2-0.9\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"0.9-1.1\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"1.1-2\"} 0\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\"2-4\"} 512\n"
	"iocost_bpf_shadow_ios_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",ratio=\">=4\"} 0\n"
	"# HELP iocost_bpf_fallbacks IPA-SRA clone: bios the builtin priced instead of the model, by reason.\n"
	"# TYPE iocost_bpf_fallbacks counter\n"
	"iocost_bpf_fallbacks_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",reason=\"kind\"} 0\n"
	"iocost_bpf_fallbacks_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",reason=\"caller\"} 0\n"
	"iocost_bpf_fallbacks_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",reason=\"costp\"} 0\n"
	"iocost_bpf_fallbacks_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",reason=\"args\"} 0\n"
	"iocost_bpf_fallbacks_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\",reason=\"blkg\"} 0\n"
	"iocost_bpf_fallbacks_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\",reason=\"kind\"} 1\n"
	"iocost_bpf_fallbacks_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\",reason=\"caller\"} 2\n"
	"iocost_bpf_fallbacks_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\",reason=\"costp\"} 3\n"
	"iocost_bpf_fallbacks_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\",reason=\"args\"} 4\n"
	"iocost_bpf_fallbacks_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\",reason=\"blkg\"} 5\n"
	"# HELP iocost_bpf_learning IPA-SRA clone: bios the builtin priced while learning the registers.\n"
	"# TYPE iocost_bpf_learning counter\n"
	"iocost_bpf_learning_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"shadow\"} 0\n"
	"iocost_bpf_learning_total{dev=\"254:16\",disk=\"vdb\",model=\"iocost_2x\",mode=\"enforce\"} 64\n"
	"# EOF\n";

#define NMODELS		ARRAY_SIZE(models_txt)
#define NROWS		3

struct fixture {
	struct ctl_model models[NMODELS];
	struct ctl_binding binds[ARRAY_SIZE(binds_txt)];
	struct ctl_stats stats[ARRAY_SIZE(stats_txt)];
	struct ctl_qos qos[ARRAY_SIZE(qos_txt)];
	struct ctl_dev_row rows[NROWS];
	struct ctl_om_input in;
};

static int same_dev(struct ctl_devt a, struct ctl_devt b)
{
	return a.major == b.major && a.minor == b.minor;
}

/* parse the fixture's lines as status does, and join them by device */
static int fixture_init(struct fixture *fx)
{
	static const char *const names[NROWS] = { "", "vda", "vdb" };
	static const struct ctl_devt devs[NROWS] = { { 8, 0 }, { 254, 0 }, { 254, 16 } };
	size_t i, j;
	int bad = 0;

	memset(fx, 0, sizeof(*fx));
	for (i = 0; i < NMODELS; i++)
		bad |= ctl_parse_model_line(models_txt[i], &fx->models[i]);
	for (i = 0; i < ARRAY_SIZE(binds_txt); i++)
		bad |= ctl_parse_binding_line(binds_txt[i], &fx->binds[i]);
	for (i = 0; i < ARRAY_SIZE(stats_txt); i++)
		bad |= ctl_parse_stats_line(stats_txt[i], &fx->stats[i]);
	for (i = 0; i < ARRAY_SIZE(qos_txt); i++)
		bad |= ctl_parse_qos_line(qos_txt[i], &fx->qos[i]);
	for (j = 0; j < NROWS; j++) {
		struct ctl_dev_row *r = &fx->rows[j];
		struct ctl_devt d;
		u32 vrate;

		r->dev = devs[j];
		snprintf(r->name, sizeof(r->name), "%s", names[j]);
		for (i = 0; i < ARRAY_SIZE(binds_txt); i++)
			if (same_dev(fx->binds[i].dev, r->dev))
				r->bind = &fx->binds[i];
		for (i = 0; i < ARRAY_SIZE(stats_txt); i++)
			if (same_dev(fx->stats[i].dev, r->dev))
				r->stats = &fx->stats[i];
		for (i = 0; i < ARRAY_SIZE(qos_txt); i++)
			if (same_dev(fx->qos[i].dev, r->dev))
				r->qos = &fx->qos[i];
		for (i = 0; i < ARRAY_SIZE(iostat_txt); i++) {
			int ret = ctl_parse_iostat_vrate(iostat_txt[i], &d, &vrate);

			if (ret && ret != -ENOENT)
				bad = 1;
			if (!ret && same_dev(d, r->dev)) {
				r->has_vrate = 1;
				r->vrate = vrate;
			}
		}
	}
	fx->in.models = fx->models;
	fx->in.pinned = pinned;
	fx->in.nmodels = NMODELS;
	fx->in.rows = fx->rows;
	fx->in.nrows = NROWS;
	return bad;
}

/* ctl_openmetrics() into a string (free() it): its return value in *@ret */
static char *render(const struct ctl_om_input *in, int *ret, char *err,
		    size_t errsize)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		*ret = -ENOMEM;
		return NULL;
	}
	err[0] = '\0';
	*ret = ctl_openmetrics(f, in, err, errsize);
	fclose(f);
	return buf;
}

static void show_diff(const char *got, const char *want)
{
	size_t i = 0;

	while (got[i] && got[i] == want[i])
		i++;
	printf("#   differs at byte %zu:\n#   got:  %.120s\n#   want: %.120s\n",
	       i, got + i, want + i);
}

/*
 * No # HELP line has a double quote or a backslash: OpenMetrics wants
 * them escaped there, the Prometheus text format (node_exporter's
 * textfile collector) escapes only the backslash; without them a HELP
 * text reads the same in both.
 */
static int help_plain(const char *text)
{
	const char *l;

	for (l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");

		if (!strncmp(l, "# HELP ", 7) &&
		    (memchr(l, '"', n) || memchr(l, '\\', n)))
			return 0;
	}
	return 1;
}

static void test_full(void)
{
	const char *want = want_full;
	struct fixture fx;
	char err[256], *out;
	int ret;

	ok(!fixture_init(&fx), "the fixture's lines parse");
	out = render(&fx.in, &ret, err, sizeof(err));
	ok(ret == 0, "two bound disks (shadow, enforce) on a clone kernel: ret %d %s",
	   ret, err);
	ok(out && !strcmp(out, want), "the whole text, byte for byte");
	if (out && strcmp(out, want))
		show_diff(out, want);
	ok(out && help_plain(out),
	   "no HELP text has a double quote or a backslash (escaped differently by the two formats)");
	free(out);
}

static void test_empty(void)
{
	static const char want[] =
		"# HELP iocost_bpf_models Models registered with the module.\n"
		"# TYPE iocost_bpf_models gauge\n"
		"iocost_bpf_models 0\n"
		"# HELP iocost_bpf_bindings Disks bound to a model.\n"
		"# TYPE iocost_bpf_bindings gauge\n"
		"iocost_bpf_bindings 0\n"
		"# EOF\n";
	struct ctl_om_input in = { 0 };
	char err[256], *out;
	int ret;

	out = render(&in, &ret, err, sizeof(err));
	ok(ret == 0 && out && !strcmp(out, want),
	   "nothing registered, nothing bound: the two counts and # EOF");
	if (out && strcmp(out, want))
		show_diff(out, want);
	free(out);
}

/* the enforce line alone, on a kernel hooked directly (no clone fields) */
static void test_enforce_direct(void)
{
	/* the line, then two lines of the text */
	static const char *const txt[] = {
		"254:0 model=iocost_2x mode=enforce registered=0 charges=16 merges=0 nodata=0 zero=0 clamped=0 vtime=137438953472\n",
		"\niocost_bpf_registered{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"enforce\"} 0\n",
		"\niocost_bpf_vtime_seconds_total{dev=\"254:0\",disk=\"vda\",model=\"iocost_2x\",mode=\"enforce\"} 1.000000000\n",
	};
	struct ctl_stats st;
	struct ctl_dev_row row = { .dev = { 254, 0 }, .name = "vda" };
	struct ctl_om_input in = { .rows = &row, .nrows = 1 };
	char err[256], *out;
	int ret;

	ok(!ctl_parse_stats_line(txt[0], &st), "test_ctlparse.c's enforce line parses");
	row.stats = &st;
	out = render(&in, &ret, err, sizeof(err));
	ok(ret == 0 && out, "an enforce binding of a model unloaded while bound");
	if (!out)
		return;
	ok(strstr(out, txt[1]), "registered 0");
	ok(strstr(out, txt[2]), "2^37 vtime is 1.000000000 s");
	ok(!strstr(out, "builtin_seconds") && !strstr(out, "shadow_ios") &&
	   !strstr(out, "fallbacks") && !strstr(out, "learning"),
	   "no shadow family, no clone family");
	ok(!strstr(out, "qos_enabled") && !strstr(out, "vrate_ratio"),
	   "no io.cost.qos or io.stat line: no qos_enabled, no vrate_ratio");
	free(out);
}

static void test_vtime_seconds(void)
{
	static const struct {
		const char *vtime, *want;
	} cases[] = {
		{ "0", " 0.000000000\n" },
		{ "1", " 0.000000000\n" },		/* 7.3 ps: rounded down */
		{ "137438", " 0.000000999\n" },		/* just under a microsecond */
		{ "137439", " 0.000001000\n" },
		{ "274877906943", " 1.999999999\n" },	/* 2 s - 1 */
		{ "18446744073709551615", " 134217727.999999999\n" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char line[256], err[256], *out;
		struct ctl_stats st;
		struct ctl_dev_row row = { .dev = { 254, 0 } };
		struct ctl_om_input in = { .rows = &row, .nrows = 1 };
		int ret;

		snprintf(line, sizeof(line),
			 "254:0 model=m mode=enforce registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=%s",
			 cases[i].vtime);
		ret = ctl_parse_stats_line(line, &st);
		row.stats = &st;
		out = ret ? NULL : render(&in, &ret, err, sizeof(err));
		ok(out && !ret && strstr(out, cases[i].want),
		   "vtime=%s is%.*s s", cases[i].vtime,
		   (int)strlen(cases[i].want) - 1, cases[i].want);
		free(out);
	}
}

static void test_escape(void)
{
	char buf[64];

	ok(!ctl_om_escape(buf, sizeof(buf), "a\\b\"c\nd") &&
	   !strcmp(buf, "a\\\\b\\\"c\\nd"),
	   "backslash, double quote, newline escaped: %s", buf);
	ok(!ctl_om_escape(buf, sizeof(buf), "") && !buf[0], "the empty value");
	ok(ctl_om_escape(buf, sizeof(buf), "a\tb") == -EINVAL, "a tab: -EINVAL");
	ok(ctl_om_escape(buf, sizeof(buf), "\x7f") == -EINVAL, "DEL: -EINVAL");
	ok(ctl_om_escape(buf, sizeof(buf), "\xc3\xa9") == -EINVAL,
	   "a byte above 0x7e: -EINVAL");
	ok(ctl_om_escape(buf, 4, "abcd") == -ENOSPC, "4 bytes and a NUL in 4: -ENOSPC");
	ok(!ctl_om_escape(buf, 4, "abc") && !strcmp(buf, "abc"), "3 in 4 fit");
	ok(ctl_om_escape(buf, 4, "a\"b") == -ENOSPC, "an escape counts 2 bytes");
}

/* a label value with what must be escaped goes out escaped */
static void test_escaped_label(void)
{
	struct ctl_qos q = { .dev = { 8, 0 }, .enable = 1 };
	struct ctl_dev_row row = { .dev = { 8, 0 }, .name = "s\"d\\a", .qos = &q };
	struct ctl_om_input in = { .rows = &row, .nrows = 1 };
	char err[256], *out;
	int ret;

	out = render(&in, &ret, err, sizeof(err));
	ok(!ret && out &&
	   strstr(out, "\niocost_bpf_qos_enabled{dev=\"8:0\",disk=\"s\\\"d\\\\a\"} 1\n"),
	   "a disk named s\"d\\a: disk=\"s\\\"d\\\\a\"");
	free(out);
}

/* an error: non-zero, a message, and not a byte of output */
static void expect_refused(const struct ctl_om_input *in, const char *msg,
			   const char *what)
{
	char err[256], *out;
	int ret;

	out = render(in, &ret, err, sizeof(err));
	ok(ret == -EINVAL, "%s: -EINVAL (%d)", what, ret);
	ok(strstr(err, msg), "%s: the message says \"%s\" (\"%s\")", what, msg, err);
	ok(out && !out[0], "%s: nothing written", what);
	free(out);
}

static void test_refusals(void)
{
	struct fixture fx;
	struct ctl_dev_row rows[NROWS];
	struct ctl_om_input in;
	struct ctl_stats st;
	static const char *const bad_line[] = {
		"254:0 model=m mode=enforce registered=1 charges=x merges=0 nodata=0 zero=0 clamped=0 vtime=0",
	};

	fixture_init(&fx);
	memcpy(rows, fx.rows, sizeof(rows));
	in = fx.in;
	in.rows = rows;

	rows[2].dev = rows[1].dev;
	expect_refused(&in, "device 254:0 is listed twice", "the same device twice");

	memcpy(rows, fx.rows, sizeof(rows));
	snprintf(rows[2].name, sizeof(rows[2].name), "vd\x01");
	expect_refused(&in, "254:16: the value of label disk is not printable ASCII",
		       "a control character in a disk name");

	/* the last family's last label: no partial text before the error */
	memcpy(rows, fx.rows, sizeof(rows));
	st = *rows[2].stats;
	snprintf(st.model, sizeof(st.model), "m\x80");
	rows[2].stats = &st;
	expect_refused(&in, "254:16: the value of label model is not printable ASCII",
		       "a byte above 0x7e in a stats line's model");

	/* what status refuses before the formatter: a malformed stats line */
	ok(ctl_parse_stats_line(bad_line[0], &st) == -EINVAL,
	   "a malformed stats line is refused by its parser (status exits 1 before printing)");
}

/* every counter of the module's list has its own HELP text here */
static void test_help(void)
{
#define HAS_HELP(name) \
	ok(ctl_om_counter_help(#name), "counter %s has a HELP text", #name)
#define IOCOST_STAT(name) HAS_HELP(name)
#define IOCOST_STAT_SHADOW(name) HAS_HELP(name)
#define IOCOST_STAT_CLONE(name) HAS_HELP(name)
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT
#undef IOCOST_STAT_SHADOW
#undef IOCOST_STAT_CLONE
#undef HAS_HELP
	ok(!ctl_om_counter_help("nosuch"), "no HELP text for a name not listed");
}

static void test_iostat_vrate(void)
{
	struct ctl_devt d = { 0, 0 };
	u32 v = 0;

	ok(!ctl_parse_iostat_vrate(iostat_txt[0], &d, &v) && d.major == 254 &&
	   d.minor == 0 && v == 13562, "cost.vrate=135.62: 13562 (%u)", v);
	ok(!ctl_parse_iostat_vrate("8:16 cost.vrate=10000.00\n", &d, &v) &&
	   d.minor == 16 && v == 1000000, "cost.vrate=10000.00 first and last");
	ok(ctl_parse_iostat_vrate(iostat_txt[2], &d, &v) == -ENOENT,
	   "a device without iocost: -ENOENT");
	ok(ctl_parse_iostat_vrate("254:0", &d, &v) == -ENOENT, "no keys: -ENOENT");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=1.5", &d, &v) == -EINVAL,
	   "one decimal: -EINVAL");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=1.500", &d, &v) == -EINVAL,
	   "three decimals: -EINVAL");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=.50", &d, &v) == -EINVAL,
	   "no integer part: -EINVAL");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=", &d, &v) == -EINVAL,
	   "no value: -EINVAL");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=42949672.95", &d, &v) == 0 &&
	   v == 4294967295u, "UINT32_MAX hundredths");
	ok(ctl_parse_iostat_vrate("254:0 cost.vrate=42949672.96", &d, &v) == -ERANGE,
	   "one more: -ERANGE");
	ok(ctl_parse_iostat_vrate("x:0 cost.vrate=100.00", &d, &v) == -EINVAL,
	   "a malformed device: -EINVAL");
	ok(ctl_parse_iostat_vrate("254:0 xcost.vrate=100.00 cost.usage=1", &d, &v) == -ENOENT,
	   "another key ending in cost.vrate is not it");
}

static void test_format(void)
{
	enum ctl_format f = CTL_FORMAT_TEXT;

	ok(!ctl_parse_format("openmetrics", &f) && f == CTL_FORMAT_OPENMETRICS,
	   "openmetrics");
	ok(!ctl_parse_format("json", &f) && f == CTL_FORMAT_JSON, "json");
	ok(!ctl_parse_format("text", &f) && f == CTL_FORMAT_TEXT, "text");
	ok(ctl_parse_format("OpenMetrics", &f) == -EINVAL && f == CTL_FORMAT_TEXT,
	   "OpenMetrics (case): -EINVAL, unchanged");
	ok(ctl_parse_format("", &f) == -EINVAL, "the empty name: -EINVAL");
	ok(ctl_parse_format("prometheus", &f) == -EINVAL, "prometheus: -EINVAL");
}

int main(void)
{
	test_full();
	test_empty();
	test_enforce_direct();
	test_vtime_seconds();
	test_escape();
	test_escaped_label();
	test_refusals();
	test_help();
	test_iostat_vrate();
	test_format();
	return tap_done();
}
