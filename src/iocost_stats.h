/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_stats.h - a binding's scalar u64 counters, in the order of their
 * "name=N" fields on a line of /sys/kernel/iocost_bpf/stats
 *
 * A list, not a header with a guard: as with include/linux/bpf_types.h, a
 * file defines what an entry expands to, includes this file, and undefines
 * it again; it may do so several times (IOCOST_NR_HIST, the one constant
 * here, is defined by the first).  Each group below is expanded only
 * where its macro is defined.  Every entry ends in ';', so that an entry
 * can expand to a member declaration or to a statement.  Pure C with no
 * includes: the module (struct iocost_stats in iocost_bpf.h, the stats
 * line in ctl.c) and user space (a parser of that line) expand the same
 * list.
 *
 * IOCOST_STAT(name): on every line, after "registered=0|1"
 * IOCOST_STAT_SHADOW(name): on shadow-mode lines only, after the above
 *	and before " hist=H0,...,H7" (IOCOST_NR_HIST buckets)
 * IOCOST_STAT_CLONE(name): on kernels hooked through the IPA-SRA clone
 *	only, at the end of the line, after " fallback_REASON=N" for each
 *	fallback reason (IOCOST_NR_FALLBACK of them)
 * IOCOST_FALLBACK(reason): those reasons, in order.  These entries end
 *	in ',' instead: they expand to enumerators (IOCOST_FB_##reason, as
 *	uapi/linux/bpf.h's BPF_FUNC_##name) or to an array's initializers.
 */

/* the buckets of a shadow line's " hist=H0,...,H7" */
#ifndef IOCOST_NR_HIST
#define IOCOST_NR_HIST 8
#endif

#ifdef IOCOST_STAT
/* bios priced by the model */
IOCOST_STAT(charges);
/* of which merges (IOCOST_COST_F_MERGE) */
IOCOST_STAT(merges);
/* of which bios without data (flushes): the builtin prices them 0 */
IOCOST_STAT(nodata);
/* data bios the model priced at 0 */
IOCOST_STAT(zero);
/* prices above IOCOST_VTIME_PER_SEC, charged as that */
IOCOST_STAT(clamped);
/* total vtime of the model's prices (charged unless shadow mode) */
IOCOST_STAT(vtime);
#endif

#ifdef IOCOST_STAT_SHADOW
/* total vtime of the builtin's prices of the same bios, charged */
IOCOST_STAT_SHADOW(builtin);
#endif

#ifdef IOCOST_STAT_CLONE
/* bios the builtin priced while the registers' mapping was learned */
IOCOST_STAT_CLONE(learning);
#endif

#ifdef IOCOST_FALLBACK
/* the caller's kind is not is_merge */
IOCOST_FALLBACK(kind),
/* the return address is not one of the caller's calls */
IOCOST_FALLBACK(caller),
/* costp is not on the task's stack */
IOCOST_FALLBACK(costp),
/* the registers are not the bio's fields */
IOCOST_FALLBACK(args),
/* iocg is not the bio's blkg's */
IOCOST_FALLBACK(blkg),
#endif
