// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/iocostctl/ctlparse.c: the tick-line, io.cost.qos,
 * models, bindings and stats parsers (with their enforce/shadow modes and
 * the shadow histogram), the bind request line, the stats JSON (through
 * json.c's writer), MAJ:MIN device numbers and the name rule (src/parse.c's,
 * as iocostctl calls them), the bindings errno explanations, unbind's
 * operands and the passes of unbind --all.  json.c itself: test_json.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "tap.h"
#include "../../tools/iocostctl/ctlparse.h"

#define TICK "[vda] period=42:250000us vrate=137438 busy=0 active=1 usage=37% running=1"
#define TICK_PIPE "             fio-1234    [001] ..s1.   123.456789: iocost_ioc_tick: "
#define TICK_LIMITS "<idle>-0 [000] d.s2. 7.000001: iocost_ioc_tick: [nvme0n1] period=18446744073709551615:4294967295us vrate=18446744073709551615 busy=-2147483648 active=4294967295 usage=250% running=2"
#define TICK_SLASH "kworker/0:1-12 [000] ..... 5.5: iocost_ioc_tick: [sda] period=1:1us vrate=1 busy=-16 active=0 usage=0% running=0"

static double absd(double x)
{
	return x < 0 ? -x : x;
}

static int near(double a, double b)
{
	return absd(a - b) < 0.000001;
}

/* one line a parser must refuse, with the errno it must give */
struct refusal {
	const char *line;
	int err;
	const char *what;
};

typedef int (*parser)(const char *line, void *out);

static int p_devt(const char *l, void *o) { return ctl_parse_devt(l, o); }
static int p_model(const char *l, void *o) { return ctl_parse_model_line(l, o); }
static int p_binding(const char *l, void *o) { return ctl_parse_binding_line(l, o); }
static int p_stats(const char *l, void *o) { return ctl_parse_stats_line(l, o); }
static int p_qos(const char *l, void *o) { return ctl_parse_qos_line(l, o); }
static int p_tick(const char *l, void *o) { return ctl_parse_tick(l, o); }

/* every line of @r is refused with its errno, the result left alone */
static void check_refusals(const char *kind, parser parse,
			   const struct refusal *r, size_t n)
{
	union {
		struct ctl_devt d;
		struct ctl_model m;
		struct ctl_binding b;
		struct ctl_stats s;
		struct ctl_qos q;
		struct ctl_tick t;
	} out, untouched;
	size_t i;

	for (i = 0; i < n; i++) {
		int ret;

		memset(&out, 0x5a, sizeof(out));
		memset(&untouched, 0x5a, sizeof(untouched));
		ret = parse(r[i].line, &out);
		ok(ret == r[i].err && !memcmp(&out, &untouched, sizeof(out)),
		   "%s: refuses %s with %d (got %d)", kind, r[i].what, r[i].err, ret);
	}
}

static const struct refusal bad_ticks[] = {
	{ "", -EINVAL, "an empty line" },
	{ "CPU:1 [LOST 12 EVENTS]", -EINVAL, "a lost-events line" },
	{ "x-1 [000] ..... 1.0: iocost_vrate_adj: [vda] period=1:1us", -EINVAL, "another event" },
	{ "[] period=42:250000us vrate=137438 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "an empty device name" },
	{ "[vda period=42:250000us vrate=137438 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "an unclosed bracket" },
	{
		"[abcdefghijklmnopqrstuvwxyz0123456] period=1:1us vrate=1 busy=0 active=1 usage=1% running=1",
		-EINVAL, "a 33-character device name"
	},
	{ "[vda] period=42 vrate=137438 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "a period without its length" },
	{ "[vda] period=42:250000 vrate=137438 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "a period length without us" },
	{ "[vda] period=42:4294967296us vrate=137438 busy=0 active=1 usage=37% running=1",
	  -ERANGE, "a period length beyond u32" },
	{ "[vda] period=18446744073709551616:1us vrate=1 busy=0 active=1 usage=1% running=1",
	  -ERANGE, "a period beyond u64" },
	{ "[vda] period=42:250000us vrate=137438 busy=2147483648 active=1 usage=37% running=1",
	  -ERANGE, "busy beyond int" },
	{ "[vda] period=42:250000us vrate=-1 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "a negative vrate" },
	{ "[vda] period=42:250000us vrate=137438 busy=0 active=1 usage=37 running=1",
	  -EINVAL, "usage without %" },
	{ "[vda] period=42:250000us vrate=137438 busy=0 active=1 usage=37%",
	  -EINVAL, "a missing running field" },
	{ "[vda] period=42:250000us vrate=137438 busy=0 active=1 usage=37% running=1 extra=2",
	  -EINVAL, "an extra field" },
	{ "[vda] period=42:250000us vrate=0x10 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "a hex number" },
	{ "[vda] period=42:250000us busy=0 vrate=137438 active=1 usage=37% running=1",
	  -EINVAL, "fields out of order" },
	{ "[vda]period=42:250000us vrate=137438 busy=0 active=1 usage=37% running=1",
	  -EINVAL, "a missing blank" },
	{ "[vda] period=42:250000us vrate=137438 busy=- active=1 usage=37% running=1",
	  -EINVAL, "a lone minus" },
	{ TICK "\n\n", -EINVAL, "two newlines" },
};

static void test_tick(void)
{
	struct ctl_tick t;
	int ret;

	ret = ctl_parse_tick(TICK, &t);
	ok(ret == 0 && !strcmp(t.dev, "vda") && t.period == 42 &&
	   t.period_us == 250000 && t.vrate == 137438 && t.busy == 0 &&
	   t.active == 1 && t.usage == 37 && t.running == 1 && !t.has_ts,
	   "tick: the bare print format");

	ret = ctl_parse_tick(TICK_PIPE TICK "\n", &t);
	ok(ret == 0 && !strcmp(t.dev, "vda") && t.period == 42 && t.has_ts &&
	   near(t.ts, 123.456789), "tick: a trace_pipe line, timestamp %f", t.ts);

	ret = ctl_parse_tick(TICK_LIMITS, &t);
	ok(ret == 0 && !strcmp(t.dev, "nvme0n1") && t.period == UINT64_MAX &&
	   t.period_us == UINT32_MAX && t.vrate == UINT64_MAX &&
	   t.busy == INT32_MIN && t.active == UINT32_MAX && t.usage == 250 &&
	   t.running == 2, "tick: limits of every field, usage above 100%%");

	ret = ctl_parse_tick(TICK_SLASH, &t);
	ok(ret == 0 && t.busy == -16 && t.running == 0 && near(t.ts, 5.5),
	   "tick: a negative busy level, a task name with a slash");

	ret = ctl_parse_tick("x-1 [000] ..... 100: iocost_ioc_tick: " TICK, &t);
	ok(ret == 0 && t.has_ts && near(t.ts, 100),
	   "tick: an integer timestamp (counter clock)");

	ret = ctl_parse_tick("garbage iocost_ioc_tick: " TICK, &t);
	ok(ret == 0 && !t.has_ts,
	   "tick: a prefix without a timestamp still gives the event");

	ret = ctl_parse_tick(TICK " \x20\n", &t);
	ok(ret == 0, "tick: trailing blanks and a newline");

	check_refusals("tick", p_tick, bad_ticks, ARRAY_SIZE(bad_ticks));

	ok(!strcmp(ctl_tick_state(0), "idle") && !strcmp(ctl_tick_state(1), "running") &&
	   !strcmp(ctl_tick_state(2), "stop") && !strcmp(ctl_tick_state(3), "unknown") &&
	   !strcmp(ctl_tick_state(-1), "unknown"), "tick: state names");
	ok(absd(ctl_vrate_pct(137438) - 100.0) < 0.000000001 &&
	   absd(ctl_vrate_pct(206157) - 150.0) < 0.001 && ctl_vrate_pct(0) == 0.0,
	   "tick: vrate 137438 is 100%%, 206157 is 150%%");
}

static const struct refusal bad_qos[] = {
	{ "", -EINVAL, "an empty line" },
	{ "254:0", -EINVAL, "a line without keys" },
	{ "254:0 ctrl=auto", -EINVAL, "a line without enable" },
	{ "254:0 enable=1", -EINVAL, "a line without ctrl" },
	{ "254:0 enable=2 ctrl=auto", -ERANGE, "enable=2" },
	{ "254:0 enable=1 enable=0 ctrl=auto", -EINVAL, "a key twice" },
	{ "254:0 enable=1 ctrl=auto rpct=abc", -EINVAL, "a non-number" },
	{ "254:0 enable=1 ctrl=auto rpct=95.", -EINVAL, "a dot without decimals" },
	{ "254:0 enable=1 ctrl=auto rlat=25x", -EINVAL, "junk after a number" },
	{ "254:0 enable=1 ctrl=automatic", -EINVAL, "an over-long ctrl" },
	{ "254:0 enable ctrl=auto", -EINVAL, "a key without =" },
	{ "254:0enable=1 ctrl=auto", -EINVAL, "a missing blank" },
	{ "vda enable=1 ctrl=auto", -EINVAL, "a device name" },
};

/* the kernel's io.cost.qos lines, and one with a key it does not have */
#define QOS_FULL "254:0 enable=1 ctrl=auto rpct=95.00 rlat=250000 wpct=95.00 wlat=250000 min=50.00 max=150.00\n"
#define QOS_USER "8:16 enable=0 ctrl=user rpct=0.00 rlat=0 wpct=0.00 wlat=0 min=1.25 max=10000.00"
#define QOS_NEWKEY "254:0 enable=1 ctrl=auto newkey=xyz rpct=95.00 rlat=250000 wpct=95.00 wlat=250000 min=50.00 max=150.00"

static void test_qos(void)
{
	struct ctl_qos q;
	int ret;

	ret = ctl_parse_qos_line(QOS_FULL, &q);
	ok(ret == 0 && q.dev.major == 254 && q.dev.minor == 0 && q.enable == 1 &&
	   !strcmp(q.ctrl, "auto") && q.has_params && near(q.rpct, 95) &&
	   q.rlat == 250000 && near(q.wpct, 95) && q.wlat == 250000 &&
	   near(q.min, 50) && near(q.max, 150), "qos: the kernel's line");

	ret = ctl_parse_qos_line(QOS_USER, &q);
	ok(ret == 0 && q.dev.major == 8 && q.dev.minor == 16 && q.enable == 0 &&
	   !strcmp(q.ctrl, "user") && near(q.min, 1.25) && near(q.max, 10000),
	   "qos: disabled, user control");

	ret = ctl_parse_qos_line("254:16 enable=1 ctrl=auto", &q);
	ok(ret == 0 && q.enable == 1 && !q.has_params, "qos: only enable and ctrl");

	ret = ctl_parse_qos_line(QOS_NEWKEY, &q);
	ok(ret == 0 && q.has_params && near(q.rpct, 95), "qos: an unknown key is skipped");

	check_refusals("qos", p_qos, bad_qos, ARRAY_SIZE(bad_qos));
}

static const struct refusal bad_devts[] = {
	{ "1:1048576", -ERANGE, "minor 2^20" },
	{ "99999999999999999999999:0", -ERANGE, "a huge major" },
	{ "", -EINVAL, "an empty string" },
	{ "254", -EINVAL, "a missing minor" },
	{ "254:", -EINVAL, "an empty minor" },
	{ ":0", -EINVAL, "an empty major" },
	{ "254:0 ", -EINVAL, "a trailing blank" },
	{ " 254:0", -EINVAL, "a leading blank" },
	{ "-1:0", -EINVAL, "a negative major" },
	{ "+1:0", -EINVAL, "a plus sign" },
	{ "0x10:0", -EINVAL, "hex" },
	{ "254:0:1", -EINVAL, "a third part" },
	{ "/dev/vda", -EINVAL, "a path" },
	{ "vda", -EINVAL, "a name" },
	{ "99999999999999999999999", -EINVAL, "a huge number without a minor" },
};

static void test_devt(void)
{
	struct ctl_devt d = { 7, 7 };

	ok(ctl_parse_devt("254:0", &d) == 0 && d.major == 254 && d.minor == 0, "devt: 254:0");
	ok(ctl_parse_devt("0:0", &d) == 0 && d.major == 0 && d.minor == 0, "devt: 0:0");
	ok(ctl_parse_devt("4095:1048575", &d) == 0 && d.major == 4095 && d.minor == 1048575,
	   "devt: the largest device number");
	d.major = 7;
	d.minor = 7;
	ok(ctl_parse_devt("4096:0", &d) == -ERANGE && d.major == 7,
	   "devt: major 4096 is out of range");
	check_refusals("devt", p_devt, bad_devts, ARRAY_SIZE(bad_devts));
}

static const struct refusal bad_models[] = {
	{ "abcdefghijklmnop bindings=1", -EINVAL, "a 16-character name" },
	{ "iocost_2x", -EINVAL, "a missing count" },
	{ "iocost_2x bindings=", -EINVAL, "an empty count" },
	{ "iocost_2x bindings=-1", -EINVAL, "a negative count" },
	{ "iocost_2x bindings=4294967296", -ERANGE, "a count beyond u32" },
	{ "iocost_2x binds=1", -EINVAL, "another key" },
	{ "iocost_2x bindings=1 x", -EINVAL, "trailing junk" },
	{ " bindings=1", -EINVAL, "a missing name" },
	{ "", -EINVAL, "an empty line" },
};

static void test_models(void)
{
	struct ctl_model m;

	ok(ctl_parse_model_line("iocost_2x bindings=0\n", &m) == 0 &&
	   !strcmp(m.name, "iocost_2x") && m.bindings == 0, "models: iocost_2x bindings=0");
	ok(ctl_parse_model_line("abcdefghijklmno bindings=4294967295", &m) == 0 &&
	   !strcmp(m.name, "abcdefghijklmno") && m.bindings == UINT32_MAX,
	   "models: a 15-character name, the largest count");
	check_refusals("models", p_model, bad_models, ARRAY_SIZE(bad_models));
}

static const struct refusal bad_bindings[] = {
	{ "254:0 model= mode=enforce", -EINVAL, "an empty model" },
	{ "254:0 iocost_2x mode=enforce", -EINVAL, "a missing key" },
	{ "254:0 model=a b mode=enforce", -EINVAL, "two words" },
	{ "5000:0 model=a mode=enforce", -ERANGE, "major 5000" },
	{ "254:0 model=iocost_2x", -EINVAL, "a missing mode (the format before shadow mode)" },
	{ "254:0 model=iocost_2x mode=", -EINVAL, "an empty mode" },
	{ "254:0 model=iocost_2x mode=bogus", -EINVAL, "an unknown mode" },
	{ "254:0 model=iocost_2x mode=Shadow", -EINVAL, "a mode in another case" },
	{ "254:0 model=iocost_2x mode=shadowy", -EINVAL, "a mode with a suffix" },
	{ "254:0 model=iocost_2x mode=enforceenforce", -EINVAL, "an over-long mode" },
	{ "254:0 mode=enforce model=iocost_2x", -EINVAL, "mode before model" },
	{ "254:0 model=iocost_2x mode=enforce mode=shadow", -EINVAL, "mode twice" },
	{ "254:0 model=iocost_2x mode=shadow extra=1", -EINVAL, "an extra key" },
	{ "254:0 model=iocost_2xmode=shadow", -EINVAL, "a missing blank" },
	{ "254:0 model=iocost_2x mode shadow", -EINVAL, "mode without =" },
};

static void test_bindings(void)
{
	struct ctl_binding b;

	ok(ctl_parse_binding_line("254:0 model=iocost_2x mode=enforce\n", &b) == 0 &&
	   b.dev.major == 254 && b.dev.minor == 0 && !strcmp(b.model, "iocost_2x") &&
	   b.mode == CTL_MODE_ENFORCE, "bindings: 254:0 model=iocost_2x mode=enforce");
	memset(&b, 0, sizeof(b));
	ok(ctl_parse_binding_line("8:16 model=ms2 mode=shadow", &b) == 0 &&
	   b.dev.major == 8 && b.dev.minor == 16 && !strcmp(b.model, "ms2") &&
	   b.mode == CTL_MODE_SHADOW, "bindings: 8:16 model=ms2 mode=shadow");
	ok(ctl_parse_binding_line("8:16 model=ms2 mode=shadow \x20\n", &b) == 0 &&
	   b.mode == CTL_MODE_SHADOW, "bindings: trailing blanks and a newline");
	check_refusals("bindings", p_binding, bad_bindings, ARRAY_SIZE(bad_bindings));
}

#define ENF "254:0 model=m mode=enforce registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0"
#define FB_KIND " fallback_kind=0"
#define FB_REST " fallback_caller=0 fallback_costp=0 fallback_args=0 fallback_blkg=0"
#define SHD "254:0 model=m mode=shadow registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0"

static const struct refusal bad_stats[] = {
	{
		"254:0 model=m mode=enforce registered=2 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-EINVAL, "registered=2"
	},
	{ "254:0 model=m mode=enforce registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0",
	  -EINVAL, "a missing vtime" },
	{
		"254:0 model=m mode=enforce registered=1 merges=0 charges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-EINVAL, "keys out of order"
	},
	{
		"254:0 model=m mode=enforce registered=1 charges=x merges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-EINVAL, "a non-number"
	},
	{
		"254:0 model=m mode=enforce registered=1 charges=18446744073709551616 merges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-ERANGE, "a count beyond u64"
	},
	{ ENF " more=1", -EINVAL, "an extra field" },
	{ ENF FB_KIND FB_REST, -EINVAL, "clone counters without learning" },
	{ ENF FB_REST FB_KIND " learning=0", -EINVAL, "clone counters out of order" },
	{ ENF FB_KIND FB_REST " learning=0 more=1", -EINVAL, "a field after the clone counters" },
	{ "254:0 model=iocost_2x mode=enforce", -EINVAL, "a bindings line" },
	{ "254:0 model=m registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0",
	  -EINVAL, "a missing mode (the format before shadow mode)" },
	{
		"254:0 model=m mode=bogus registered=1 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-EINVAL, "an unknown mode"
	},
	{
		"254:0 model=m registered=1 mode=enforce charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=0",
		-EINVAL, "mode after registered"
	},
	{ ENF " builtin=0 hist=0,0,0,0,0,0,0,0", -EINVAL, "builtin and hist on an enforce line" },
	{ ENF " builtin=0", -EINVAL, "builtin on an enforce line" },
	{ ENF " hist=0,0,0,0,0,0,0,0", -EINVAL, "hist on an enforce line" },
	{ SHD, -EINVAL, "a shadow line without builtin and hist" },
	{ SHD " builtin=5", -EINVAL, "a shadow line without hist" },
	{ SHD " hist=0,0,0,0,0,0,0,0", -EINVAL, "a shadow line without builtin" },
	{ SHD " hist=0,0,0,0,0,0,0,0 builtin=5", -EINVAL, "hist before builtin" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7", -EINVAL, "7 buckets" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7,8,9", -EINVAL, "9 buckets" },
	{ SHD " builtin=5 hist=", -EINVAL, "an empty hist" },
	{ SHD " builtin=5 hist=1,2,3,,5,6,7,8", -EINVAL, "an empty bucket" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7,8,", -EINVAL, "a trailing comma" },
	{ SHD " builtin=5 hist=1, 2,3,4,5,6,7,8", -EINVAL, "a blank in hist" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7,x", -EINVAL, "a non-number bucket" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7,-8", -EINVAL, "a negative bucket" },
	{ SHD " builtin=5 hist=1,2,3,4,5,6,7,18446744073709551616",
	  -ERANGE, "a bucket beyond u64" },
	{ SHD " builtin=18446744073709551616 hist=0,0,0,0,0,0,0,0", -ERANGE, "builtin beyond u64" },
	{ SHD " builtin= hist=0,0,0,0,0,0,0,0", -EINVAL, "an empty builtin" },
	{ SHD " builtin=5 hist=0,0,0,0,0,0,0,0 more=1", -EINVAL, "an extra field after hist" },
	{ SHD " builtin=5 hist=0,0,0,0,0,0,0,0 hist=0,0,0,0,0,0,0,0", -EINVAL, "hist twice" },
};

/* full lines of each mode, and the largest counts */
#define STATS_ENF "254:0 model=iocost_2x mode=enforce registered=1 charges=2048 merges=3 nodata=4 zero=5 clamped=6 vtime=6442450944\n"
#define STATS_MAX "8:0 model=m mode=enforce registered=0 charges=0 merges=0 nodata=0 zero=0 clamped=0 vtime=18446744073709551615"
#define STATS_SHD "254:16 model=iocost_2x mode=shadow registered=1 charges=20 merges=1 nodata=2 zero=0 clamped=0 vtime=6597069766 builtin=3298534883 hist=2,0,0,0,0,0,18,0"
#define CLONE " fallback_kind=1 fallback_caller=2 fallback_costp=3 fallback_args=4 fallback_blkg=5 learning=64"
#define STATS_SHD_MAX SHD " builtin=18446744073709551615 hist=1,2,3,4,5,6,7,18446744073709551615"

static void test_stats(void)
{
	struct ctl_stats s;
	double r = -1;

	ok(ctl_parse_stats_line(STATS_ENF, &s) == 0 && s.dev.major == 254 && s.dev.minor == 0 &&
	   !strcmp(s.model, "iocost_2x") && s.mode == CTL_MODE_ENFORCE &&
	   s.registered == 1 && s.charges == 2048 &&
	   s.merges == 3 && s.nodata == 4 && s.zero == 5 && s.clamped == 6 &&
	   s.vtime == 6442450944ULL && s.builtin == 0 &&
	   s.hist[0] == 0 && s.hist[7] == 0,
	   "stats: a full enforce line");
	ok(ctl_parse_stats_line(STATS_MAX, &s) == 0 && s.registered == 0 &&
	   s.vtime == UINT64_MAX,
	   "stats: unregistered, the largest vtime");
	ok(ctl_parse_stats_line(STATS_SHD "\n", &s) == 0 && s.dev.minor == 16 &&
	   s.mode == CTL_MODE_SHADOW &&
	   s.charges == 20 && s.vtime == 6597069766ULL && s.builtin == 3298534883ULL &&
	   s.hist[0] == 2 && s.hist[1] == 0 && s.hist[5] == 0 &&
	   s.hist[6] == 18 && s.hist[7] == 0,
	   "stats: a full shadow line");
	ok(ctl_parse_stats_line(STATS_SHD_MAX, &s) == 0 && s.builtin == UINT64_MAX &&
	   s.hist[0] == 1 && s.hist[3] == 4 && s.hist[6] == 7 &&
	   s.hist[7] == UINT64_MAX,
	   "stats: shadow, every bucket in its place, the largest counts");
	ok(ctl_parse_stats_line(ENF CLONE "\n", &s) == 0 && s.has_clone &&
	   s.fallback[0] == 1 && s.fallback[1] == 2 && s.fallback[2] == 3 &&
	   s.fallback[3] == 4 && s.fallback[4] == 5 && s.learning == 64,
	   "stats: an IPA-SRA clone kernel's enforce line, every reason in its place");
	ok(ctl_parse_stats_line(SHD " builtin=0 hist=0,0,0,0,0,0,0,0" CLONE, &s) == 0 &&
	   s.has_clone && s.mode == CTL_MODE_SHADOW && s.learning == 64,
	   "stats: a clone kernel's shadow line");
	ok(ctl_parse_stats_line(STATS_ENF, &s) == 0 && !s.has_clone,
	   "stats: no clone counters on other kernels");
	ok(ctl_parse_stats_line(SHD " builtin=0 hist=0,0,0,0,0,0,0,0 \x20\n", &s) == 0 &&
	   s.mode == CTL_MODE_SHADOW && s.builtin == 0,
	   "stats: shadow, nothing priced yet, trailing blanks");
	ok(absd(ctl_vtime_us(1ULL << 37) - 1e6) < 0.000001 &&
	   absd(ctl_vtime_us(137438953) - 1000.0) < 0.01,
	   "stats: 2^37 vtime is one second");
	check_refusals("stats", p_stats, bad_stats, ARRAY_SIZE(bad_stats));

	ctl_parse_stats_line(STATS_SHD, &s);
	ok(ctl_shadow_ratio(&s, &r) == 0 && near(r, 2.0),
	   "shadow ratio: model/builtin of the sums is %f", r);
	s.builtin = 0;
	r = -1;
	ok(ctl_shadow_ratio(&s, &r) == -EDOM && r == -1,
	   "shadow ratio: none while builtin is 0");
	s.mode = CTL_MODE_ENFORCE;
	s.builtin = 1;
	ok(ctl_shadow_ratio(&s, &r) == -EINVAL && r == -1,
	   "shadow ratio: none for an enforce line");
}

static void test_mode(void)
{
	static const char *const labels[CTL_HIST_BUCKETS] = {
		"builtin 0", "<1/4", "1/4-1/2", "1/2-0.9", "0.9-1.1", "1.1-2", "2-4", ">=4",
	};
	enum ctl_mode m = CTL_MODE_SHADOW;
	unsigned int i, same = 1;

	ok(ctl_parse_mode("enforce", &m) == 0 && m == CTL_MODE_ENFORCE, "mode: enforce");
	ok(ctl_parse_mode("shadow", &m) == 0 && m == CTL_MODE_SHADOW, "mode: shadow");
	m = CTL_MODE_SHADOW;
	ok(ctl_parse_mode("", &m) == -EINVAL && ctl_parse_mode("bogus", &m) == -EINVAL &&
	   ctl_parse_mode("ENFORCE", &m) == -EINVAL && ctl_parse_mode("shadow ", &m) == -EINVAL &&
	   ctl_parse_mode("enforc", &m) == -EINVAL && m == CTL_MODE_SHADOW,
	   "mode: empty, unknown, upper case, a trailing blank, a prefix are refused");
	ok(!strcmp(ctl_mode_name(CTL_MODE_ENFORCE), "enforce") &&
	   !strcmp(ctl_mode_name(CTL_MODE_SHADOW), "shadow"), "mode: names");
	for (i = 0; i < CTL_HIST_BUCKETS; i++)
		same &= ctl_hist_label(i) && !strcmp(ctl_hist_label(i), labels[i]);
	ok(same && !ctl_hist_label(CTL_HIST_BUCKETS), "hist: the 8 bucket labels, none beyond");
}

static void test_bind_line(void)
{
	struct ctl_devt d = { 254, 0 }, big = { 4095, 1048575 };
	struct ctl_binding b;
	char buf[64];
	int n;

	n = ctl_format_bind_line(buf, sizeof(buf), d, "iocost_2x", CTL_MODE_SHADOW);
	ok(n == (int)strlen(buf) && !strcmp(buf, "254:0 model=iocost_2x mode=shadow\n"),
	   "bind line: shadow: %.*s", n > 0 ? n - 1 : 0, buf);
	n = ctl_format_bind_line(buf, sizeof(buf), d, "iocost_2x", CTL_MODE_ENFORCE);
	ok(n == (int)strlen(buf) && !strcmp(buf, "254:0 model=iocost_2x mode=enforce\n"),
	   "bind line: enforce names its mode");
	ok(ctl_parse_binding_line(buf, &b) == 0 && b.mode == CTL_MODE_ENFORCE &&
	   !strcmp(b.model, "iocost_2x"), "bind line: the request has the readback's shape");
	n = ctl_format_bind_line(buf, sizeof(buf), d, NULL, CTL_MODE_ENFORCE);
	ok(n == (int)strlen(buf) && !strcmp(buf, "254:0 model=linear\n"),
	   "bind line: linear has no mode");
	n = ctl_format_bind_line(buf, sizeof(buf), big, "abcdefghijklmno", CTL_MODE_SHADOW);
	ok(n == (int)strlen(buf) &&
	   !strcmp(buf, "4095:1048575 model=abcdefghijklmno mode=shadow\n"),
	   "bind line: the longest line fits in 64 bytes (%d)", n);

	snprintf(buf, sizeof(buf), "untouched");
	ok(ctl_format_bind_line(buf, sizeof(buf), d, NULL, CTL_MODE_SHADOW) == -EINVAL,
	   "bind line: linear in shadow mode is refused");
	ok(ctl_format_bind_line(buf, sizeof(buf), d, "linear", CTL_MODE_ENFORCE) == -EINVAL,
	   "bind line: model=linear by name is refused (NULL is linear)");
	ok(ctl_format_bind_line(buf, sizeof(buf), d, "a b", CTL_MODE_ENFORCE) == -EINVAL &&
	   ctl_format_bind_line(buf, sizeof(buf), d, "", CTL_MODE_ENFORCE) == -EINVAL &&
	   ctl_format_bind_line(buf, sizeof(buf), d, "abcdefghijklmnop",
				CTL_MODE_SHADOW) == -EINVAL,
	   "bind line: a blank, an empty or a 16-character name is refused");
	ok(ctl_format_bind_line(buf, sizeof(buf), d, "m", (enum ctl_mode)7) == -EINVAL,
	   "bind line: a mode that is neither is refused");
	ok(ctl_format_bind_line(buf, sizeof(buf), (struct ctl_devt){ 4096, 0 }, "m",
				CTL_MODE_ENFORCE) == -EINVAL &&
	   ctl_format_bind_line(buf, sizeof(buf), (struct ctl_devt){ 0, 1048576 }, "m",
				CTL_MODE_ENFORCE) == -EINVAL,
	   "bind line: a device number out of range is refused");
	ok(!strcmp(buf, "untouched"), "bind line: refusals leave the buffer alone");
	ok(ctl_format_bind_line(buf, 10, d, "iocost_2x", CTL_MODE_SHADOW) == -ENOSPC,
	   "bind line: a short buffer is ENOSPC");
}

/*
 * @json must be valid JSON for python3 -m json.tool (tests/deps installs
 * python3): a missing python3 fails the check, it never passes it
 */
static void json_valid(const char *json, const char *what)
{
	FILE *f = popen("python3 -m json.tool >/dev/null 2>&1", "w");
	int st;

	if (!f) {
		ok(0, "%s is valid JSON: popen: %s", what, strerror(errno));
		return;
	}
	fputs(json, f);
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
		ok(0, "%s is valid JSON: python3 did not run (wait status %#x; %s)",
		   what, (unsigned int)st, "tests/deps installs it");
	else
		ok(WEXITSTATUS(st) == 0, "%s is valid JSON (python3 -m json.tool)", what);
}

/* an enforce and a shadow line, and their JSON */
#define JSON_ENF_LINE "254:0 model=iocost_2x mode=enforce registered=1 charges=16 merges=0 nodata=0 zero=0 clamped=0 vtime=137438953472"
#define JSON_ENF								\
	"{\"mode\":\"enforce\",\"registered\":true,\"charges\":16,"		\
	"\"merges\":0,\"nodata\":0,\"zero\":0,"					\
	"\"clamped\":0,\"vtime\":137438953472,\"vtime_us\":1000000.000,"	\
	"\"fallback\":null,\"learning\":null,"					\
	"\"builtin\":null,\"builtin_us\":null,\"ratio\":null,\"hist\":null}"

#define JSON_CLONE							\
	",\"fallback\":{\"kind\":1,\"caller\":2,\"costp\":3,"		\
	"\"args\":4,\"blkg\":5},\"learning\":64,"

#define JSON_SHD_LINE "254:0 model=iocost_2x mode=shadow registered=0 charges=20 merges=1 nodata=2 zero=0 clamped=0 vtime=6597069766 builtin=3298534883 hist=2,0,0,0,0,0,18,0"
#define JSON_SHD									\
	"{\"mode\":\"shadow\",\"registered\":false,\"charges\":20,"			\
	"\"merges\":1,\"nodata\":2,\"zero\":0,"						\
	"\"clamped\":0,\"vtime\":6597069766,\"vtime_us\":48000.000,"			\
	"\"fallback\":null,\"learning\":null,"						\
	"\"builtin\":3298534883,\"builtin_us\":24000.000,\"ratio\":2.000,\"hist\":["	\
	"{\"bucket\":\"builtin 0\",\"ios\":2},{\"bucket\":\"<1/4\",\"ios\":0},"		\
	"{\"bucket\":\"1/4-1/2\",\"ios\":0},{\"bucket\":\"1/2-0.9\",\"ios\":0},"	\
	"{\"bucket\":\"0.9-1.1\",\"ios\":0},{\"bucket\":\"1.1-2\",\"ios\":0},"		\
	"{\"bucket\":\"2-4\",\"ios\":18},{\"bucket\":\">=4\",\"ios\":0}]}"

/* the shadow line's JSON once builtin is 0 */
#define JSON_SHD_B0 "\"builtin\":0,\"builtin_us\":0.000,\"ratio\":null,\"hist\":["

/* ctl_stats_json() of @s, as text (free() it) */
static char *stats_json(const struct ctl_stats *s)
{
	struct json_writer w;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return strdup("");
	jsonw_init(&w, f);
	ctl_stats_json(&w, s);
	fclose(f);
	return buf;
}

static void test_stats_json(void)
{
	struct ctl_stats s;
	char *buf;

	ctl_parse_stats_line(JSON_ENF_LINE, &s);
	buf = stats_json(&s);
	ok(!strcmp(buf, JSON_ENF), "stats json: enforce: %s", buf);
	json_valid(buf, "stats json: enforce");
	free(buf);

	ctl_parse_stats_line(ENF CLONE, &s);
	buf = stats_json(&s);
	ok(strstr(buf, JSON_CLONE),
	   "stats json: a clone kernel's counters: %s", buf);
	free(buf);

	ctl_parse_stats_line(JSON_SHD_LINE, &s);
	buf = stats_json(&s);
	ok(!strcmp(buf, JSON_SHD), "stats json: shadow: %s", buf);
	json_valid(buf, "stats json: shadow");
	free(buf);

	s.builtin = 0;
	buf = stats_json(&s);
	ok(strstr(buf, JSON_SHD_B0),
	   "stats json: shadow with builtin 0: ratio null");
	json_valid(buf, "stats json: shadow with builtin 0");
	free(buf);
}

static void test_unbind_usage(void)
{
	const char *m;

	ok(!ctl_unbind_usage(0, 0, 1), "unbind usage: DEV");
	ok(!ctl_unbind_usage(1, 0, 0), "unbind usage: --all");
	ok(!ctl_unbind_usage(1, 1, 0), "unbind usage: --all --dry-run");
	m = ctl_unbind_usage(1, 0, 1);
	ok(m && strstr(m, "--all takes no DEV"), "unbind usage: --all DEV is refused: %s", m);
	m = ctl_unbind_usage(1, 1, 2);
	ok(m && strstr(m, "--all takes no DEV"),
	   "unbind usage: --all --dry-run DEV DEV is refused");
	m = ctl_unbind_usage(0, 0, 0);
	ok(m && !strcmp(m, "expected DEV or --all"), "unbind usage: nothing is refused: %s", m);
	m = ctl_unbind_usage(0, 0, 2);
	ok(m && !strcmp(m, "expected DEV or --all"), "unbind usage: two DEVs are refused");
	m = ctl_unbind_usage(0, 1, 1);
	ok(m && strstr(m, "--dry-run goes with --all"),
	   "unbind usage: --dry-run DEV is refused: %s", m);
	m = ctl_unbind_usage(0, 1, 0);
	ok(m && strstr(m, "--dry-run goes with --all"), "unbind usage: --dry-run alone is refused");
}

#define UB_MAX	8

/* the bindings file of one read: up to UB_MAX "MAJ:MIN model=NAME mode=M" lines */
static size_t bindings_of(struct ctl_binding *b, const char *const *lines)
{
	size_t n = 0;

	for (; *lines; lines++) {
		int ret = ctl_parse_binding_line(*lines, &b[n]);

		ok(ret == 0, "unbind --all: the test's bindings line parses: %s", *lines);
		if (!ret)
			n++;
	}
	return n;
}

/* fold the read @lines into @d; the number of disks to write */
static size_t merge(struct ctl_unbind_disk *d, size_t *nd,
		    const char *const *lines)
{
	struct ctl_binding b[UB_MAX];

	return ctl_unbind_merge(d, nd, b, bindings_of(b, lines));
}

static const struct ctl_unbind_disk *disk(const struct ctl_unbind_disk *d,
					  size_t nd, unsigned int major,
					  unsigned int minor)
{
	size_t i;

	for (i = 0; i < nd; i++)
		if (d[i].dev.major == major && d[i].dev.minor == minor)
			return &d[i];
	return NULL;
}

static void test_unbind_all(void)
{
	static const char *const none[] = { NULL };
	static const char *const two[] = { "254:0 model=iocost_2x mode=enforce",
					    "254:16 model=ms2 mode=shadow", NULL };
	static const char *const vdb[] = { "254:16 model=ms2 mode=shadow", NULL };
	static const char *const vdb_2x[] = { "254:16 model=iocost_2x mode=enforce", NULL };
	static const char *const three[] = { "254:0 model=iocost_2x mode=enforce",
					      "254:16 model=ms2 mode=shadow",
					      "251:0 model=ms2 mode=enforce", NULL };
	struct ctl_unbind_disk d[UB_MAX];
	const struct ctl_unbind_disk *x;
	char buf[160];
	size_t nd = 0, todo;

	/* nothing bound: nothing to do, nothing tracked */
	todo = merge(d, &nd, none);
	ok(todo == 0 && nd == 0, "unbind --all: nothing bound, nothing to do");

	/* two disks, both unbound in one pass, whatever their model */
	todo = merge(d, &nd, two);
	ok(todo == 2 && nd == 2 && d[0].state == CTL_UNBIND_TODO &&
	   d[1].state == CTL_UNBIND_TODO && !strcmp(d[0].model, "iocost_2x") &&
	   !strcmp(d[1].model, "ms2"), "unbind --all: two bound disks to write");
	ctl_unbind_result(&d[0], 0);
	ctl_unbind_result(&d[1], 0);
	ok(d[0].state == CTL_UNBIND_DONE && d[1].state == CTL_UNBIND_DONE,
	   "unbind --all: a write that succeeded is DONE");
	todo = merge(d, &nd, none);
	ok(todo == 0 && nd == 2 && d[0].state == CTL_UNBIND_DONE &&
	   d[1].state == CTL_UNBIND_DONE && !d[0].news && !d[1].news,
	   "unbind --all: the re-read is empty: done, no news");

	/* a bind raced: the disk is written again, its new model named */
	nd = 0;
	merge(d, &nd, two);
	ctl_unbind_result(&d[0], 0);
	ctl_unbind_result(&d[1], 0);
	todo = merge(d, &nd, vdb_2x);
	x = disk(d, nd, 254, 16);
	ok(todo == 1 && nd == 2 && x && x->state == CTL_UNBIND_TODO &&
	   !strcmp(x->model, "iocost_2x") && disk(d, nd, 254, 0)->state == CTL_UNBIND_DONE,
	   "unbind --all: a disk bound again meanwhile is written again, with its new model");

	/* a disk bound meanwhile for the first time is written too */
	nd = 0;
	merge(d, &nd, vdb);
	ctl_unbind_result(&d[0], 0);
	todo = merge(d, &nd, three);
	ok(todo == 3 && nd == 3 && disk(d, nd, 251, 0) &&
	   disk(d, nd, 251, 0)->state == CTL_UNBIND_TODO,
	   "unbind --all: a disk first bound between passes joins the next pass");

	/* ENODEV: gone if the re-read no longer lists it, else a failure */
	nd = 0;
	merge(d, &nd, two);
	ctl_unbind_result(&d[0], ENODEV);
	ctl_unbind_result(&d[1], ENODEV);
	ok(d[0].state == CTL_UNBIND_VANISHING && d[1].state == CTL_UNBIND_VANISHING,
	   "unbind --all: ENODEV waits for the re-read");
	todo = merge(d, &nd, vdb);
	x = disk(d, nd, 254, 0);
	ok(todo == 0 && x->state == CTL_UNBIND_GONE && x->news && !x->err &&
	   !strcmp(x->model, "iocost_2x"),
	   "unbind --all: ENODEV and no longer bound: the disk went away (news)");
	x = disk(d, nd, 254, 16);
	ok(x->state == CTL_UNBIND_FAILED && x->err == ENODEV && x->news,
	   "unbind --all: ENODEV and still bound: failed with ENODEV (news)");
	todo = merge(d, &nd, vdb);
	ok(todo == 0 && disk(d, nd, 254, 16)->state == CTL_UNBIND_FAILED,
	   "unbind --all: a failed disk is not retried");

	/* EACCES: failed at once, not retried, the others go on */
	nd = 0;
	merge(d, &nd, two);
	ctl_unbind_result(&d[0], EACCES);
	ctl_unbind_result(&d[1], 0);
	ok(d[0].state == CTL_UNBIND_FAILED && d[0].err == EACCES && !d[0].news,
	   "unbind --all: another errno fails the disk at once (the caller reports it)");
	todo = merge(d, &nd, vdb_2x);
	ok(todo == 1 && disk(d, nd, 254, 0)->state == CTL_UNBIND_FAILED &&
	   disk(d, nd, 254, 16)->state == CTL_UNBIND_TODO,
	   "unbind --all: the failed disk stays failed, a rebound one is retried");

	/* a new disk that took a gone disk's number, and was bound: written */
	nd = 0;
	merge(d, &nd, vdb);
	ctl_unbind_result(&d[0], ENODEV);
	merge(d, &nd, none);
	ok(d[0].state == CTL_UNBIND_GONE, "unbind --all: gone");
	d[0].news = 0;
	todo = merge(d, &nd, vdb_2x);
	ok(todo == 1 && d[0].state == CTL_UNBIND_TODO && !strcmp(d[0].model, "iocost_2x"),
	   "unbind --all: a disk bound under a gone disk's number is written");

	/* a disk to write that someone else unbound first: linear, done */
	nd = 0;
	merge(d, &nd, vdb);
	todo = merge(d, &nd, none);
	ok(todo == 0 && d[0].state == CTL_UNBIND_DONE,
	   "unbind --all: a disk unbound by someone else before its write is done");

	ok(strstr(ctl_unbind_explain(ENODEV, 5, buf, sizeof(buf)), "still bound"),
	   "unbind explain: ENODEV of a disk still bound: %s", buf);
	ok(strstr(ctl_unbind_explain(EBUSY, 5, buf, sizeof(buf)), "each of 5 passes"),
	   "unbind explain: EBUSY names the passes: %s", buf);
	ok(!strcmp(ctl_unbind_explain(EACCES, 5, buf, sizeof(buf)), "need root (CAP_SYS_ADMIN)"),
	   "unbind explain: EACCES needs root");
	ok(!ctl_unbind_explain(ENOENT, 5, buf, sizeof(buf)),
	   "unbind explain: nothing for ENOENT (the module's hint instead)");
	ok(!ctl_unbind_explain(EIO, 5, buf, sizeof(buf)), "unbind explain: nothing for EIO");
}

static int name_ok(const char *name)
{
	return iocost_name_valid(name, strlen(name) + 1);
}

static void test_misc(void)
{
	char buf[160];

	/* the module's rule (src/parse.c), called on a C string as iocostctl does */
	ok(name_ok("iocost_2x"), "name: iocost_2x is valid");
	ok(name_ok("abcdefghijklmno"), "name: 15 characters are valid");
	ok(!name_ok("abcdefghijklmnop"), "name: 16 characters are not");
	ok(!name_ok(""), "name: empty is not");
	ok(!name_ok("linear"), "name: linear is not");
	ok(name_ok("linea") && name_ok("linear2"), "name: linea and linear2 are");
	ok(!name_ok("a b"), "name: a blank is not");
	ok(!name_ok("a\tb"), "name: a tab is not");
	ok(!name_ok("caf\xc3\xa9"), "name: non-ASCII is not");

	ok(!strcmp(ctl_bind_explain(ENOENT, "iocost_2x", buf, sizeof(buf)),
		   "no model named iocost_2x is registered"), "explain: ENOENT names the model");
	ok(strstr(ctl_bind_explain(ENODEV, NULL, buf, sizeof(buf)), "partition"),
	   "explain: ENODEV mentions partitions");
	ok(strstr(ctl_bind_explain(EINVAL, "x", buf, sizeof(buf)), "malformed"),
	   "explain: EINVAL is malformed");
	ok(strstr(ctl_bind_explain(ERANGE, "x", buf, sizeof(buf)), "out of range"),
	   "explain: ERANGE is out of range");
	ok(!strcmp(ctl_bind_explain(EPERM, "x", buf, sizeof(buf)), "need root (CAP_SYS_ADMIN)") &&
	   !strcmp(ctl_bind_explain(EACCES, "x", buf, sizeof(buf)), "need root (CAP_SYS_ADMIN)"),
	   "explain: EPERM and EACCES need root");
	ok(!ctl_bind_explain(EIO, "x", buf, sizeof(buf)), "explain: nothing for EIO");
}

int main(void)
{
	test_tick();
	test_qos();
	test_devt();
	test_models();
	test_bindings();
	test_stats();
	test_mode();
	test_bind_line();
	test_stats_json();
	test_unbind_usage();
	test_unbind_all();
	test_misc();
	return tap_done();
}
