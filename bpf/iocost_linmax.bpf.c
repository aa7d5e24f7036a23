// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_linmax - whichever limit an IO hits first: IOPS or bandwidth
 *
 * Cloud and network disks are sold as two limits, so many IOs per second
 * and so many bytes per second, and an IO costs whichever of the two it
 * uses up first.  The builtin linear model adds the two instead: a bio
 * costs its seek (the per-IO part) plus its pages (the per-byte part), so
 * at a block size near bps / iops every IO is charged about twice the
 * device time it takes, and a cgroup gets half the throughput its weight
 * entitles it to.  This model charges max(per-IO cost, per-byte cost):
 *
 *	per-IO   = randio + page	(one random page: 1 / randiops)
 *	per-byte = pages * page		(nbytes / bps)
 *
 * with the bound disk's live coefficients (iocost_linear.bpf.h), pages
 * truncating as in the builtin (at least one).  IOPS limits of such disks
 * do not depend on where an IO lands, so the model keeps no cursor and
 * prices every IO with the random coefficient: give io.cost.model the
 * disk's IOPS limit as both seqiops and randiops.  A merge adds pages to
 * a request already charged its per-IO cost: it costs its pages.  Bios
 * that are not data READ/WRITE (flushes, discards) cost their pages as
 * writes, as in the other models.  Its fixed-HDD build registers as
 * iocost_lmax_hdd (a model name has at most 15 characters).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/calc_cost")
u64 BPF_PROG(linmax_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	struct iocost_dev_params params;
	const struct iocost_dev_params *p = iocost_cur_params(&params);
	bool read = (opf & IOCOST_REQ_OP_MASK) == REQ_OP_READ;
	u64 pages = nbytes >> IOCOST_PAGE_SHIFT;
	u64 page, per_io, per_byte;

	if (!iocost_is_data_rw(opf, nbytes) ||
	    (model_flags & IOCOST_COST_F_MERGE))
		return iocost_linear_cost(p, opf, nbytes, false, model_flags);
	if (!pages)
		pages = 1;
	page = iocost_page_coef(p, read);
	per_io = iocost_seek_coef(p, read, false) + page;
	per_byte = pages * page;
	return per_io > per_byte ? per_io : per_byte;
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)linmax_calc_cost,
#ifdef IOCOST_FIXED_HDD
	.name = "iocost_lmax_hdd",	/* iocost_linmax_hdd: 17 bytes, the ABI has 16 */
#else
	.name = "iocost_linmax",
#endif
};
