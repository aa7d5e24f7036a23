/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctlparse.h - pure parsers and formatters of iocostctl
 *
 * Everything iocostctl reads from the kernel goes through these functions:
 * the lines of /sys/kernel/iocost_bpf/{models,bindings,stats}, of the root
 * cgroup's io.cost.qos and of the iocost_ioc_tick trace event, and the
 * MAJ:MIN device numbers of the command line.  They touch no file and
 * keep no state, so tests/unit/test_ctlparse.c runs them on the host.
 * The rules iocostctl shares with the module (model names, MAJ:MIN and
 * its limits) are the module's own: src/parse.c, built in here too.
 *
 * Every parser takes one line (a trailing newline is allowed), returns 0 or
 * a negative errno (-EINVAL malformed, -ERANGE a number out of range) and
 * fills its result only on success.
 */
#ifndef _IOCOSTCTL_CTLPARSE_H
#define _IOCOSTCTL_CTLPARSE_H

#include <stddef.h>
#include "../../src/parse.h"	/* u32, u64; include/iocost_model.h */
#include "json.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define CTL_DISK_NAME_LEN	32	/* the kernel's DISK_NAME_LEN */

/* the 100% vrate: blk-iocost's VTIME_PER_USEC (IOCOST_VTIME_PER_SEC / 1e6) */
#define CTL_VRATE_100		137438ULL

struct ctl_devt {
	unsigned int major, minor;
};

/* "NAME bindings=N" */
struct ctl_model {
	char name[IOCOST_MODEL_NAME_LEN];
	unsigned int bindings;
};

/*
 * How a binding prices: enforce charges the model's price, shadow calls
 * the model for every bio but charges the builtin's price, and counts how
 * the two compare.
 */
enum ctl_mode {
	CTL_MODE_ENFORCE,
	CTL_MODE_SHADOW,
};

/* "MAJ:MIN model=NAME mode=enforce|shadow" */
struct ctl_binding {
	struct ctl_devt dev;
	char model[IOCOST_MODEL_NAME_LEN];
	enum ctl_mode mode;
};

/*
 * The buckets of a shadow binding's per-IO model/builtin price ratio:
 * H0 the builtin priced the bio 0 (flushes, discards), H1 < 1/4,
 * H2 [1/4, 1/2), H3 [1/2, 9/10), H4 [9/10, 11/10], H5 (11/10, 2),
 * H6 [2, 4), H7 >= 4.
 */
#define CTL_HIST_BUCKETS	IOCOST_NR_HIST	/* src/iocost_stats.h */

/*
 * enforce: "MAJ:MIN model=NAME mode=enforce registered=0|1 charges=N
 * merges=N nodata=N zero=N clamped=N vtime=N"; shadow: the same with
 * mode=shadow and " builtin=N hist=H0,H1,H2,H3,H4,H5,H6,H7" after vtime.
 * charges..vtime count the model's prices (in shadow mode, what enforcing
 * would have charged); builtin is the sum of the builtin's prices of the
 * same bios (what was charged).  builtin and hist are 0 on enforce lines.
 * On kernels hooked through the IPA-SRA clone (src/clone.c) both end with
 * " fallback_kind=N fallback_caller=N fallback_costp=N fallback_args=N
 * fallback_blkg=N learning=N" (has_clone 1): the bios left to the builtin,
 * by reason, and those it priced while the registers were learned.
 */
enum {
#define IOCOST_FALLBACK(reason) CTL_FB_##reason
#include "../../src/iocost_stats.h"
#undef IOCOST_FALLBACK
	CTL_NR_FALLBACK
};

struct ctl_stats {
	struct ctl_devt dev;
	char model[IOCOST_MODEL_NAME_LEN];
	enum ctl_mode mode;
	int registered;
	/* the module's counters, from its list: charges..vtime, builtin, learning */
#define IOCOST_STAT(name) u64 name
#define IOCOST_STAT_SHADOW(name) u64 name
#define IOCOST_STAT_CLONE(name) u64 name
#include "../../src/iocost_stats.h"
#undef IOCOST_STAT
#undef IOCOST_STAT_SHADOW
#undef IOCOST_STAT_CLONE
	u64 hist[CTL_HIST_BUCKETS];
	int has_clone;
	u64 fallback[CTL_NR_FALLBACK];
};

/* the reasons of fallback[], from the module's list (fallback_NAME=) */
extern const char *const ctl_fallback_names[CTL_NR_FALLBACK];

/*
 * "MAJ:MIN enable=1 ctrl=auto rpct=95.00 rlat=250000 wpct=95.00 wlat=250000
 * min=50.00 max=150.00"; enable and ctrl are required, unknown keys are
 * skipped (a newer kernel may add some), a key left out keeps has_* 0.
 */
struct ctl_qos {
	struct ctl_devt dev;
	int enable;
	char ctrl[8];			/* "auto" or "user" */
	int has_params;			/* rpct..max all present */
	double rpct, wpct, min, max;	/* percent */
	u64 rlat, wlat;		/* us */
};

/*
 * One iocost_ioc_tick event: "[DEV] period=N:USus vrate=V busy=B active=A
 * usage=U% running=R", alone or as a trace_pipe line
 * ("<task>-<pid> [cpu] flags TIMESTAMP: iocost_ioc_tick: " before it).
 */
struct ctl_tick {
	char dev[CTL_DISK_NAME_LEN];
	u64 period;
	u32 period_us;
	u64 vrate;
	int busy;
	u32 active;
	u32 usage;
	int running;
	int has_ts;		/* the line had a trace_pipe prefix */
	double ts;		/* its timestamp, seconds */
};

int ctl_parse_devt(const char *s, struct ctl_devt *dev);
int ctl_parse_model_line(const char *line, struct ctl_model *m);
int ctl_parse_binding_line(const char *line, struct ctl_binding *b);
int ctl_parse_stats_line(const char *line, struct ctl_stats *st);
int ctl_parse_qos_line(const char *line, struct ctl_qos *q);
int ctl_parse_tick(const char *line, struct ctl_tick *t);

/*
 * A line of the root cgroup's io.stat: "MAJ:MIN KEY=VALUE ...", where
 * blk-iocost adds " cost.vrate=P.PP" (the controller's vrate, percent)
 * for a device with iocost enabled.  @vrate gets it in hundredths of a
 * percent (10000: 100%); -ENOENT for a line without cost.vrate, -EINVAL
 * for a malformed device or cost.vrate value, -ERANGE past UINT32_MAX.
 */
int ctl_parse_iostat_vrate(const char *line, struct ctl_devt *dev, u32 *vrate);

/* the output formats of status */
enum ctl_format {
	CTL_FORMAT_TEXT,
	CTL_FORMAT_JSON,
	CTL_FORMAT_OPENMETRICS,
};

/* "text", "json" or "openmetrics" (the whole string): 0, else -EINVAL */
int ctl_parse_format(const char *s, enum ctl_format *format);

/* "enforce" or "shadow" (the whole string) into @mode: 0, else -EINVAL */
int ctl_parse_mode(const char *s, enum ctl_mode *mode);

/* "enforce" or "shadow" */
const char *ctl_mode_name(enum ctl_mode mode);

/* the label of histogram bucket @i ("builtin 0", "<1/4", ... ">=4"), or NULL */
const char *ctl_hist_label(unsigned int i);

/*
 * The model/builtin ratio of a shadow binding's sums (vtime / builtin)
 * into @ratio: 0, or -EINVAL for an enforce line, -EDOM while builtin is 0.
 */
int ctl_shadow_ratio(const struct ctl_stats *st, double *ratio);

/*
 * The bindings request of @dev in @buf (size @size), newline included:
 * "MAJ:MIN model=MODEL mode=enforce|shadow", or "MAJ:MIN model=linear"
 * for @model NULL (the module refuses a mode with linear).  Returns its
 * length; -EINVAL for an invalid model name or device number, or a mode
 * other than enforce with linear; -ENOSPC if it does not fit.
 */
int ctl_format_bind_line(char *buf, size_t size, struct ctl_devt dev,
			 const char *model, enum ctl_mode mode);

/*
 * The "stats" object of status --json for @st, as the next value of @w.
 * Shadow lines add builtin, builtin_us, ratio (null while builtin is 0)
 * and hist, an array of {"bucket": LABEL, "ios": N}; enforce lines have
 * those null.
 */
void ctl_stats_json(struct json_writer *w, const struct ctl_stats *st);

/* "idle", "running", "stop" or "unknown" for a tick's running field */
const char *ctl_tick_state(int running);

/* vrate as a percentage of the nominal rate */
double ctl_vrate_pct(u64 vrate);

/* vtime in microseconds (2^37 vtime = 1 s) */
double ctl_vtime_us(u64 vtime);

/*
 * Explain the errno @err (positive) of a bindings write for model @model
 * (NULL for model=linear) in @buf: docs/USAGE.md, "The control files".
 * Returns @buf, or NULL for an errno without an explanation.
 */
const char *ctl_bind_explain(int err, const char *model, char *buf,
			     size_t size);

/*
 * The operands of unbind: NULL if --all (@all), --dry-run (@dry_run) and
 * @ndev DEV operands go together (one DEV, or --all [--dry-run] without
 * one), else the message of the usage error.
 */
const char *ctl_unbind_usage(int all, int dry_run, int ndev);

/*
 * unbind --all, pass by pass: the disks it has seen bound and what became
 * of each.  Every pass reads the bindings file, folds it in with
 * ctl_unbind_merge(), writes "MAJ:MIN model=linear" for every disk left
 * CTL_UNBIND_TODO and records each write's outcome with
 * ctl_unbind_result(); it stops when a merge leaves nothing to do, or
 * after a bounded number of passes (a bind can race with it).
 */
enum ctl_unbind_state {
	CTL_UNBIND_TODO,	/* bound: to be written back to linear */
	CTL_UNBIND_DONE,	/* written: back to linear */
	CTL_UNBIND_VANISHING,	/* the write said ENODEV: the disk may be going */
	CTL_UNBIND_GONE,	/* the disk went away, and its binding with it */
	CTL_UNBIND_FAILED,	/* refused with err: not retried */
};

struct ctl_unbind_disk {
	struct ctl_devt dev;
	char model[IOCOST_MODEL_NAME_LEN];	/* its model when last seen bound */
	enum ctl_unbind_state state;
	int err;			/* the positive errno of FAILED */
	int news;			/* a merge made it GONE or FAILED */
};

/*
 * Fold the @nb bindings @b just read into the *@nd disks @d (room for
 * *@nd + @nb): a disk not seen before is TODO; a DONE or GONE disk that is
 * bound again (a bind raced, or a new disk took the number) is TODO again;
 * a VANISHING disk is GONE once it is no longer bound, else FAILED with
 * ENODEV; a FAILED disk stays FAILED.  Returns the number of TODO disks.
 */
size_t ctl_unbind_merge(struct ctl_unbind_disk *d, size_t *nd,
			const struct ctl_binding *b, size_t nb);

/* the outcome of a TODO disk's write: 0, or its positive errno */
void ctl_unbind_result(struct ctl_unbind_disk *d, int err);

/*
 * Explain the errno @err (positive) of unbind --all on one disk in @buf:
 * ENODEV of a disk that stays bound, EBUSY of one that is bound again in
 * every pass (@passes), else ctl_bind_explain()'s.  NULL if none.
 */
const char *ctl_unbind_explain(int err, unsigned int passes, char *buf,
			       size_t size);

#endif /* _IOCOSTCTL_CTLPARSE_H */
