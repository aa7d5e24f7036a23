/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testhooks.h - fault-injection and delay hooks of the test build
 *
 * Some defects can only be reached by chance on a real host: a task
 * migrating between two instructions, an event enabled in the microseconds
 * before module_init(), a bind racing a work item.  The VM tests reach
 * them on purpose through these hooks.  They exist only in the test build
 * (Kbuild defines IOCOST_TEST_BUILD for IOCOST_TEST=1, which make vm-build
 * sets and DKMS's `make module` never does); in every other build each
 * hook is the constant 0 and the code behind it is compiled out.
 *
 * The module parameters (0644, main.c), all 0 by default:
 *   clone_fault    clone.c's per-bio checks (bits, see clone.c)
 *   caller_fault   bit K: the caller scan ignores caller K's calls, as if
 *                  the compiler had inlined the pricing function there
 *   tick_fault     tick.c: N > 0 makes the event's Nth private field
 *                  missing, as on a kernel whose BTF lacks it
 *   shadow_fault   devctx.c: 1 makes mode=shadow refused, as on a kernel
 *                  whose BTF lacks blk-iocost's coefficients or cursor
 *   init_delay_ms  module init sleeps this long after the trace events
 *                  exist and before the tick event's filter is set
 *   bind_delay_ms  a bind sleeps this long before it takes iocost_lock
 *   rt_block_ms    PREEMPT_RT: a write of N makes a work item hold a
 *                  spinlock_t (a sleeping lock there) for N ms; meanwhile
 *                  the pricing handler (after the model) and the tick
 *                  handler (under ioc->lock's RCU read side) take it too,
 *                  and block, as a model or ioc->lock may; rt_blocked
 *                  says how many do now, rt_blocked_at_unreg how many did
 *                  when ftrace ops were last unregistered
 */
#ifndef _IOCOST_TESTHOOKS_H
#define _IOCOST_TESTHOOKS_H

#ifdef IOCOST_TEST_BUILD
extern unsigned int iocost_clone_fault, iocost_caller_fault, iocost_tick_fault;
extern unsigned int iocost_shadow_fault;
extern unsigned int iocost_init_delay_ms, iocost_bind_delay_ms;
/* a hook's value: READ_ONCE() of its parameter, 0 outside the test build */
#define IOCOST_TEST_HOOK(name) READ_ONCE(iocost_ ## name)
#else
#define IOCOST_TEST_HOOK(name) ((void)sizeof(#name), 0U)
#endif

#if defined(IOCOST_TEST_BUILD) && defined(CONFIG_PREEMPT_RT)
void iocost_test_block(void);
void iocost_test_unregistering(void);
void iocost_test_exit(void);
#else
static inline void iocost_test_block(void)
{
}

static inline void iocost_test_unregistering(void)
{
}

static inline void iocost_test_exit(void)
{
}
#endif

#endif /* _IOCOST_TESTHOOKS_H */
