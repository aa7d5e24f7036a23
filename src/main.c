// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_bpf - pluggable BPF cost models for blk-iocost on stock kernels
 *
 * blk-iocost prices every bio with calc_vtime_cost_builtin(): a linear
 * model with one sequential/random judgement per cgroup.  The in-kernel
 * "BPF struct_ops cost model" series lets a BPF program own that price.
 * This module brings the same interface to unmodified kernels:
 *
 *  - ctl.c registers the iocost_model_ops struct_ops type (same ABI as the
 *    series, include/iocost_model.h), keeps the registry of models by name
 *    and serves /sys/kernel/iocost_bpf.
 *  - binding.c owns the bindings of models to disks, made through
 *    /sys/kernel/iocost_bpf/bindings and dropped when a disk goes away.
 *  - hook.c attaches an ftrace handler to calc_vtime_cost_builtin() while
 *    at least one device is bound; for a bound device it charges the
 *    model's price instead and skips the builtin body.  Everything else in
 *    blk-iocost (the cursor, budgets, vrate) is left untouched.  While a
 *    model is bound it also receives blkcg online/offline callbacks.
 *  - tick.c defines the iocost_ioc_tick trace event: one event per
 *    controller period and device, attached only while enabled.
 *
 * Private kernel structures are never redefined: the few offsets needed
 * are generated from the target kernel's BTF at build time (btfgen.c).
 *
 * Load order matters: the checks that can refuse the kernel run first, the
 * struct_ops type is registered last because it cannot be unregistered
 * except by unloading the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>
#include "iocost_bpf.h"
#include "btfdigest.h"

/* register_bpf_struct_ops() arrived with struct_ops in modules, in 6.9 */
#ifndef register_bpf_struct_ops
#error "iocost_bpf needs Linux 6.9 or newer: modules cannot register struct_ops before 6.9"
#endif
#ifndef CONFIG_BLK_CGROUP_IOCOST
#error "iocost_bpf needs CONFIG_BLK_CGROUP_IOCOST=y"
#endif
#ifndef CONFIG_DEBUG_INFO_BTF_MODULES
#error "iocost_bpf needs CONFIG_DEBUG_INFO_BTF_MODULES=y (struct_ops types live in module BTF)"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "iocost_bpf needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS=y for its pricing hook"
#endif

#ifdef IOCOST_TEST_BUILD
/* the test build's hooks (testhooks.h) */
unsigned int iocost_clone_fault, iocost_caller_fault, iocost_tick_fault;
unsigned int iocost_shadow_fault;
unsigned int iocost_init_delay_ms, iocost_bind_delay_ms;
#if IOCOST_HOOK_CLONE
module_param_named(clone_fault, iocost_clone_fault, uint, 0644);
MODULE_PARM_DESC(clone_fault,
		 "test build: make the IPA-SRA clone's checks fail on purpose; bits: 1 stash, 2 kind, 4 caller, 8 costp (one outside the caller's frame), 16 args, 32 blkg, 64 a bio contradicting the mapping being learned, 128 each stash on the next CPU's ring (a migration)");
#endif
module_param_named(caller_fault, iocost_caller_fault, uint, 0444);
MODULE_PARM_DESC(caller_fault,
		 "test build: bit K: the caller scan ignores caller K's calls (0 ioc_rqos_throttle, 1 ioc_rqos_merge), as if inlined");
module_param_named(tick_fault, iocost_tick_fault, uint, 0444);
MODULE_PARM_DESC(tick_fault,
		 "test build: N > 0: the tick event's Nth private field is missing");
module_param_named(shadow_fault, iocost_shadow_fault, uint, 0444);
MODULE_PARM_DESC(shadow_fault,
		 "test build: 1: mode=shadow is refused, as if the kernel's BTF lacked blk-iocost's coefficients or cursor");
module_param_named(init_delay_ms, iocost_init_delay_ms, uint, 0444);
MODULE_PARM_DESC(init_delay_ms,
		 "test build: module init sleeps this long before the tick event's filter is set");
module_param_named(bind_delay_ms, iocost_bind_delay_ms, uint, 0644);
MODULE_PARM_DESC(bind_delay_ms,
		 "test build: a bind sleeps this long before it takes iocost_lock");

#ifdef CONFIG_PREEMPT_RT
static DEFINE_SPINLOCK(iocost_test_lock);
static bool iocost_test_held;
static unsigned int iocost_rt_block_ms;

/* completed once the lock is held: what a write to rt_block_ms waits for */
static DECLARE_COMPLETION(iocost_test_hold_taken);

static void iocost_test_hold_workfn(struct work_struct *work)
{
	spin_lock(&iocost_test_lock);
	WRITE_ONCE(iocost_test_held, true);
	complete(&iocost_test_hold_taken);
	mdelay(iocost_rt_block_ms);
	WRITE_ONCE(iocost_test_held, false);
	spin_unlock(&iocost_test_lock);
}

static DECLARE_WORK(iocost_test_hold_work, iocost_test_hold_workfn);

static int iocost_rt_block_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms > 10000)
		return -ERANGE;
	if (work_busy(&iocost_test_hold_work))
		return -EBUSY;
	iocost_rt_block_ms = ms;
	reinit_completion(&iocost_test_hold_taken);
	schedule_work(&iocost_test_hold_work);
	/*
	 * Return once the lock is held: the tests act on it right away.  No
	 * timed sleep: on PREEMPT_RT its wakeup would come from this CPU's
	 * ktimers thread, which a tick handler blocked on the lock holds up.
	 */
	wait_for_completion(&iocost_test_hold_taken);
	return 0;
}

static const struct kernel_param_ops iocost_rt_block_ops = {
	.set = iocost_rt_block_set,
	.get = param_get_uint,
};

module_param_cb(rt_block_ms, &iocost_rt_block_ops, &iocost_rt_block_ms, 0644);
MODULE_PARM_DESC(rt_block_ms,
		 "test build, PREEMPT_RT: hold a lock N ms (held when the write returns) that the pricing and tick handlers then block on");

/* how many handlers wait for the lock now: the tests' proof they block */
static atomic_t iocost_test_blocked;

static int iocost_rt_blocked_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&iocost_test_blocked));
}

static const struct kernel_param_ops iocost_rt_blocked_ops = {
	.get = iocost_rt_blocked_get,
};

module_param_cb(rt_blocked, &iocost_rt_blocked_ops, NULL, 0444);
MODULE_PARM_DESC(rt_blocked,
		 "test build, PREEMPT_RT: handlers blocked on rt_block_ms's lock now");

/*
 * handlers blocked at the last unregistration of ftrace ops: what must be
 * 0, as their trampolines go (the old teardown unregistered with one
 * blocked, and its trampoline was freed under it)
 */
static int iocost_test_blocked_at_unreg;
module_param_named(rt_blocked_at_unreg, iocost_test_blocked_at_unreg, int, 0444);
MODULE_PARM_DESC(rt_blocked_at_unreg,
		 "test build, PREEMPT_RT: handlers blocked when ftrace ops were last unregistered");

/**
 * iocost_test_unregistering - test build, PREEMPT_RT: ftrace ops go now
 */
void iocost_test_unregistering(void)
{
	WRITE_ONCE(iocost_test_blocked_at_unreg, atomic_read(&iocost_test_blocked));
}

/**
 * iocost_test_block - test build, PREEMPT_RT: block while rt_block_ms holds
 */
void notrace iocost_test_block(void)
{
	if (READ_ONCE(iocost_test_held)) {
		atomic_inc(&iocost_test_blocked);
		spin_lock(&iocost_test_lock);
		spin_unlock(&iocost_test_lock);
		atomic_dec(&iocost_test_blocked);
	}
}

/**
 * iocost_test_exit - test build, PREEMPT_RT: no hold runs after this
 */
void iocost_test_exit(void)
{
	cancel_work_sync(&iocost_test_hold_work);
}
#endif
#endif

static int __init iocost_bpf_init(void)
{
	int ret;

	ret = iocost_btf_digest_check();
	if (ret)
		return ret;
	ret = iocost_binding_init();
	if (ret)
		return ret;
	ret = iocost_hook_init();
	if (ret)
		goto err_binding;
	/* the trace events exist already (MODULE_STATE_COMING) */
	if (IOCOST_TEST_HOOK(init_delay_ms))
		msleep(IOCOST_TEST_HOOK(init_delay_ms));
	iocost_tick_init();
	ret = iocost_ctl_init();
	if (ret)
		goto err_hook;
	/* the kfuncs first: a struct_ops type cannot be taken back */
	ret = iocost_devctx_init();
	if (ret)
		goto err_ctl;
	ret = iocost_ctl_register_ops();
	if (ret)
		goto err_ctl;
	pr_info("kernel %s, hook target %s (%s), struct_ops iocost_model_ops registered\n",
		init_utsname()->release, IOCOST_HOOK_TARGET,
		iocost_hook_entry());
	return 0;

err_ctl:
	iocost_ctl_exit();
err_hook:
	iocost_tick_exit();
	iocost_hook_exit();
err_binding:
	iocost_binding_exit();
	return ret;
}

static void __exit iocost_bpf_exit(void)
{
	/* bindings hold module references, so this finds none; if it did,
	 * the hooks would be detached with the last of them, before their
	 * filters are freed below
	 */
	iocost_binding_exit();
	iocost_ctl_exit();
	iocost_tick_exit();
	iocost_hook_exit();
	iocost_test_exit();
}

module_init(iocost_bpf_init);
module_exit(iocost_bpf_exit);

MODULE_DESCRIPTION("Pluggable BPF cost models for the blk-iocost controller");
MODULE_AUTHOR("iocost-bpf developers");
MODULE_LICENSE("GPL");
