// SPDX-License-Identifier: GPL-2.0
/*
 * hook.c - the data path: bio -> hook -> model -> clamp -> charge
 *
 * blk-iocost asks calc_vtime_cost_builtin(bio, iocg, is_merge, costp) for
 * the absolute vtime price of every bio it meters (and of every merge),
 * then charges *costp.  The cursor update and everything else happen in
 * its callers.  While at least one device is bound, an ftrace handler runs
 * at the entry of that function:
 *
 *  - the bio's whole disk is looked up in an RCU hash of bindings, keyed
 *    by dev_t and checked against the disk's sequence number, so that a
 *    new disk that reuses a MAJ:MIN does not inherit an old binding;
 *  - unbound disk: the handler returns and the builtin runs unchanged;
 *  - bound disk: the model's calc_cost() is called with the series'
 *    arguments, its price is clamped to IOCOST_VTIME_PER_SEC, stored in
 *    *costp, and the call returns to the caller of the builtin (see "How
 *    the hook is entered").  The builtin body does not run, so it cannot
 *    touch anything either;
 *  - bound in shadow mode: the model prices the bio the same way, but its
 *    price is only counted, next to what the builtin will charge
 *    (devctx.c computes that); the handler returns and the builtin runs.
 *
 * While the model runs, a context on the handler's stack says which disk
 * it prices, for the device-context kfuncs (devctx.c).
 *
 * Why skip the builtin (as livepatch redirects a function) rather than
 * fix *costp up after it returns (kretprobe/fexit)?  A fix-up needs a
 * second trap on every return, including unbound devices' calls, and runs
 * the builtin for nothing; the skip costs one call at the function's entry
 * and nothing on return.  Both only run while something is bound.
 *
 * How the hook is entered.  On x86-64, where the hook is on the function
 * itself, by an ftrace direct call: ftrace patches the function's fentry
 * call to call iocost_direct_entry (hook_entry_x86.S), which calls
 * iocost_hook_direct() with the function's arguments and, when the model
 * priced the bio, returns to the function's caller, as a BPF trampoline
 * that skips its function does.  That spares every bio ftrace's own
 * trampoline (the saved ftrace_regs, the handler call, the redirect to an
 * empty function): docs/PERFORMANCE.md measures it.  Elsewhere (IPA-SRA
 * clone kernels, whose handler needs the caller's return address from
 * ftrace; other architectures; the module parameter direct_hook=0) an
 * ftrace handler with FTRACE_OPS_FL_IPMODIFY does the same and moves the
 * instruction pointer to iocost_builtin_skipped(), an empty function with
 * the builtin's prototype.  The price is exclusivity either way: ftrace
 * lets one user modify a function's flow, so a livepatch of the function
 * makes the first bind fail with EBUSY and a log line, and a bound disk
 * makes the livepatch fail.  BPF fentry/fexit programs on the function
 * share it with the handler (ftrace shares ip-modify with BPF
 * trampolines), not with the direct call, which is one per function:
 * with direct_hook=1 attaching one fails while a disk is bound, and a
 * bind fails while one is attached.  Another ftrace user of the function
 * (a function tracer, a kprobe) makes ftrace call its own trampoline
 * first, which then jumps to the direct entry with the registers and the
 * stack as the call left them.
 *
 * How the model is called.  ops->calc_cost points to the struct_ops
 * trampoline, which spills the arguments into a u64 array, enters with
 * rcu_read_lock() and migrate_disable(), sets the run context, keeps the
 * BPF run-time statistics and calls the program.  On the bio path that
 * wrapper cost about as much as the rest of the hook (measured in
 * instructions per IO: docs/PERFORMANCE.md), and the handler already holds
 * the task on its CPU inside an RCU read side.  So when a model registers,
 * iocost_hook_model_prog() finds the program behind calc_cost in its
 * struct_ops map, and the handler calls it the way bpf_prog_run() calls
 * any JITed program, bpf_func(args, insnsi), with the arguments in a u64
 * array as the trampoline stores them and the run time counted while
 * kernel.bpf_stats_enabled is on; iocost_run_prog() says what it leaves
 * out, and why.  Where that is not known to be equivalent (the map's
 * layout is missing from BTF, the program is not JITed or uses a private
 * stack, kCFI would check the call's type, or the kernel is not a version
 * the direct call was reviewed against: 6.12), the model is called through
 * ops->calc_cost; so it is with the module parameter direct_call=0 (for
 * comparison).  Its registration says which in the kernel log.
 *
 * Bindings (binding.c) are replaced under iocost_lock and freed only
 * after a grace period, which waits for every handler.  Every point
 * where a handler may block (a model on PREEMPT_RT, the blkcg callbacks)
 * is inside an RCU read side that is entered only through a binding or a
 * bound model: the last unbind waits for a grace period after it
 * unpublished them and before iocost_hook_remove() unregisters the ops,
 * whose trampolines ftrace frees once RCU-tasks, which takes a blocked
 * task for quiescent, has passed.
 *
 * Context.  The handler runs the model with preemption disabled, which is
 * also the RCU read side the bindings rely on, and keeps the task on its
 * CPU for the per-cpu counters.  On PREEMPT_RT a spinlock_t sleeps, and
 * BPF helpers may take one (an LPM trie update does on 6.12): there the
 * handler does what the struct_ops trampoline does instead,
 * rcu_read_lock() and migrate_disable(), and the model runs preemptible.
 * ftrace calls the handler directly (no FTRACE_OPS_FL_RECURSION), with
 * preemption as the caller has it, unless another ftrace user traces the
 * same function: then ftrace's list function disables preemption around
 * every handler, on RT too (docs/RELIABILITY.md); the direct entry is
 * reached after the list function returned, preemptible as the caller
 * is.  A model that takes a sleeping lock would sleep in atomic context
 * in such a handler, so on PREEMPT_RT the handler does not run the model
 * when it finds itself non-preemptible:
 * the builtin prices that bio, the first one is logged and the number is
 * logged when the hooks are detached (iocost_rt_atomic()).
 *
 * The ops are FTRACE_OPS_FL_PERMANENT, as livepatch's are: with
 * kernel.ftrace_enabled=0 attaching fails (the first bind fails with
 * EBUSY) instead of "succeeding" with nothing called, and while a disk is
 * bound the sysctl cannot turn ftrace off under the bindings.  (Kernels
 * whose register_ftrace_direct() still assigns the ops' flags instead of
 * adding to them, fixed upstream in late 2025, drop the flag from the
 * direct call's ops; the other hooks' ops, attached before it, keep it for
 * the whole set.)
 *
 * Coverage.  A compiler may emit a second copy of a function
 * (.constprop.N, .part.N, .isra.N) for some of its callers; a hook on one
 * copy would leave the other callers priced by the builtin without a
 * word.  iocost_hook_init() refuses the kernel if any hooked function has
 * such a copy beside it.  Where GCC emitted calc_vtime_cost_builtin only
 * as an IPA-SRA clone (Debian's 7.x: not in BTF, the bio replaced by three
 * of its fields), the handler hooks the clone instead, and clone.c checks
 * each call against its caller's bio before the model may price it.
 *
 * The blkcg lifecycle follows the bindings, as the series specifies: while
 * at least one device is bound, two more ftrace handlers (no ip-modify)
 * run at the entry of blkcg_css_online() and blkcg_css_offline() and call
 * blkcg_online()/blkcg_offline() of every bound model, once per model
 * however many devices it prices, registered or not.  Models enter that
 * RCU list with their first binding and leave it with their last.  A
 * fourth handler, at the entry of bdev_mark_dead(), tells binding.c when
 * a bound disk goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blk-cgroup.h>
#include <linux/blkdev.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include "iocost_bpf.h"

/*
 * Where a substituted call continues: it returns straight to the caller of
 * calc_vtime_cost_builtin(), *costp already holding the model's price.
 */
static noinline notrace void iocost_builtin_skipped(struct bio *bio,
						    void *iocg, bool is_merge,
						    u64 *costp)
{
	barrier();
}

/* calc_cost is the first member: its programs' expected_attach_type is 0 */
#define IOCOST_CALC_COST_MEMBER 0
/* calc_cost's arguments, in the u64 array a struct_ops program reads */
#define IOCOST_CALC_COST_NARGS 5

typedef u64 (*iocost_bpf_func_t)(const void *args, const struct bpf_insn *insn);

/*
 * The direct call repeats what bpf_prog_run() and the struct_ops
 * trampoline do for a JITed program; it was reviewed against those of
 * Linux 6.12, and Kbuild defines IOCOST_DIRECT_CALL_REVIEWED for 6.12
 * only.  Other kernels call the model through its trampoline.
 */
#ifndef IOCOST_DIRECT_CALL_REVIEWED
#define IOCOST_DIRECT_CALL_REVIEWED 0
#endif

static bool direct_call = true;
module_param(direct_call, bool, 0644);
MODULE_PARM_DESC(direct_call,
		 "call a model's calc_cost program directly where that is known to be equivalent (default), or always through its struct_ops trampoline (0); read when a model registers");

/**
 * iocost_hook_model_prog - the program to call directly for calc_cost
 * @map: the model's struct_ops map, registered (its programs are set)
 * @why: set to the reason when the result is NULL
 *
 * Return: the program, alive as long as @map, or NULL when the model must
 * be called through its struct_ops trampoline (see the header comment).
 */
struct bpf_prog *iocost_hook_model_prog(struct bpf_map *map, const char **why)
{
#if IOCOST_DIRECT_CALL_REVIEWED && IOCOST_OFF_ST_MAP_LINKS >= 0 && \
	IOCOST_OFF_ST_MAP_FUNCS_CNT >= 0
	char *st_map = (char *)map - IOCOST_OFF_ST_MAP_MAP;
	struct bpf_link **links = *(struct bpf_link ***)(st_map + IOCOST_OFF_ST_MAP_LINKS);
	u32 i, n = *(u32 *)(st_map + IOCOST_OFF_ST_MAP_FUNCS_CNT);
	struct bpf_prog *prog;

	BUILD_BUG_ON(offsetof(struct iocost_model_ops, calc_cost) != 0);
	*why = "direct_call=0";
	if (!READ_ONCE(direct_call))
		return NULL;
	/* kCFI checks the type of an indirect call: ours returns u64 */
	*why = "kCFI";
	if (IS_ENABLED(CONFIG_CFI_CLANG) || IS_ENABLED(CONFIG_CFI))
		return NULL;
	*why = "no calc_cost program in the map";
	for (i = 0; i < n && links[i]; i++) {
		prog = links[i]->prog;
		if (prog->type != BPF_PROG_TYPE_STRUCT_OPS ||
		    prog->expected_attach_type != IOCOST_CALC_COST_MEMBER)
			continue;
		*why = "not JITed";
		if (!prog->jited)
			return NULL;
#if IOCOST_OFF_PROG_AUX_PRIV_STACK >= 0
		*why = "private stack";
		if (prog->aux->jits_use_priv_stack)
			return NULL;
#endif
		return prog;
	}
#elif !IOCOST_DIRECT_CALL_REVIEWED
	*why = "the direct call was not reviewed for this kernel version";
#else
	*why = "the struct_ops map layout is not in this kernel's BTF";
#endif
	return NULL;
}

/*
 * What the struct_ops trampoline does around a non-sleepable program,
 * minus what is already true here (iocost_model_enter()): the task stays
 * on its CPU, inside an RCU read-side critical section for
 * synchronize_rcu(), the grace period that frees maps and programs
 * (disabled preemption is one; on PREEMPT_RT rcu_read_lock() is held).  The
 * run context (current->bpf_ctx) is left alone: it carries attach cookies
 * and function IPs for tracing programs, and no helper of a struct_ops
 * program here (bpf_base_func_proto()) reads it.  Lockdep kernels get the
 * rcu_read_lock() their helpers' RCU assertions look for.
 */
static __always_inline u64 iocost_run_prog(struct bpf_prog *prog, const u64 *args)
{
	iocost_bpf_func_t func = (iocost_bpf_func_t)(void *)prog->bpf_func;
	struct bpf_prog_stats *stats;
	unsigned long flags;
	u64 cost, start, ns;

	if (IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC))
		rcu_read_lock();
	if (static_branch_unlikely(&bpf_stats_enabled_key)) {
		start = sched_clock();
		cost = func(args, prog->insnsi);
		ns = sched_clock() - start;
		stats = this_cpu_ptr(prog->stats);
		flags = u64_stats_update_begin_irqsave(&stats->syncp);
		u64_stats_inc(&stats->cnt);
		u64_stats_add(&stats->nsecs, ns);
		u64_stats_update_end_irqrestore(&stats->syncp, flags);
	} else {
		cost = func(args, prog->insnsi);
	}
	if (IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC))
		rcu_read_unlock();
	return cost;
}

/* the model's price of one bio, clamped, and the counters of it */
static __always_inline u64 iocost_price(struct iocost_binding *b, u64 opf,
					u64 nbytes, u64 sector,
					struct blkcg *blkcg, const void *iocg,
					bool is_merge)
{
	struct iocost_stats __percpu *st = b->stats;
	const struct iocost_model *m = b->model;
	u64 args[IOCOST_CALC_COST_NARGS] = {
		opf, nbytes, sector, (unsigned long)blkcg,
		is_merge ? IOCOST_COST_F_MERGE : 0,
	};
	/* not zeroed (CONFIG_INIT_STACK_ALL_ZERO would): the push sets it */
	struct iocost_calc_ctx ctx __uninitialized;
	u64 cost;

	ctx.b = b;
	ctx.iocg = iocg;
	/* what the device-context kfuncs answer while the model runs */
	iocost_calc_ctx_push(&ctx);
	if (m->calc_prog)
		cost = iocost_run_prog(m->calc_prog, args);
	else
		cost = m->ops->calc_cost(args[0], args[1], args[2], blkcg,
					 args[4]);
	iocost_calc_ctx_pop(&ctx);
	if (cost > IOCOST_VTIME_PER_SEC) {
		cost = IOCOST_VTIME_PER_SEC;
		this_cpu_inc(st->clamped);
	}
	this_cpu_inc(st->charges);
	if (is_merge)
		this_cpu_inc(st->merges);
	if (!args[1])
		this_cpu_inc(st->nodata);
	else if (!cost)
		this_cpu_inc(st->zero);
	this_cpu_add(st->vtime, cost);
	return cost;
}

/*
 * Shadow mode: the builtin will price and charge this bio as usual; the
 * model's price is only counted, beside the builtin's (devctx.c).
 */
static void notrace iocost_shadow(struct iocost_binding *b, u64 opf,
				  u64 nbytes, u64 sector, struct blkcg *blkcg,
				  const void *iocg, bool is_merge)
{
	u64 builtin = iocost_builtin_price(iocg, opf, nbytes, sector, is_merge);
	u64 cost = iocost_price(b, opf, nbytes, sector, blkcg, iocg, is_merge);

	this_cpu_add(b->stats->builtin, builtin);
	this_cpu_inc(b->stats->hist[iocost_hist_bucket(cost, builtin)]);
}

/*
 * The model's context: preemption off, or on PREEMPT_RT, where helpers'
 * spinlock_t sleep, what the struct_ops trampoline uses (header comment).
 */
static __always_inline void iocost_model_enter(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		rcu_read_lock();
		migrate_disable();
	} else {
		preempt_disable_notrace();
	}
}

static __always_inline void iocost_model_exit(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		migrate_enable();
		rcu_read_unlock();
	} else {
		preempt_enable_notrace();
	}
}

/* PREEMPT_RT: bios of bound disks left to the builtin, ftrace being atomic */
static atomic_long_t iocost_rt_atomic_bios;

/*
 * PREEMPT_RT: may the model not run here?  The model runs preemptible
 * there (it may take sleeping locks), and the handler is called with
 * preemption as the caller has it, unless another ftrace user on the same
 * function makes ftrace's list function disable it.  Then the builtin
 * prices the bio; counted, the first one logged.  Always false elsewhere.
 */
static __always_inline bool iocost_rt_atomic(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || likely(preemptible()))
		return false;
	if (atomic_long_inc_return(&iocost_rt_atomic_bios) == 1)
		pr_warn("%s: ftrace calls the hook with preemption disabled (another ftrace user on the function?): on PREEMPT_RT a model must run preemptible, the builtin prices these bios\n",
			IOCOST_HOOK_TARGET);
	return true;
}

/* bio_blkcg_css()->blkcg, without the call: the blkg's blkcg */
static __always_inline struct blkcg *iocost_blkg_blkcg(struct blkcg_gq *blkg)
{
	return *(struct blkcg **)((char *)blkg + IOCOST_OFF_BLKG_BLKCG);
}

#if !IOCOST_HOOK_CLONE
/*
 * The bio's price, when its disk is bound: true when the model priced it
 * and *costp holds its price, so that the builtin must not run.
 */
static __always_inline bool iocost_hook_bio(struct bio *bio, void *iocg,
					    bool is_merge, u64 *costp)
{
	u64 opf, nbytes, sector;
	struct iocost_binding *b;
	struct blkcg *blkcg;
	bool priced = false;

	/*
	 * No ftrace_test_recursion_trylock(): the hook is on one function,
	 * and nothing the handler calls (the bindings, the model's program
	 * and its helpers) can submit or merge a bio, so the handler cannot
	 * recurse.  It needs RCU and one CPU: iocost_model_enter().
	 */
	iocost_model_enter();
	if (!bio->bi_bdev || !bio->bi_blkg)
		goto out;
	b = iocost_binding_find(bio->bi_bdev->bd_disk);
	if (!b || iocost_rt_atomic())
		goto out;
	blkcg = iocost_blkg_blkcg(bio->bi_blkg);
	opf = (__force u32)bio->bi_opf;
	nbytes = bio->bi_iter.bi_size;
	sector = bio->bi_iter.bi_sector;
	if (unlikely(b->shadow)) {
		iocost_shadow(b, opf, nbytes, sector, blkcg, iocg, is_merge);
		goto out;
	}
	*costp = iocost_price(b, opf, nbytes, sector, blkcg, iocg, is_merge);
	iocost_test_block();	/* test build, PREEMPT_RT: as a model may */
	priced = true;
out:
	iocost_model_exit();
	return priced;
}

/*
 * The ftrace handler: where the bio was priced, the builtin is skipped by
 * moving the instruction pointer.  No stack protector: it costs a canary
 * store and check on every bio, and this frame holds no buffer that
 * anything indexes or fills by length (the model's five arguments and its
 * context, all set here).
 */
static void notrace __no_stack_protector
iocost_hook_handler(unsigned long ip, unsigned long parent_ip,
		    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct bio *bio = (void *)ftrace_regs_get_argument(fregs, 0);
	void *iocg = (void *)ftrace_regs_get_argument(fregs, 1);
	/* a bool argument is only defined in its low byte */
	bool is_merge = (u8)ftrace_regs_get_argument(fregs, 2);
	u64 *costp = (void *)ftrace_regs_get_argument(fregs, 3);

	if (iocost_hook_bio(bio, iocg, is_merge, costp))
		ftrace_regs_set_instruction_pointer(fregs,
						    (unsigned long)iocost_builtin_skipped);
}

#if IOCOST_HOOK_DIRECT
/**
 * iocost_hook_direct - the pricing hook, called by the direct entry
 * @bio: calc_vtime_cost_builtin()'s arguments, as it was called
 * @iocg: its iocg
 * @is_merge: its is_merge
 * @costp: where it stores the price
 *
 * Called only from iocost_direct_entry (hook_entry_x86.S), which ftrace
 * calls at the entry of calc_vtime_cost_builtin().
 *
 * Return: true when the model priced @bio (*@costp set): the entry then
 * returns to the builtin's caller; false: the builtin runs.
 */
bool notrace __no_stack_protector iocost_hook_direct(struct bio *bio,
						     void *iocg,
						     bool is_merge,
						     u64 *costp)
{
	return iocost_hook_bio(bio, iocg, is_merge, costp);
}
#endif
#else
/*
 * The same, at the entry of the IPA-SRA clone, whose arguments are
 * (three of the bio's fields, iocg, is_merge, costp): clone.c checks each
 * call against its caller's bio before the model may price it.
 */
static void notrace __no_stack_protector
iocost_hook_handler(unsigned long ip, unsigned long parent_ip,
		    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct iocost_clone_call c;
	struct iocost_binding *b;
	struct blkcg *blkcg;

	iocost_model_enter();
	b = iocost_clone_call(fregs, parent_ip, &c);
	if (!b || iocost_rt_atomic())
		goto out;
	blkcg = iocost_blkg_blkcg(c.blkg);
	if (unlikely(b->shadow)) {
		iocost_shadow(b, c.opf, c.nbytes, c.sector, blkcg, c.iocg,
			      c.is_merge);
		goto out;
	}
	*c.costp = iocost_price(b, c.opf, c.nbytes, c.sector, blkcg, c.iocg,
				c.is_merge);
	iocost_test_block();	/* test build, PREEMPT_RT: as a model may */
	ftrace_regs_set_instruction_pointer(fregs,
					    (unsigned long)iocost_builtin_skipped);
out:
	iocost_model_exit();
}
#endif

static struct ftrace_ops iocost_ftrace_ops = {
	.func = iocost_hook_handler,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT,
};

#if IOCOST_HOOK_DIRECT
void iocost_direct_entry(void);	/* hook_entry_x86.S */

/* register_ftrace_direct() sets the rest, the flags too */
static struct ftrace_ops iocost_direct_ops;

static bool direct_hook = true;
module_param(direct_hook, bool, 0444);
MODULE_PARM_DESC(direct_hook,
		 "enter the pricing hook by an ftrace direct call (default), or through an ftrace handler (0), as on kernels without direct calls");
#else
static struct ftrace_ops iocost_direct_ops;
static const bool direct_hook;
#define iocost_direct_entry NULL
#endif

/* blkcg_css_online(css) / blkcg_css_offline(css) -> every bound model */
static void notrace iocost_blkcg_notify(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_regs *fregs, bool online)
{
	struct cgroup_subsys_state *css = (void *)ftrace_regs_get_argument(fregs, 0);
	struct blkcg *blkcg = (void *)((char *)css - IOCOST_OFF_BLKCG_CSS);
	struct iocost_model *m;

	/*
	 * No ftrace recursion lock: it disables preemption, which the
	 * models' callbacks must not run under on PREEMPT_RT, and nothing a
	 * model can call creates or removes a cgroup.  The callbacks go
	 * through their struct_ops trampolines (migrate_disable() there).
	 */
	rcu_read_lock();
	list_for_each_entry_rcu(m, &iocost_bound_models, bound_node) {
		if (online && m->ops->blkcg_online)
			m->ops->blkcg_online(blkcg);
		else if (!online && m->ops->blkcg_offline)
			m->ops->blkcg_offline(blkcg);
	}
	rcu_read_unlock();
}

static void notrace iocost_online_handler(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	iocost_blkcg_notify(ip, parent_ip, fregs, true);
}

static void notrace iocost_offline_handler(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	iocost_blkcg_notify(ip, parent_ip, fregs, false);
}

/* bdev_mark_dead(bdev, surprise) -> binding.c */
static void notrace iocost_dead_handler(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *op,
					struct ftrace_regs *fregs)
{
	iocost_binding_disk_dead((void *)ftrace_regs_get_argument(fregs, 0));
}

static struct ftrace_ops iocost_online_ops = {
	.func = iocost_online_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static struct ftrace_ops iocost_offline_ops = {
	.func = iocost_offline_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static struct ftrace_ops iocost_dead_ops = {
	.func = iocost_dead_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

/*
 * every hook: its function, its ops, in the order they are attached; the
 * clone's callers before the clone, so that its first call finds a stash;
 * the pricing hook last, after ops that are all FTRACE_OPS_FL_PERMANENT
 * (a direct call's ops may not be: see the header comment), so that
 * kernel.ftrace_enabled=0 fails the first of them and cannot be set while
 * any is attached
 */
static struct {
	const char *func;
	struct ftrace_ops *ops;
} iocost_hooks[] = {
#if IOCOST_HOOK_CLONE
	/* the clone's callers: their bio, for the clone's checks (clone.c) */
	{ "ioc_rqos_throttle", &iocost_throttle_ops },
	{ "ioc_rqos_merge", &iocost_merge_ops },
#endif
	{ "blkcg_css_online", &iocost_online_ops },
	{ "blkcg_css_offline", &iocost_offline_ops },
	{ "bdev_mark_dead", &iocost_dead_ops },
	/* iocost_hook_init() makes it &iocost_direct_ops with direct_hook */
	{ IOCOST_HOOK_TARGET, &iocost_ftrace_ops },
};

#define IOCOST_PRICE_HOOK (ARRAY_SIZE(iocost_hooks) - 1)

/**
 * iocost_hook_entry - how the pricing hook is entered, for the load line
 *
 * Return: "ftrace direct call" or "ftrace, ip-modify".
 */
const char *iocost_hook_entry(void)
{
	return direct_hook ? "ftrace direct call" : "ftrace, ip-modify";
}

static int iocost_set_filter(struct ftrace_ops *ops, const char *func)
{
	int ret = ftrace_set_filter(ops, (unsigned char *)func, strlen(func), 1);

	if (ret)
		pr_err("cannot hook %s (ftrace_set_filter: %d): not traceable on this kernel\n",
		       func, ret);
	return ret ? -ENOENT : 0;
}

/*
 * Does the kernel have a compiler copy of @func (@func.constprop.N,
 * .part.N, .isra.N, ...)?  ftrace's glob "@func.*" matches exactly those.
 */
static bool iocost_has_copy(const char *func)
{
	struct ftrace_ops probe = {};
	char glob[KSYM_NAME_LEN + 2];
	bool found;

	snprintf(glob, sizeof(glob), "%s.*", func);
	found = !ftrace_set_filter(&probe, (unsigned char *)glob,
				   strlen(glob), 1);
	ftrace_free_filter(&probe);
	if (found)
		pr_err("this kernel has a compiler copy of %s (%s in available_filter_functions): callers of the copy would bypass the hook; not supported\n",
		       func, glob);
	return found;
}

/**
 * iocost_hook_exit - release the ftrace filters (the hooks are not attached)
 */
void iocost_hook_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(iocost_hooks); i++)
		ftrace_free_filter(iocost_hooks[i].ops);
	if (IOCOST_HOOK_CLONE)
		iocost_clone_exit();
}

/**
 * iocost_hook_init - find the hook targets; nothing is attached yet
 *
 * Return: 0, or -ENOENT (with a log line) if the running kernel does not
 * let ftrace attach to one of the hooked functions (the builtin pricing
 * function, blkcg online/offline, bdev_mark_dead), if one of them has
 * a compiler copy beside it that the hook would not see, or if a caller
 * of the pricing function does not call it (inlined there: clone.c).
 */
int iocost_hook_init(void)
{
	int i;

	/* every caller calls the hooked function (clone.c) */
	if (iocost_clone_init())
		return -ENOENT;
	if (direct_hook)
		iocost_hooks[IOCOST_PRICE_HOOK].ops = &iocost_direct_ops;
	for (i = 0; i < ARRAY_SIZE(iocost_hooks); i++) {
		if (iocost_has_copy(iocost_hooks[i].func) ||
		    iocost_set_filter(iocost_hooks[i].ops, iocost_hooks[i].func)) {
			iocost_hook_exit();
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * Attach hook @i.  The direct call's ops: a register_ftrace_direct() that
 * assigns the ops' flags (before the late-2025 fix) clears
 * FTRACE_OPS_FL_INITIALIZED, and the next registration refuses ops
 * without it; setting the filter again initializes them again.  Debian's
 * 6.12.118 does not need it (the suite passes without), older 6.12.y may.
 */
static int iocost_hook_register(int i)
{
	struct ftrace_ops *ops = iocost_hooks[i].ops;
	int ret;

	if (ops != &iocost_direct_ops)
		return register_ftrace_function(ops);
	ret = iocost_set_filter(ops, iocost_hooks[i].func);
	if (ret)
		return ret;
	return register_ftrace_direct(ops, (unsigned long)iocost_direct_entry);
}

static int iocost_hook_unregister(int i)
{
	struct ftrace_ops *ops = iocost_hooks[i].ops;

	if (ops != &iocost_direct_ops)
		return unregister_ftrace_function(ops);
	return unregister_ftrace_direct(ops, (unsigned long)iocost_direct_entry,
					false);
}

/**
 * iocost_hook_install - attach the handlers (first binding)
 *
 * Return: 0 or the ftrace error, logged; nothing is attached on error.
 * -EBUSY: another ip-modifying ftrace user (a livepatch) owns the pricing
 * function, or kernel.ftrace_enabled is 0.
 */
int iocost_hook_install(void)
{
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(iocost_hooks); i++) {
		ret = iocost_hook_register(i);
		if (ret)
			break;
	}
	if (!ret)
		return 0;
	pr_err("cannot attach to %s: %d%s\n", iocost_hooks[i].func, ret,
	       ret != -EBUSY ? "" : i != IOCOST_PRICE_HOOK ?
	       " (kernel.ftrace_enabled is 0?)" :
	       " (kernel.ftrace_enabled is 0, or another ip-modifying ftrace user such as a livepatch owns it)");
	while (i--)
		iocost_hook_unregister(i);
	return ret;
}

/**
 * iocost_hook_remove - detach the handlers (last binding gone)
 *
 * Waits until no CPU runs a handler any more.
 */
void iocost_hook_remove(void)
{
	int i = ARRAY_SIZE(iocost_hooks);
	long atomic;

	iocost_test_unregistering();
	while (i--)
		WARN_ON_ONCE(iocost_hook_unregister(i));
	atomic = atomic_long_xchg(&iocost_rt_atomic_bios, 0);
	if (atomic)
		pr_warn("%s: %ld bios of bound disks priced by the builtin: ftrace called the hook with preemption disabled on PREEMPT_RT\n",
			IOCOST_HOOK_TARGET, atomic);
}
