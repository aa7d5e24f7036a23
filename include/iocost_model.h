/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_model.h - the iocost_model_ops cost-model ABI
 *
 * This is the model ABI, shared by the iocost_bpf module and the BPF cost
 * models (blk-iocost's constants of its linear formula, which both use
 * too, are include/iocost_linear.h's).  It keeps the interface of the
 * in-kernel "blk-iocost: BPF struct_ops cost model" series (RFC v3)
 * exactly, so that a model written for that series loads on the module
 * unchanged:
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
 * Device context (an addition of this module, not in the series: models
 * that do not call these load unchanged).  The module registers two
 * kfuncs for iocost_model_ops programs, and for no other program:
 *
 *  u32 bpf_iocost_dev(void) - the disk being priced, as the kernel's
 *	dev_t (MAJ << 20 | MIN), during calc_cost; 0 (no disk's number)
 *	anywhere else, e.g. in blkcg_online().
 *  int bpf_iocost_dev_params(struct iocost_dev_params *params) - copies
 *	that disk's cost model as blk-iocost holds it at this moment into
 *	@params (the program's stack or a map value): its io.cost.model
 *	(autop or user-set) and the vtime coefficients the builtin charges
 *	with, plus the device's current vrate.  0 on success; -ENOENT
 *	outside calc_cost, -EOPNOTSUPP on a kernel whose BTF lacks one of
 *	the fields (the module says so in the kernel log when it loads),
 *	@params zeroed then.  Every call reads the parameters anew, so a
 *	change of io.cost.model reaches the next IO.
 *
 * "Outside calc_cost" includes a calc_cost program's bpf_timer callback,
 * which may run in a softirq while the model it interrupted prices a bio:
 * the kfuncs answer only the invocation of calc_cost they are called from.
 *
 * BPF models include their vmlinux.h first: it supplies u64, sector_t and
 * the kernel's real struct blkcg.  A vmlinux.h dumped from a kernel that
 * already carries the type defines IOCOST_MODEL_OPS_IN_VMLINUX_H to skip
 * the definition below.
 */
#ifndef _IOCOST_MODEL_H
#define _IOCOST_MODEL_H

/*
 * The series spells these two as shifts of 1ULL (bit 0; 2^37, blk-iocost's
 * VTIME_PER_SEC).  checkpatch wants BIT_ULL() for a shift, which BPF
 * programs and user space (no <linux/bits.h>) lack, so they are written in
 * hex: the same unsigned long long values, which tests/unit/test_parse.c
 * checks against the shifts.
 */

/* model_flags: the bio is being merged into an existing request (bit 0) */
#define IOCOST_COST_F_MERGE	0x1ULL

/* one second of device time in vtime units (2^37), and the per-IO price cap */
#define IOCOST_VTIME_PER_SEC	0x2000000000ULL

#define IOCOST_MODEL_NAME_LEN	16

/* the name that restores the builtin linear model; never a model's name */
#define IOCOST_MODEL_LINEAR	"linear"

struct blkcg;

/**
 * struct iocost_dev_params - the priced disk's cost model, read live
 * @dev: the disk's dev_t (MAJ << 20 | MIN)
 * @vrate_ppm: the device's current vrate in parts per million (1000000:
 *	100%); blk-iocost scales how fast vtime passes by it, not prices
 * @rbps: io.cost.model's rbps, bytes per second; and so on: the six
 *	inputs of the linear model, autop's or the user's
 * @rpage: vtime per 4 KiB page read, as blk-iocost derives it from @rbps
 * @rseqio: vtime of a sequential read's seek, on top of its pages
 * @rrandio: vtime of a random read's seek
 * @wpage: @wseqio: @wrandio: the same for writes
 *
 * The builtin prices a READ or WRITE bio of n bytes as seqio or randio
 * (none for a merge) + max(n >> 12, 1) * page, with these coefficients.
 */
struct iocost_dev_params {
	u32 dev;
	u32 pad;
	u64 vrate_ppm;
	u64 rbps;
	u64 rseqiops;
	u64 rrandiops;
	u64 wbps;
	u64 wseqiops;
	u64 wrandiops;
	u64 rpage;
	u64 rseqio;
	u64 rrandio;
	u64 wpage;
	u64 wseqio;
	u64 wrandio;
};

#if defined(__bpf__) && !defined(IOCOST_NO_KFUNCS)
__ksym u32 bpf_iocost_dev(void);
__ksym int bpf_iocost_dev_params(struct iocost_dev_params *params);
#endif

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
