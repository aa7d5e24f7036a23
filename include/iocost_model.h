/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_model.h - the iocost_model_ops cost-model ABI
 *
 * This is the one header shared by the iocost_bpf module and the BPF cost
 * models.  It keeps the interface of the in-kernel "blk-iocost: BPF
 * struct_ops cost model" series (RFC v3) exactly, so that a model written
 * for that series loads on the module unchanged:
 *
 *  calc_cost(opf, nbytes, sector, blkcg, model_flags) prices one bio in
 *	vtime (IOCOST_VTIME_PER_SEC is one second of device time).  @opf is
 *	the whole bio->bi_opf (op = opf & 0xff, flag bits kept), @nbytes is
 *	bio->bi_iter.bi_size, @sector is bio->bi_iter.bi_sector, @blkcg is
 *	the issuing cgroup's blkcg (reach the cgroup as blkcg->css.cgroup)
 *	and @model_flags carries IOCOST_COST_F_MERGE for a bio being merged
 *	into an existing request.  The result is clamped to
 *	IOCOST_VTIME_PER_SEC.  Runs under RCU in the submission path: it
 *	must not sleep.  Required.
 *  blkcg_online(blkcg) / blkcg_offline(blkcg) follow the blkcg css
 *	lifecycle while the model is bound to at least one device.  Optional.
 *  name is the registry name used for binding (NUL-terminated, printable,
 *	no blanks, not "linear").
 *
 * BPF models include their vmlinux.h first: it supplies u64, sector_t and
 * the kernel's real struct blkcg.  A vmlinux.h dumped from a kernel that
 * already carries the type defines IOCOST_MODEL_OPS_IN_VMLINUX_H to skip
 * the definition below.
 */
#ifndef _IOCOST_MODEL_H
#define _IOCOST_MODEL_H

/* model_flags: the bio is being merged into an existing request */
#define IOCOST_COST_F_MERGE	(1ULL << 0)

/* one second of device time in vtime units, and the per-IO price cap */
#define IOCOST_VTIME_PER_SEC	(1ULL << 37)

#define IOCOST_MODEL_NAME_LEN	16

/* the name that restores the builtin linear model; never a model's name */
#define IOCOST_MODEL_LINEAR	"linear"

struct blkcg;

#ifndef IOCOST_MODEL_OPS_IN_VMLINUX_H
struct iocost_model_ops {
	u64 (*calc_cost)(u64 opf, u64 nbytes, sector_t sector,
			 struct blkcg *blkcg, u64 model_flags);
	void (*blkcg_online)(struct blkcg *blkcg);
	void (*blkcg_offline)(struct blkcg *blkcg);
	char name[IOCOST_MODEL_NAME_LEN];
};
#endif

#endif /* _IOCOST_MODEL_H */
