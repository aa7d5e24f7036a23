/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_bpf.h - internal interfaces between the module's files
 *
 * main.c	module init/exit, the kernel checks
 * ctl.c	control path: struct_ops type, model registry, sysfs
 * binding.c	the bindings (disk -> model): bind, replace, retire, find,
 *		when the hooks are attached; disk removal
 * hook.c	data path: bio -> ftrace hook -> bound model -> clamp -> charge,
 *		blkcg online/offline -> bound models, bdev_mark_dead -> binding.c
 * devctx.c	what a model may ask about the disk it prices (kfuncs), and
 *		the builtin's price for shadow mode
 * clone.c	kernels with only GCC's IPA-SRA clone of the pricing function:
 *		its callers' calls, the per-bio checks, the registers' mapping
 * tick.c	observability: ioc_timer_fn -> the iocost_ioc_tick trace event
 * parse.c	pure parsers shared with the host tests and fuzzer
 */
#ifndef _IOCOST_BPF_H
#define _IOCOST_BPF_H

#include <linux/types.h>
#include <linux/blkdev.h>
#include <linux/bpf.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include "../include/iocost_model.h"
#include "iocost_btf.h"		/* generated from the target kernel's BTF */
#include "testhooks.h"

struct blkcg_gq;
struct block_device;
struct btf;
struct bpf_map;
struct bpf_prog;
struct gendisk;
struct mutex;
struct seq_buf;

/**
 * struct iocost_model - a registered (or still bound) BPF cost model
 * @node: entry in the registry while registered
 * @bound_node: entry in iocost_bound_models (RCU) while bound: those
 *	models receive the blkcg lifecycle callbacks
 * @ops: the struct_ops kernel data (calc_cost & co)
 * @map: the struct_ops map that owns @ops
 * @calc_prog: the program behind @ops->calc_cost, called directly by the
 *	hook, or NULL to call @ops->calc_cost (iocost_hook_model_prog())
 * @name: copy of @ops->name
 * @registered: still in the registry (can be bound by name)
 * @nr_bindings: devices priced by this model
 * @rcu: frees the object after the handlers that may still see it
 *
 * Every binding holds a reference on @map, which keeps @ops and its
 * programs alive after the struct_ops is unregistered.  The object itself
 * is freed, after a grace period, when it is neither registered nor bound.
 * All fields but @ops and @map are protected by iocost_lock; @node,
 * @registered and @nr_bindings change under iocost_show_lock too.
 */
struct iocost_model {
	struct list_head node;
	struct list_head bound_node;
	struct iocost_model_ops *ops;
	struct bpf_map *map;
	struct bpf_prog *calc_prog;
	char name[IOCOST_MODEL_NAME_LEN];
	bool registered;
	unsigned int nr_bindings;
	struct rcu_head rcu;
};

/*
 * Why the builtin priced a bound disk's bio on a kernel hooked through the
 * IPA-SRA clone (clone.c; stats "fallback_NAME="): the caller's kind is
 * not is_merge, the return address is not one of the caller's calls, costp
 * is not on the task's stack, the registers are not the bio's fields, or
 * iocg is not the bio's blkg's (the list: iocost_stats.h).
 */
enum iocost_fallback {
#define IOCOST_FALLBACK(reason) IOCOST_FB_##reason
#include "iocost_stats.h"
#undef IOCOST_FALLBACK
	IOCOST_NR_FALLBACK
};

/**
 * struct iocost_stats - per-cpu counters of one binding
 * @charges: bios priced by the model
 * @merges: of which merges (IOCOST_COST_F_MERGE)
 * @nodata: of which bios without data (flushes): the builtin prices them 0
 * @zero: data bios the model priced at 0
 * @clamped: prices above IOCOST_VTIME_PER_SEC, charged as that
 * @vtime: total vtime of the model's prices (charged unless shadow mode)
 * @builtin: shadow mode: total vtime of the builtin's prices, charged
 * @hist: shadow mode: IOs by model/builtin (iocost_hist_bucket())
 * @fallback: IPA-SRA clone kernels: bios left to the builtin, by reason
 * @learning: IPA-SRA clone kernels: bios the builtin priced while the
 *	registers' mapping was learned
 *
 * The scalar counters are declared from the list of the stats file's
 * fields, iocost_stats.h.  Every member is a u64 counter or an array of
 * them: iocost_binding_stats() sums the struct as an array of u64.
 */
struct iocost_stats {
#define IOCOST_STAT(name) u64 name
#define IOCOST_STAT_SHADOW(name) u64 name
#define IOCOST_STAT_CLONE(name) u64 name
#include "iocost_stats.h"
#undef IOCOST_STAT
#undef IOCOST_STAT_SHADOW
#undef IOCOST_STAT_CLONE
	u64 hist[IOCOST_NR_HIST];
	u64 fallback[IOCOST_NR_FALLBACK];
};

/**
 * struct iocost_binding - one device priced by a model (binding.c)
 * @hnode: entry in the RCU hash the pricing handler looks disks up in
 * @node: entry in the list of bindings, in binding order
 * @devt: the whole disk's dev_t
 * @diskseq: the disk's sequence number, so that a new disk reusing @devt
 *	does not inherit the binding
 * @model: the bound model
 * @map: @model's struct_ops map, referenced by this binding
 * @stats: counters since this binding was made
 * @shadow: shadow mode: the model prices every bio, the builtin's price
 *	is charged
 * @gone: the disk went away; the binding is being retired
 * @free_model: retiring this binding frees @model (its last binding, and
 *	it is no longer registered)
 */
struct iocost_binding {
	struct hlist_node hnode;
	struct list_head node;
	dev_t devt;
	u64 diskseq;
	struct iocost_model *model;
	struct bpf_map *map;
	struct iocost_stats __percpu *stats;
	bool shadow;
	bool gone;
	bool free_model;
	struct rcu_work free;	/* iocost_bindings_free() */
};

/* binding.c */
extern struct mutex iocost_lock;	/* registry and bindings */
extern struct mutex iocost_show_lock;	/* what the control files show */
extern struct list_head iocost_bound_models;
#define IOCOST_BINDINGS_HASH_BITS 6
extern DECLARE_HASHTABLE(iocost_bindings_hash, IOCOST_BINDINGS_HASH_BITS);

/**
 * iocost_binding_lookup - the binding of a disk, by its dev_t and diskseq
 * @devt: the whole disk's dev_t
 * @diskseq: its sequence number
 *
 * Inline: the pricing handler runs it for every bio.  The IPA-SRA clone's
 * handler (clone.c) has these copied, not a disk it may follow.
 *
 * Context: an RCU read-side critical section (the handler's).
 * Return: the binding, or NULL if that disk is not bound.
 */
static __always_inline struct iocost_binding *
iocost_binding_lookup(dev_t devt, u64 diskseq)
{
	struct iocost_binding *b;

	hash_for_each_possible_rcu_notrace(iocost_bindings_hash, b, hnode, devt)
		if (b->devt == devt && b->diskseq == diskseq)
			return b;
	return NULL;
}

/**
 * iocost_binding_find - the binding of a disk, for the pricing handler
 * @disk: the bio's disk
 *
 * Context: an RCU read-side critical section (the handler's).
 * Return: the binding, or NULL if @disk (this disk, not an earlier one
 * with the same dev_t) is not bound.
 */
static __always_inline struct iocost_binding *
iocost_binding_find(struct gendisk *disk)
{
	return iocost_binding_lookup(disk_devt(disk), disk->diskseq);
}

int iocost_bind(struct gendisk *disk, const char *name, bool shadow);
bool iocost_unbind(dev_t devt);
void iocost_unbind_all(void);
int iocost_binding_init(void);
void iocost_binding_exit(void);
void iocost_binding_disk_dead(struct block_device *bdev);
void iocost_bindings_show(struct seq_buf *s,
			  void (*fn)(struct seq_buf *s,
				     const struct iocost_binding *b));
void iocost_binding_stats(const struct iocost_binding *b,
			  struct iocost_stats *sum);
unsigned int iocost_model_nr_shown(const struct iocost_model *m);

/*
 * hook.c; the hooked function is checked in BTF at build time (btfgen.c).
 * Where BTF has only its callers, the kernel has GCC's IPA-SRA clone of it
 * instead, found at init (clone.c).
 */
#define IOCOST_HOOK_CLONE (!IOCOST_HAVE_CALC_VTIME_COST_BUILTIN)
#if IOCOST_HOOK_CLONE
extern char iocost_clone_target[];
#define IOCOST_HOOK_TARGET iocost_clone_target
#else
#define IOCOST_HOOK_TARGET "calc_vtime_cost_builtin"
#endif

/*
 * Where the hook is on the function itself, x86-64 enters it by an ftrace
 * direct call (hook_entry_x86.S) unless the module parameter direct_hook=0
 * asks for the ftrace handler (hook.c).
 */
#define IOCOST_HOOK_DIRECT (!IOCOST_HOOK_CLONE && IS_ENABLED(CONFIG_X86_64) && \
			    IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))

int iocost_hook_init(void);
void iocost_hook_exit(void);
int iocost_hook_install(void);
void iocost_hook_remove(void);
struct bpf_prog *iocost_hook_model_prog(struct bpf_map *map, const char **why);
const char *iocost_hook_entry(void);
bool iocost_hook_direct(struct bio *bio, void *iocg, bool is_merge, u64 *costp);

/**
 * struct iocost_calc_ctx - what the model's calc_cost is pricing, for the
 *	device-context kfuncs (devctx.c)
 * @b: the disk's binding
 * @iocg: blk-iocost's per-cgroup, per-disk state the builtin was given
 * @prev: the context this one hides (an interrupt's bio priced while a
 *	task's is)
 * @run_ctx: PREEMPT_RT: what current->bpf_ctx points to while the model runs
 * @saved: PREEMPT_RT: the run context it replaced
 * @key: PREEMPT_RT: how the kfuncs recognize a context (devctx.c)
 *
 * Lives on the pricing handler's stack while the model runs; never handed
 * to a program.
 */
struct iocost_calc_ctx {
	const struct iocost_binding *b;
	const void *iocg;
#ifndef CONFIG_PREEMPT_RT
	struct iocost_calc_ctx *prev;
#else
	struct bpf_run_ctx run_ctx;
	struct bpf_run_ctx *saved;
	unsigned long key;
#endif
};

/* devctx.c */
#ifndef CONFIG_PREEMPT_RT
/* the innermost context of this CPU: the model runs with preemption off */
DECLARE_PER_CPU(struct iocost_calc_ctx *, iocost_cur_ctx);

/**
 * iocost_calc_ctx_push - make @c the context of the model about to run
 * @c: on the caller's stack, @c->b and @c->iocg set
 *
 * Inline: it runs for every priced bio.  On PREEMPT_RT, where the model
 * runs preemptible, the context is the task's BPF run context (devctx.c).
 *
 * Context: the pricing handler, inside iocost_model_enter().
 */
static __always_inline void iocost_calc_ctx_push(struct iocost_calc_ctx *c)
{
	c->prev = this_cpu_read(iocost_cur_ctx);
	this_cpu_write(iocost_cur_ctx, c);
}

/**
 * iocost_calc_ctx_pop - the model that @c was pushed for has returned
 * @c: as given to iocost_calc_ctx_push()
 */
static __always_inline void iocost_calc_ctx_pop(struct iocost_calc_ctx *c)
{
	this_cpu_write(iocost_cur_ctx, c->prev);
}
#else
void iocost_calc_ctx_push(struct iocost_calc_ctx *c);
void iocost_calc_ctx_pop(struct iocost_calc_ctx *c);
#endif
bool iocost_devctx_shadow_ok(void);
u64 iocost_builtin_price(const void *iocg, u64 opf, u64 nbytes, u64 sector,
			 bool is_merge);
unsigned int iocost_hist_bucket(u64 model, u64 builtin);

/* clone.c: kernels with only the IPA-SRA clone (IOCOST_HOOK_CLONE) */
enum { IOCOST_KIND_THROTTLE, IOCOST_KIND_MERGE, IOCOST_NR_KINDS };

/**
 * struct iocost_clone_call - one checked call of the IPA-SRA clone
 * @blkg: the blkg of the bio its caller was given, which is iocg's
 * @iocg: its iocg argument
 * @costp: where it stores the price
 * @opf: the bio's bi_opf, as passed in a register
 * @nbytes: its bi_iter.bi_size
 * @sector: its bi_iter.bi_sector
 * @is_merge: its is_merge argument
 */
struct iocost_clone_call {
	struct blkcg_gq *blkg;
	const void *iocg;
	u64 *costp;
	u64 opf;
	u64 nbytes;
	u64 sector;
	bool is_merge;
};

struct ftrace_ops;
struct ftrace_regs;
extern struct ftrace_ops iocost_throttle_ops, iocost_merge_ops;
extern const char * const iocost_fallback_names[IOCOST_NR_FALLBACK];
int iocost_clone_init(void);
void iocost_clone_exit(void);
const char *iocost_clone_refuses(void);
struct iocost_binding *iocost_clone_call(struct ftrace_regs *fregs,
					 unsigned long parent_ip,
					 struct iocost_clone_call *c);
void iocost_clone_show(struct seq_buf *s);
int iocost_devctx_init(void);

/* tick.c */
void iocost_tick_init(void);
void iocost_tick_exit(void);

/* ctl.c */
int iocost_ctl_init(void);
void iocost_ctl_exit(void);
int iocost_ctl_register_ops(void);
struct iocost_model *iocost_model_find(const char *name);
const struct btf *iocost_ctl_btf(void);

#endif /* _IOCOST_BPF_H */
