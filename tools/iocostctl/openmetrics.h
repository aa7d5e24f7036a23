/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openmetrics.h - iocostctl status --format openmetrics, as pure code
 *
 * status.c gathers what iocostctl status shows (the models, the bindings,
 * the stats lines, the root cgroup's io.cost.qos and io.stat's cost.vrate)
 * and hands it here; ctl_openmetrics() prints it as OpenMetrics 1.0 text.
 * No file is touched, so tests/unit/test_openmetrics.c runs it on the
 * host.  The metric families are listed in iocostctl(8).
 */
#ifndef _IOCOSTCTL_OPENMETRICS_H
#define _IOCOSTCTL_OPENMETRICS_H

#include <stdio.h>
#include "ctlparse.h"

/* a device of status: iocost configured on it, bound, or in the stats */
struct ctl_dev_row {
	struct ctl_devt dev;
	char name[CTL_DISK_NAME_LEN];	/* "vda", or "" if unknown */
	const struct ctl_qos *qos;	/* its io.cost.qos line, or NULL */
	const struct ctl_binding *bind;	/* its binding, or NULL */
	const struct ctl_stats *stats;	/* its stats line, or NULL */
	int has_vrate;			/* io.stat had its cost.vrate */
	u32 vrate;			/* that, in hundredths of a percent */
};

struct ctl_om_input {
	const struct ctl_model *models;
	const int *pinned;	/* per model: 1 pinned, 0 not, -1 unknown */
	size_t nmodels;
	const struct ctl_dev_row *rows;
	size_t nrows;
};

/*
 * Print @in to @out as OpenMetrics text, ending in "# EOF".  The whole
 * text is built first: on an error nothing is written to @out.  Returns
 * 0; -EINVAL for input it cannot print (a device twice, a label value
 * with a byte that is not printable ASCII), with the reason in @err
 * (size @errsize); -ENOMEM; -EIO if writing @out failed.
 */
int ctl_openmetrics(FILE *out, const struct ctl_om_input *in, char *err,
		    size_t errsize);

/*
 * The OpenMetrics label value escape of @s into @buf (size @size): a
 * backslash before a backslash or a double quote, a newline as backslash
 * and n.  Returns 0,
 * -EINVAL for another byte below 0x20 or above 0x7e, -ENOSPC if it does
 * not fit.
 */
int ctl_om_escape(char *buf, size_t size, const char *s);

/*
 * The HELP text of the stats counter @name (src/iocost_stats.h), or NULL
 * if it has none here (then the family's HELP only names the counter).
 */
const char *ctl_om_counter_help(const char *name);

#endif /* _IOCOSTCTL_OPENMETRICS_H */
