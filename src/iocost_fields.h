/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_fields.h - private kernel struct fields read by the module, listed
 * once for iocost-btfgen (btfgen.c: their offsets, from the target
 * kernel's BTF) and the module (the names of the missing ones)
 *
 * A list, not a header with a guard: as with include/linux/bpf_types.h, a
 * file defines what an entry expands to, includes this file, and undefines
 * it again.  Each group is expanded only where its macro is defined.  Pure
 * C with no includes: btfgen.c is a host tool, tick.c module code.
 *
 * IOCOST_TICK_FIELD(MACRO, type, path, size): a field the iocost_ioc_tick
 *	event reads (tick.c), optional: IOCOST_OFF_MACRO is the offset of
 *	member @path (dot-separated) in struct @type, -1 when it is missing
 *	or not @size bytes (0: any size), and IOCOST_SIZE_MACRO its size.
 */
#ifdef IOCOST_TICK_FIELD
IOCOST_TICK_FIELD(IOC_DISK, ioc, rqos.disk, 8)
IOCOST_TICK_FIELD(IOC_LOCK, ioc, lock, 0)
IOCOST_TICK_FIELD(IOC_TIMER, ioc, timer, 0)
IOCOST_TICK_FIELD(IOC_ACTIVE_IOCGS, ioc, active_iocgs, 16)
IOCOST_TICK_FIELD(IOC_RUNNING, ioc, running, 4)
IOCOST_TICK_FIELD(IOC_VTIME_BASE_RATE, ioc, vtime_base_rate, 8)
IOCOST_TICK_FIELD(IOC_PERIOD_US, ioc, period_us, 4)
IOCOST_TICK_FIELD(IOC_PERIOD_AT, ioc, period_at, 8)
IOCOST_TICK_FIELD(IOC_CUR_PERIOD, ioc, cur_period, 8)
IOCOST_TICK_FIELD(IOC_BUSY_LEVEL, ioc, busy_level, 4)
IOCOST_TICK_FIELD(IOCG_ACTIVE_LIST, ioc_gq, active_list, 16)
IOCOST_TICK_FIELD(IOCG_PCPU_STAT, ioc_gq, pcpu_stat, 8)
IOCOST_TICK_FIELD(IOCG_LAST_ABS_VUSAGE, ioc_gq, last_stat_abs_vusage, 8)
IOCOST_TICK_FIELD(IOCG_PCPU_ABS_VUSAGE, iocg_pcpu_stat, abs_vusage, 8)
#endif
