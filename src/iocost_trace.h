/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_trace.h - the iocost_ioc_tick trace event (system iocost_bpf)
 *
 * One event per blk-iocost controller period and device, with the state
 * the period ran in; see tick.c for where each field comes from.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM iocost_bpf

#if !defined(_IOCOST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IOCOST_TRACE_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

int iocost_tick_reg(void);
void iocost_tick_unreg(void);

TRACE_EVENT_FN(iocost_ioc_tick,
	       TP_PROTO(const char *devname, dev_t dev, u64 period,
			u32 period_us, u64 elapsed_us, u64 vrate,
			int busy_level, u32 nr_active, u32 usage_pct,
			int running),
	       TP_ARGS(devname, dev, period, period_us, elapsed_us, vrate,
		       busy_level, nr_active, usage_pct, running),
	       TP_STRUCT__entry(__array(char, devname, DISK_NAME_LEN)
				__field(dev_t, dev)
				__field(u64, period)
				__field(u32, period_us)
				__field(u64, elapsed_us)
				__field(u64, vrate)
				__field(int, busy_level)
				__field(u32, nr_active)
				__field(u32, usage_pct)
				__field(int, running)),
	       TP_fast_assign(strscpy(__entry->devname, devname, DISK_NAME_LEN);
			      __entry->dev = dev;
			      __entry->period = period;
			      __entry->period_us = period_us;
			      __entry->elapsed_us = elapsed_us;
			      __entry->vrate = vrate;
			      __entry->busy_level = busy_level;
			      __entry->nr_active = nr_active;
			      __entry->usage_pct = usage_pct;
			      __entry->running = running;),
	       TP_printk("[%s] period=%llu:%uus vrate=%llu busy=%d active=%u usage=%u%% running=%d",
			 __entry->devname, __entry->period, __entry->period_us,
			 __entry->vrate, __entry->busy_level, __entry->nr_active,
			 __entry->usage_pct, __entry->running),
	       iocost_tick_reg, iocost_tick_unreg);

#endif /* _IOCOST_TRACE_H */

/* This part must be outside the multi-read protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE iocost_trace
#include <trace/define_trace.h>
