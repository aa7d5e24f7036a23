// SPDX-License-Identifier: GPL-2.0
/*
 * tick.c - observability: ioc_timer_fn -> snapshot -> iocost_ioc_tick
 *
 * blk-iocost's own trace events fire on state changes only, so a steady
 * controller is silent.  iocost_ioc_tick (system iocost_bpf, defined in
 * iocost_trace.h) fires once per controller period on every device where
 * iocost runs, with the state that period ran in:
 *
 *   [DEV] period=N:USus vrate=V busy=B active=A usage=U% running=R
 *
 * The controller's timer function, ioc_timer_fn(), runs once at the end of
 * every period, including the last one before the controller goes idle.
 * While the event is enabled (and only then: the event's reg/unreg
 * callbacks attach and detach it, and an enabled event holds a reference
 * on the module), an ftrace handler runs at the entry of
 * that function, before it changes anything, and reads the struct ioc the
 * timer belongs to:
 *
 *  period	ioc->cur_period, the number of the period that just ended
 *		(the timer increments it at its end)
 *  period_us	ioc->period_us, the period length the QoS settings give
 *  elapsed_us	now - ioc->period_at: the measured length of this period
 *  vrate	ioc->vtime_base_rate (100% = VTIME_PER_USEC = 137438)
 *  busy	ioc->busy_level
 *  active	the iocgs on ioc->active_iocgs
 *  usage	the vtime those iocgs were charged in this period (per-cpu
 *		abs_vusage minus the value the last period's flush recorded,
 *		what io.stat's cost.usage will add), converted to us at the
 *		base vrate as the timer does, in percent of elapsed_us
 *  running	ioc->running: 0 idle, 1 running, 2 stopped
 *
 * The active list is walked under ioc->lock, taken exactly as the timer
 * function takes it right after us; the ioc cannot go away while its timer
 * runs.  struct ioc and struct ioc_gq are private to block/blk-iocost.c:
 * every offset comes from the target kernel's BTF at build time (btfgen.c,
 * sizes checked), and a missing one disables the event with a log line.
 *
 * The handler does its own recursion protection: it only ever runs at the
 * entry of ioc_timer_fn(), which nothing it calls can reach.  It does not
 * disable preemption, so on PREEMPT_RT it may take ioc->lock (a sleeping
 * lock there) in the timer's thread; if ftrace calls it with preemption
 * disabled (another ftrace user on the same function), a tick is dropped
 * and counted instead.
 *
 * Teardown.  unregister_ftrace_function() waits for RCU-tasks only, which
 * takes a task blocked on a sleeping lock for quiescent, and then frees
 * the ops' trampoline; a handler blocked on ioc->lock would return into
 * freed memory, or into freed module text after the module reference is
 * dropped.  So everything the handler does runs inside an RCU read side
 * and only while iocost_tick_on is set: iocost_tick_unreg() clears it and
 * waits for a grace period before it unregisters, and again before it
 * drops the module reference.
 *
 * The event exists from MODULE_STATE_COMING on, before module_init(): an
 * enable that arrives before iocost_tick_init() has set the ftrace filter
 * (a cached ":mod:iocost_bpf" in set_event does) is refused like one on a
 * kernel the event cannot work on, or the ops would trace every function.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <asm/local64.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include "iocost_bpf.h"

#define CREATE_TRACE_POINTS
#include "iocost_trace.h"

#define IOCOST_TICK_TARGET "ioc_timer_fn"

/* a field of a private struct at its BTF-derived offset */
#define PRIV(ptr, type, off) (*(type *)((char *)(ptr) + (off)))

/* the private fields the handler reads, to name a missing one */
static const struct {
	const char *name;
	long off;
	int size;	/* 0 or the size btfgen required of it: for the log */
} iocost_tick_fields[] = {
#define IOCOST_TICK_FIELD(macro, type, path, size) \
	{ #type "." #path, IOCOST_OFF_ ## macro, size },
#include "iocost_fields.h"
#undef IOCOST_TICK_FIELD
};

/*
 * why the event cannot be enabled on this kernel, NULL if it can; until
 * iocost_tick_init() has set the filter, it cannot
 */
static const char *iocost_tick_unavailable = "the module is still loading";
/* the handler may do its work (see the header comment) */
static bool iocost_tick_on;
static atomic_long_t iocost_ticks_dropped;

/* the vtime an active iocg was charged since the last flush */
static u64 iocost_iocg_period_vusage(void *iocg)
{
	void __percpu *pcpu = PRIV(iocg, void __percpu *, IOCOST_OFF_IOCG_PCPU_STAT);
	u64 abs_vusage = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		char *stat = per_cpu_ptr(pcpu, cpu);

		abs_vusage += local64_read((local64_t *)(stat +
					   IOCOST_OFF_IOCG_PCPU_ABS_VUSAGE));
	}
	return abs_vusage - PRIV(iocg, u64, IOCOST_OFF_IOCG_LAST_ABS_VUSAGE);
}

static void notrace iocost_tick_handler(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *op,
					struct ftrace_regs *fregs)
{
	void *timer = (void *)ftrace_regs_get_argument(fregs, 0);
	void *ioc = (char *)timer - IOCOST_OFF_IOC_TIMER;
	struct gendisk *disk = PRIV(ioc, struct gendisk *, IOCOST_OFF_IOC_DISK);
	spinlock_t *lock = &PRIV(ioc, spinlock_t, IOCOST_OFF_IOC_LOCK);
	struct list_head *active = &PRIV(ioc, struct list_head,
					 IOCOST_OFF_IOC_ACTIVE_IOCGS);
	struct list_head *pos;
	u64 period, vrate, period_at, vusage = 0, now, elapsed, usage_us;
	int busy, running;
	u32 period_us, nr_active = 0, usage_pct = 0;
	unsigned long flags;

	if (!disk)
		return;
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible()) {
		atomic_long_inc(&iocost_ticks_dropped);
		return;
	}

	/* ioc->lock may sleep (PREEMPT_RT): iocost_tick_unreg() waits for us */
	rcu_read_lock();
	if (!READ_ONCE(iocost_tick_on)) {
		rcu_read_unlock();
		return;
	}
	iocost_test_block();	/* test build, PREEMPT_RT: as ioc->lock may */
	spin_lock_irqsave(lock, flags);
	now = ktime_to_us(ktime_get());
	period = atomic64_read(&PRIV(ioc, atomic64_t, IOCOST_OFF_IOC_CUR_PERIOD));
	period_us = PRIV(ioc, u32, IOCOST_OFF_IOC_PERIOD_US);
	period_at = PRIV(ioc, u64, IOCOST_OFF_IOC_PERIOD_AT);
	vrate = PRIV(ioc, u64, IOCOST_OFF_IOC_VTIME_BASE_RATE);
	busy = PRIV(ioc, int, IOCOST_OFF_IOC_BUSY_LEVEL);
	running = PRIV(ioc, int, IOCOST_OFF_IOC_RUNNING);
	list_for_each(pos, active) {
		vusage += iocost_iocg_period_vusage((char *)pos -
						    IOCOST_OFF_IOCG_ACTIVE_LIST);
		nr_active++;
	}
	spin_unlock_irqrestore(lock, flags);
	rcu_read_unlock();

	elapsed = now > period_at ? now - period_at : 0;
	usage_us = vrate ? div64_u64(vusage, vrate) : 0;
	if (elapsed)
		usage_pct = min_t(u64, div64_u64(usage_us * 100, elapsed), U32_MAX);

	trace_iocost_ioc_tick(disk->disk_name, disk_devt(disk), period,
			      period_us, elapsed, vrate, busy, nr_active,
			      usage_pct, running);
}

static struct ftrace_ops iocost_tick_ops = {
	.func = iocost_tick_handler,
};

/**
 * iocost_tick_reg - attach the handler (the event is being enabled)
 *
 * Called by the tracepoint core when the first probe of iocost_ioc_tick is
 * registered: tracefs, perf, BPF.
 *
 * Return: 0, -ENODEV if the event is unavailable on this kernel, or the
 * ftrace error; each with a log line.
 */
int iocost_tick_reg(void)
{
	/* pairs with the release in iocost_tick_init(): the filter is set */
	const char *why = smp_load_acquire(&iocost_tick_unavailable);
	int ret;

	if (why) {
		pr_warn("iocost_ioc_tick cannot be enabled: %s\n", why);
		return -ENODEV;
	}
	/* tracefs does not pin the module of an enabled event: we must */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	WRITE_ONCE(iocost_tick_on, true);
	ret = register_ftrace_function(&iocost_tick_ops);
	if (ret) {
		pr_warn("iocost_ioc_tick: cannot attach to %s: %d\n",
			IOCOST_TICK_TARGET, ret);
		WRITE_ONCE(iocost_tick_on, false);
		module_put(THIS_MODULE);
	}
	return ret;
}

/**
 * iocost_tick_unreg - detach the handler (the event's last user is gone)
 *
 * Waits until no CPU runs the handler any more, blocked ones included
 * (see the header comment).
 */
void iocost_tick_unreg(void)
{
	long dropped;

	WRITE_ONCE(iocost_tick_on, false);
	synchronize_rcu();	/* no handler is past the check, or blocked */
	iocost_test_unregistering();
	WARN_ON_ONCE(unregister_ftrace_function(&iocost_tick_ops));
	dropped = atomic_long_xchg(&iocost_ticks_dropped, 0);
	if (dropped)
		pr_warn("iocost_ioc_tick: %ld ticks dropped: ftrace called the handler with preemption disabled on PREEMPT_RT\n",
			dropped);
	synchronize_rcu();	/* the module's text outlives every handler */
	module_put(THIS_MODULE);
}

/**
 * iocost_tick_init - check that the event can work on this kernel
 *
 * A missing private field or an untraceable ioc_timer_fn() only disables
 * the event, with a log line; the module loads either way.
 */
void iocost_tick_init(void)
{
	static char why[96];
	const char *unavailable = NULL;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(iocost_tick_fields); i++) {
		if (iocost_tick_fields[i].off < 0 ||
		    IOCOST_TEST_HOOK(tick_fault) == i + 1) {
			if (iocost_tick_fields[i].size)
				snprintf(why, sizeof(why),
					 "the kernel's BTF has no %s of %d bytes",
					 iocost_tick_fields[i].name,
					 iocost_tick_fields[i].size);
			else
				snprintf(why, sizeof(why),
					 "the kernel's BTF has no %s",
					 iocost_tick_fields[i].name);
			unavailable = why;
			goto out;
		}
	}
	if (!IOCOST_HAVE_IOC_TIMER_FN) {
		unavailable = "no ioc_timer_fn(struct timer_list *) in the kernel's BTF";
		goto out;
	}
	ret = ftrace_set_filter(&iocost_tick_ops,
				(unsigned char *)IOCOST_TICK_TARGET,
				strlen(IOCOST_TICK_TARGET), 1);
	if (ret) {
		snprintf(why, sizeof(why), "%s is not traceable (ftrace_set_filter: %d)",
			 IOCOST_TICK_TARGET, ret);
		unavailable = why;
	}
out:
	if (unavailable)
		pr_warn("trace event iocost_ioc_tick disabled: %s\n",
			unavailable);
	/* from now on an enable finds the filter set, or the reason */
	smp_store_release(&iocost_tick_unavailable, unavailable);
}

/**
 * iocost_tick_exit - release the ftrace filter
 */
void iocost_tick_exit(void)
{
	/* a failed load's events may live a little longer than the filter */
	smp_store_release(&iocost_tick_unavailable, "the module is unloading");
	ftrace_free_filter(&iocost_tick_ops);
}
