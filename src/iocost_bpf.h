/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_bpf.h - internal interfaces between the module's files
 *
 * main.c	module init/exit, the kernel checks
 * ctl.c	control path: struct_ops type, model registry, sysfs, bindings
 * hook.c	data path: bio -> ftrace hook -> bound model -> clamp -> charge,
 *		and blkcg online/offline -> bound models
 * tick.c	observability: ioc_timer_fn -> the iocost_ioc_tick trace event
 * parse.c	pure parsers shared with the host tests and fuzzer
 */
#ifndef _IOCOST_BPF_H
#define _IOCOST_BPF_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include "../include/iocost_model.h"
#include "iocost_btf.h"		/* generated from the target kernel's BTF */

struct bpf_map;
struct bpf_prog;
struct ftrace_ops;

/**
 * struct iocost_model - a registered (or still bound) BPF cost model
 * @node: entry in the registry while registered
 * @bound_node: entry in the hook's RCU list of bound models, which receive
 *	the blkcg lifecycle callbacks
 * @ops: the struct_ops kernel data (calc_cost & co)
 * @map: the struct_ops map that owns @ops
 * @calc_prog: the program behind @ops->calc_cost, called directly by the
 *	hook, or NULL to call @ops->calc_cost (iocost_hook_model_prog())
 * @name: copy of @ops->name
 * @registered: still in the registry (can be bound by name)
 * @nr_bindings: devices priced by this model
 *
 * Every binding holds a reference on @map, which keeps @ops and its
 * programs alive after the struct_ops is unregistered.  The object itself
 * is freed when it is neither registered nor bound.  All fields but @ops
 * and @map are protected by iocost_ctl_lock.
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
};

/**
 * struct iocost_stats - per-cpu counters of one binding
 * @charges: bios priced by the model
 * @merges: of which merges (IOCOST_COST_F_MERGE)
 * @nodata: of which bios without data (flushes): the builtin prices them 0
 * @zero: data bios the model priced at 0
 * @clamped: prices above IOCOST_VTIME_PER_SEC, charged as that
 * @vtime: total vtime charged
 */
struct iocost_stats {
	u64 charges;
	u64 merges;
	u64 nodata;
	u64 zero;
	u64 clamped;
	u64 vtime;
};

/**
 * struct iocost_binding - one device priced by a model
 * @hnode: entry in the hook's RCU hash table
 * @node: entry in the control path's list of bindings
 * @devt: the whole disk's dev_t
 * @diskseq: the disk's sequence number, so that a new disk reusing @devt
 *	does not inherit the binding
 * @model: the bound model
 * @stats: counters since this binding was made
 */
struct iocost_binding {
	struct hlist_node hnode;
	struct list_head node;
	dev_t devt;
	u64 diskseq;
	struct iocost_model *model;
	struct iocost_stats __percpu *stats;
};

/* hook.c; the hooked function is checked in BTF at build time (btfgen.c) */
#define IOCOST_HOOK_TARGET "calc_vtime_cost_builtin"

int iocost_hook_init(void);
void iocost_hook_exit(void);
int iocost_hook_install(void);
void iocost_hook_remove(void);
void iocost_hook_publish(struct iocost_binding *b, struct iocost_binding *old);
void iocost_hook_unpublish(struct iocost_binding *b);
void iocost_hook_publish_model(struct iocost_model *m);
void iocost_hook_unpublish_model(struct iocost_model *m);
struct bpf_prog *iocost_hook_model_prog(struct bpf_map *map);

/* tick.c */
void iocost_tick_init(void);
void iocost_tick_exit(void);

/* ctl.c */
int iocost_ctl_init(void);
void iocost_ctl_exit(void);
int iocost_ctl_register_ops(void);

#endif /* _IOCOST_BPF_H */
