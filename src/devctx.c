// SPDX-License-Identifier: GPL-2.0
/*
 * devctx.c - what a model may ask about the disk it prices
 *
 * The series' calc_cost(opf, nbytes, sector, blkcg, model_flags) does not
 * say which disk it prices, nor what that disk's cost model is, so a model
 * can only hard-code one device's coefficients.  This file adds, without
 * changing that ABI, two kfuncs for iocost_model_ops programs
 * (include/iocost_model.h documents them for model writers):
 *
 *  bpf_iocost_dev()        the disk's dev_t, 0 outside calc_cost;
 *  bpf_iocost_dev_params() copies the disk's live io.cost.model, the
 *			    vtime coefficients blk-iocost derived from it and
 *			    the vrate into the program's buffer; -ENOENT
 *			    outside calc_cost.
 *
 * How a kfunc knows the disk.  The pricing handler (hook.c) puts a
 * struct iocost_calc_ctx on its stack and pushes it before it calls the
 * model, pops it after; the kfuncs look up the context of the calc_cost
 * invocation they are called from, and nothing else.  Without PREEMPT_RT
 * the model runs with preemption disabled, so a per-cpu pointer is
 * enough: an interrupt that prices a bio of its own pushes and pops
 * before the interrupted model continues.  But softirqs run at the exit of
 * an interrupt that arrives while the model runs, and a model's bpf_timer
 * callback is one: it must not see the interrupted model's disk.  So a
 * context counts only for a caller at the level it was pushed from: one
 * pushed on the task's stack (the handler ran in task context) for a
 * caller in task context, one pushed on an interrupt stack for a caller
 * in interrupt context (which cannot be another program's invocation:
 * softirqs do not nest, and no iocost_model_ops program runs in a hard
 * interrupt).  On PREEMPT_RT the model runs preemptible
 * (migrate_disable() only), so other tasks price on the same CPU in
 * between: there the context is the pricing task's BPF run context
 * (current->bpf_ctx), found in O(1) without a lock; softirqs and timers
 * run in threads of their own.  A program that is not running calc_cost (blkcg_online(), a timer
 * callback) finds no context and gets the failure value.
 *
 * No pointer into the handler's stack frame leaves this file: the
 * parameters are copied into memory the program owns, so that nothing a
 * program can keep (in a map, as a kptr) points into a frame that is gone
 * when calc_cost returns.
 *
 * Where the parameters come from: the ioc_gq the builtin was given points
 * to the disk's struct ioc, whose params hold io.cost.model's six inputs
 * (i_lcoefs) and the coefficients the builtin charges with (lcoefs).
 * Those structs are private to block/blk-iocost.c: their offsets and the
 * indices of both arrays come from the kernel's BTF at build time
 * (btfgen.c).  blk-iocost updates them under its lock and reads them
 * without it in the builtin; so do the kfuncs, one READ_ONCE() per word.
 *
 * The builtin's price for shadow mode.  In shadow mode (binding.c) the
 * model is called for every bio, the builtin still prices and charges it,
 * and the stats compare the two.  ftrace gives the handler the builtin's
 * arguments, not its result, so iocost_builtin_price() computes the
 * builtin's formula from the same coefficients and the cgroup's cursor
 * (ioc_gq.cursor), as calc_vtime_cost_builtin() does; the VM tests check
 * that its sum equals what io.stat charged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk_types.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include "iocost_bpf.h"
/* blk-iocost's constants (#defines, not in BTF), shared with the models */
#include "iocost_linear.h"

/*
 * Everything the kfuncs and the builtin's price read, with the sizes they
 * assume: a kernel whose BTF lacks one gets no parameters and no shadow
 * mode (iocost_devctx_init() says so).
 */
#define IOCOST_HAVE_LCOEFS						\
	(IOCOST_OFF_IOCG_IOC >= 0 && IOCOST_OFF_IOC_LCOEFS >= 0 &&	\
	 IOCOST_ENUM_NR_LCOEFS == 6 &&					\
	 IOCOST_SIZE_IOC_LCOEFS == 6 * 8 &&			\
	 IOCOST_ENUM_LCOEF_RPAGE >= 0 && IOCOST_ENUM_LCOEF_RSEQIO >= 0 &&	\
	 IOCOST_ENUM_LCOEF_RRANDIO >= 0 && IOCOST_ENUM_LCOEF_WPAGE >= 0 &&	\
	 IOCOST_ENUM_LCOEF_WSEQIO >= 0 && IOCOST_ENUM_LCOEF_WRANDIO >= 0)
#define IOCOST_HAVE_PARAMS						\
	(IOCOST_HAVE_LCOEFS && IOCOST_OFF_IOC_I_LCOEFS >= 0 &&		\
	 IOCOST_ENUM_NR_I_LCOEFS == 6 &&				\
	 IOCOST_SIZE_IOC_I_LCOEFS == 6 * 8 &&			\
	 IOCOST_ENUM_I_LCOEF_RBPS >= 0 &&				\
	 IOCOST_ENUM_I_LCOEF_RSEQIOPS >= 0 &&				\
	 IOCOST_ENUM_I_LCOEF_RRANDIOPS >= 0 &&				\
	 IOCOST_ENUM_I_LCOEF_WBPS >= 0 &&				\
	 IOCOST_ENUM_I_LCOEF_WSEQIOPS >= 0 &&				\
	 IOCOST_ENUM_I_LCOEF_WRANDIOPS >= 0 &&				\
	 IOCOST_OFF_IOC_VTIME_BASE_RATE >= 0)
#define IOCOST_HAVE_SHADOW (IOCOST_HAVE_LCOEFS && IOCOST_OFF_IOCG_CURSOR >= 0)

/* blk-iocost's VTIME_PER_USEC */
#define IOCOST_VTIME_PER_USEC	div_u64(IOCOST_VTIME_PER_SEC, USEC_PER_SEC)

/* ---- the context: which disk calc_cost prices --------------------------- */

#ifndef CONFIG_PREEMPT_RT
/* pushed and popped inline by the handler (iocost_bpf.h) */
DEFINE_PER_CPU(struct iocost_calc_ctx *, iocost_cur_ctx);

static struct iocost_calc_ctx *iocost_calc_ctx_get(void)
{
	struct iocost_calc_ctx *c = this_cpu_read(iocost_cur_ctx);

	/* a softirq's program on top of a task's model: not its context */
	if (c && object_is_on_stack(c) != in_task())
		return NULL;
	return c;
}
#else
/*
 * PREEMPT_RT: the model runs preemptible, so the context is the task's,
 * found in O(1) without a lock: the handler makes it the task's BPF run
 * context (current->bpf_ctx, which the kernel keeps per task for exactly
 * this: what helpers of the running program may ask), restoring the
 * previous one after the model.  A model called directly finds it there;
 * one called through its struct_ops trampoline finds the trampoline's
 * run context, which saved ours (struct bpf_tramp_run_ctx,
 * include/linux/bpf.h).  A context is recognized by its key: its own
 * address mixed with a secret of this load; it must lie whole on the
 * task's stack.  Any other run context (a timer callback's thread, a
 * blkcg callback called through its trampoline) leads to no context.
 */
static unsigned long iocost_ctx_secret __ro_after_init;

static unsigned long iocost_ctx_key(const struct iocost_calc_ctx *c)
{
	return (unsigned long)c ^ iocost_ctx_secret;
}

/* Is [@p, @p + @size) on current's stack? */
static bool iocost_on_stack(const void *p, size_t size)
{
	unsigned long lo = (unsigned long)task_stack_page(current);
	unsigned long a = (unsigned long)p;

	return a >= lo && a <= lo + THREAD_SIZE - size;
}

/**
 * iocost_calc_ctx_push - PREEMPT_RT: make @c the context of current's model
 * @c: on the caller's stack, @c->b and @c->iocg set
 *
 * Context: the pricing handler, inside iocost_model_enter().
 */
void notrace iocost_calc_ctx_push(struct iocost_calc_ctx *c)
{
	c->key = iocost_ctx_key(c);
	c->saved = bpf_set_run_ctx(&c->run_ctx);
}

/**
 * iocost_calc_ctx_pop - PREEMPT_RT: the model @c was pushed for returned
 * @c: as given to iocost_calc_ctx_push()
 */
void notrace iocost_calc_ctx_pop(struct iocost_calc_ctx *c)
{
	bpf_reset_run_ctx(c->saved);
	c->key = 0;
}

/* the context whose run context @rc is, or NULL */
static struct iocost_calc_ctx *iocost_ctx_of(struct bpf_run_ctx *rc)
{
	struct iocost_calc_ctx *c = container_of(rc, struct iocost_calc_ctx,
						 run_ctx);

	if (!rc || !iocost_on_stack(c, sizeof(*c)) ||
	    READ_ONCE(c->key) != iocost_ctx_key(c))
		return NULL;
	return c;
}

static struct iocost_calc_ctx *iocost_calc_ctx_get(void)
{
	struct bpf_run_ctx *rc = current->bpf_ctx;
	struct bpf_tramp_run_ctx *t;
	struct iocost_calc_ctx *c;

	c = iocost_ctx_of(rc);
	if (c || !rc)
		return c;
	/* called through the struct_ops trampoline: it saved ours */
	t = container_of(rc, struct bpf_tramp_run_ctx, run_ctx);
	if (!iocost_on_stack(t, sizeof(*t)))
		return NULL;
	return iocost_ctx_of(t->saved_run_ctx);
}
#endif

/* ---- reading blk-iocost's parameters ------------------------------------ */

#if IOCOST_HAVE_LCOEFS
static const u64 *iocost_lcoefs(const void *iocg)
{
	const char *ioc = READ_ONCE(*(void * const *)((const char *)iocg +
						      IOCOST_OFF_IOCG_IOC));

	return (const u64 *)(ioc + IOCOST_OFF_IOC_LCOEFS);
}
#endif

#if IOCOST_HAVE_PARAMS
static void iocost_read_params(const struct iocost_calc_ctx *c,
			       struct iocost_dev_params *p)
{
	const char *ioc = READ_ONCE(*(void * const *)((const char *)c->iocg +
						      IOCOST_OFF_IOCG_IOC));
	const u64 *in = (const u64 *)(ioc + IOCOST_OFF_IOC_I_LCOEFS);
	const u64 *lc = (const u64 *)(ioc + IOCOST_OFF_IOC_LCOEFS);
	u64 rate = READ_ONCE(*(const u64 *)(ioc + IOCOST_OFF_IOC_VTIME_BASE_RATE));

	p->dev = c->b->devt;
	p->pad = 0;
	p->vrate_ppm = div64_u64(rate * 1000000, IOCOST_VTIME_PER_USEC);
	p->rbps = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_RBPS]);
	p->rseqiops = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_RSEQIOPS]);
	p->rrandiops = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_RRANDIOPS]);
	p->wbps = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_WBPS]);
	p->wseqiops = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_WSEQIOPS]);
	p->wrandiops = READ_ONCE(in[IOCOST_ENUM_I_LCOEF_WRANDIOPS]);
	p->rpage = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RPAGE]);
	p->rseqio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RSEQIO]);
	p->rrandio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RRANDIO]);
	p->wpage = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WPAGE]);
	p->wseqio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WSEQIO]);
	p->wrandio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WRANDIO]);
}
#endif

/**
 * iocost_devctx_shadow_ok - can this kernel run a binding in shadow mode?
 *
 * Return: true when the builtin's price can be computed
 * (iocost_builtin_price()): blk-iocost's coefficients and cursor are in
 * this kernel's BTF.
 */
bool iocost_devctx_shadow_ok(void)
{
	/* shadow_fault: the test build's kernel without them */
	return IOCOST_HAVE_SHADOW && !IOCOST_TEST_HOOK(shadow_fault);
}

/**
 * iocost_builtin_price - what calc_vtime_cost_builtin() charges for a bio
 * @iocg: the ioc_gq the builtin was given
 * @opf: bio->bi_opf
 * @nbytes: bio->bi_iter.bi_size
 * @sector: bio->bi_iter.bi_sector
 * @is_merge: the builtin's is_merge
 *
 * Only bios of data READs and WRITEs have a price: seqio or randio by the
 * seek from the cgroup's cursor (none for a merge), plus one page
 * coefficient per 4 KiB, at least one.
 *
 * Context: the pricing handler, before the builtin runs.
 * Return: the price in vtime; 0 when iocost_devctx_shadow_ok() is false.
 */
u64 notrace iocost_builtin_price(const void *iocg, u64 opf, u64 nbytes,
				 u64 sector, bool is_merge)
{
#if IOCOST_HAVE_SHADOW
	const u64 *lc = iocost_lcoefs(iocg);
	u64 pages = max_t(u64, (nbytes >> SECTOR_SHIFT) >> IOCOST_SECT_TO_PAGE_SHIFT, 1);
	u64 cursor, seek_pages = 0, page, seqio, randio, cost = 0;

	if (!nbytes)
		return 0;
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_READ:
		page = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RPAGE]);
		seqio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RSEQIO]);
		randio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_RRANDIO]);
		break;
	case REQ_OP_WRITE:
		page = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WPAGE]);
		seqio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WSEQIO]);
		randio = READ_ONCE(lc[IOCOST_ENUM_LCOEF_WRANDIO]);
		break;
	default:
		return 0;
	}
	cursor = READ_ONCE(*(const u64 *)((const char *)iocg + IOCOST_OFF_IOCG_CURSOR));
	if (cursor)
		seek_pages = (sector > cursor ? sector - cursor : cursor - sector) >>
			     IOCOST_SECT_TO_PAGE_SHIFT;
	if (!is_merge)
		cost = seek_pages > IOCOST_RANDIO_PAGES ? randio : seqio;
	return cost + pages * page;
#else
	return 0;
#endif
}

/**
 * iocost_hist_bucket - the shadow histogram's bucket of one IO
 * @model: the model's price
 * @builtin: the builtin's price
 *
 * Return: 0 if the builtin priced it 0, else by model/builtin: 1 below 1/4,
 * 2 below 1/2, 3 below 9/10, 4 up to 11/10, 5 below 2, 6 below 4, 7 at
 * least 4.  Prices are at most IOCOST_VTIME_PER_SEC (2^37): no overflow.
 */
unsigned int notrace iocost_hist_bucket(u64 model, u64 builtin)
{
	if (!builtin)
		return 0;
	if (model * 4 < builtin)
		return 1;
	if (model * 2 < builtin)
		return 2;
	if (model * 10 < builtin * 9)
		return 3;
	if (model * 10 <= builtin * 11)
		return 4;
	if (model < builtin * 2)
		return 5;
	if (model < builtin * 4)
		return 6;
	return 7;
}

/* ---- the kfuncs --------------------------------------------------------- */

__bpf_kfunc_start_defs();

/**
 * bpf_iocost_dev - the disk calc_cost is pricing
 *
 * Return: its dev_t (MAJ << 20 | MIN), or 0 outside calc_cost.
 */
__bpf_kfunc u32 bpf_iocost_dev(void)
{
	struct iocost_calc_ctx *c = iocost_calc_ctx_get();

	return c ? c->b->devt : 0;
}

/**
 * bpf_iocost_dev_params - the cost model of the disk calc_cost is pricing
 * @params: the program's memory (its stack, a map value) to copy it to
 *
 * Return: 0 with @params set to the parameters as blk-iocost holds them
 * now; -ENOENT outside calc_cost, -EOPNOTSUPP when this kernel's BTF lacks
 * them, @params zeroed.
 */
__bpf_kfunc int bpf_iocost_dev_params(struct iocost_dev_params *params)
{
#if IOCOST_HAVE_PARAMS
	struct iocost_calc_ctx *c = iocost_calc_ctx_get();

	if (c) {
		iocost_read_params(c, params);
		return 0;
	}
	memset(params, 0, sizeof(*params));
	return -ENOENT;
#else
	memset(params, 0, sizeof(*params));
	return -EOPNOTSUPP;
#endif
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(iocost_kfunc_ids)
BTF_ID_FLAGS(func, bpf_iocost_dev)
BTF_ID_FLAGS(func, bpf_iocost_dev_params)
BTF_KFUNCS_END(iocost_kfunc_ids)

/*
 * Only iocost_model_ops programs: the struct_ops type a program attaches
 * to is in the BTF of the module that defines it, and this module
 * defines no other.  (The verifier asks a module's filters about that
 * module's kfuncs only.)
 */
static int iocost_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (prog->type == BPF_PROG_TYPE_STRUCT_OPS &&
	    prog->aux->attach_btf && prog->aux->attach_btf == iocost_ctl_btf())
		return 0;
	return -EACCES;
}

static const struct btf_kfunc_id_set iocost_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &iocost_kfunc_ids,
	.filter = iocost_kfunc_filter,
};

/**
 * iocost_devctx_init - register the kfuncs for iocost_model_ops programs
 *
 * Logs what this kernel's BTF leaves out: a kernel without blk-iocost's
 * parameters in BTF gets -EOPNOTSUPP from bpf_iocost_dev_params() and no
 * shadow mode.
 *
 * Return: 0 or the error of register_btf_kfunc_id_set(), logged.
 */
int iocost_devctx_init(void)
{
	int ret;

#ifdef CONFIG_PREEMPT_RT
	iocost_ctx_secret = get_random_long();
#endif
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&iocost_kfunc_set);

	if (ret) {
		pr_err("registering the device-context kfuncs failed: %d\n", ret);
		return ret;
	}
	if (!IOCOST_HAVE_PARAMS)
		pr_info("this kernel's BTF lacks blk-iocost's parameters (ioc.params, ioc_gq.ioc or their indices): bpf_iocost_dev_params() fails with EOPNOTSUPP\n");
	if (!iocost_devctx_shadow_ok())
		pr_info("this kernel's BTF lacks blk-iocost's coefficients or cursor: mode=shadow is refused\n");
	return 0;
}
