/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_linear.bpf.h - the builtin linear cost formula, for BPF models
 *
 * blk-iocost derives per-op coefficients from the device's bps/seqiops/
 * randiops (calc_lcoefs()): page = ceil(VTIME_PER_SEC / ceil(bps / 4096)),
 * seqio = ceil(VTIME_PER_SEC / seqiops) - page and randio likewise.  A bio
 * then costs base + pages * page, where base is seqio or randio (none on a
 * merge) and pages = max(nbytes >> 12, 1), truncating like the builtin.
 *
 * The coefficients are the priced disk's own, read live with the
 * module's bpf_iocost_dev_params() kfunc: whatever io.cost.model says now
 * (autop's profile for the device, or the user's), as the builtin derived
 * them.  Built with -DIOCOST_FIXED_HDD (the *_hdd models), or where the
 * kfunc fails, they are what the builtin derives from the HDD
 * autop profile instead, the constants the series' models hard-code: the
 * seed comparison with them stays reproducible on any disk.  Unlike the
 * builtin, which prices them at 0, bios that are not data READ/WRITE
 * (flushes, discards, ...) are priced as pages write pages, with no base.
 */
#ifndef _IOCOST_LINEAR_BPF_H
#define _IOCOST_LINEAR_BPF_H

/*
 * blk-iocost's page and sector shifts, its 16 MiB random-seek threshold
 * and the HDD autop profile: the same constants as the module's copy of
 * the formula
 */
#include "iocost_linear.h"

/* bi_opf's operation (REQ_OP_MASK: vmlinux.h has the ops, not the mask) */
#define IOCOST_REQ_OP_MASK	0xff

/* a / b rounded up, for a > 0 (constants: the tables below) */
#define IOCOST_DIV_UP(a, b)	(((a) - 1) / (b) + 1)
#define IOCOST_PAGE_COEF(bps)	\
	IOCOST_DIV_UP(IOCOST_VTIME_PER_SEC, IOCOST_DIV_UP(bps, 1ULL << IOCOST_PAGE_SHIFT))
#define IOCOST_IO_COEF(iops, bps) \
	(IOCOST_DIV_UP(IOCOST_VTIME_PER_SEC, iops) - IOCOST_PAGE_COEF(bps))

/* the HDD autop profile as the builtin prices it (dev 0, vrate 100%) */
static const struct iocost_dev_params iocost_hdd_params = {
	.vrate_ppm = 1000000,
	.rbps = IOCOST_HDD_RBPS,
	.rseqiops = IOCOST_HDD_RSEQIOPS,
	.rrandiops = IOCOST_HDD_RRANDIOPS,
	.wbps = IOCOST_HDD_WBPS,
	.wseqiops = IOCOST_HDD_WSEQIOPS,
	.wrandiops = IOCOST_HDD_WRANDIOPS,
	.rpage = IOCOST_PAGE_COEF(IOCOST_HDD_RBPS),
	.rseqio = IOCOST_IO_COEF(IOCOST_HDD_RSEQIOPS, IOCOST_HDD_RBPS),
	.rrandio = IOCOST_IO_COEF(IOCOST_HDD_RRANDIOPS, IOCOST_HDD_RBPS),
	.wpage = IOCOST_PAGE_COEF(IOCOST_HDD_WBPS),
	.wseqio = IOCOST_IO_COEF(IOCOST_HDD_WSEQIOPS, IOCOST_HDD_WBPS),
	.wrandio = IOCOST_IO_COEF(IOCOST_HDD_WRANDIOPS, IOCOST_HDD_WBPS),
};

/* does this bio take part in sequentiality tracking (a data READ/WRITE)? */
static __always_inline bool iocost_is_data_rw(u64 opf, u64 nbytes)
{
	u64 op = opf & IOCOST_REQ_OP_MASK;

	return nbytes && (op == REQ_OP_READ || op == REQ_OP_WRITE);
}

/* the sector a sequential successor of this bio starts at */
static __always_inline u64 iocost_end_sector(u64 sector, u64 nbytes)
{
	return sector + (nbytes >> IOCOST_SECT_SHIFT);
}

/* is a bio at @sector sequential to a stream whose cursor is @cursor? */
static __always_inline bool iocost_seek_is_seq(u64 sector, u64 cursor)
{
	u64 seek;

	if (!cursor)
		return true;	/* no previous IO */
	seek = sector > cursor ? sector - cursor : cursor - sector;
	return (seek >> IOCOST_SECT_TO_PAGE_SHIFT) <= IOCOST_RANDIO_PAGES;
}

/*
 * The priced disk's parameters, read once per calc_cost into @buf, the
 * model's stack (one kfunc call); the model passes the result to the
 * helpers below.  The fixed-HDD build prices every disk with the HDD
 * profile, as disk 0 (one set of cursors); so does a kernel whose BTF
 * lacks the parameters, with the disk's own number.
 */
static __always_inline const struct iocost_dev_params *
iocost_cur_params(struct iocost_dev_params *buf)
{
#ifndef IOCOST_FIXED_HDD
	if (bpf_iocost_dev_params(buf)) {
		*buf = iocost_hdd_params;
		buf->dev = bpf_iocost_dev();
	}
	return buf;
#else
	return &iocost_hdd_params;
#endif
}

/* the disk being priced */
static __always_inline u32 iocost_cur_dev(const struct iocost_dev_params *p)
{
	return p->dev;
}

/* one coefficient of the priced disk */
static __always_inline u64 iocost_page_coef(const struct iocost_dev_params *p,
					    bool read)
{
	return read ? p->rpage : p->wpage;
}

static __always_inline u64 iocost_seek_coef(const struct iocost_dev_params *p,
					    bool read, bool seq)
{
	if (read)
		return seq ? p->rseqio : p->rrandio;
	return seq ? p->wseqio : p->wrandio;
}

/**
 * iocost_linear_cost - the builtin formula with the disk's coefficients
 * @p: iocost_cur_params()'s result
 * @opf: bio->bi_opf
 * @nbytes: bio size
 * @seq: the IO is judged sequential
 * @model_flags: IOCOST_COST_F_MERGE skips the base
 */
static __always_inline u64 iocost_linear_cost(const struct iocost_dev_params *p,
					      u64 opf, u64 nbytes, bool seq,
					      u64 model_flags)
{
	u64 pages = nbytes >> IOCOST_PAGE_SHIFT;
	bool read = (opf & IOCOST_REQ_OP_MASK) == REQ_OP_READ;
	u64 cost = 0;

	if (!pages)
		pages = 1;
	if (!iocost_is_data_rw(opf, nbytes))
		return pages * iocost_page_coef(p, false);
	if (!(model_flags & IOCOST_COST_F_MERGE))
		cost = iocost_seek_coef(p, read, seq);
	return cost + pages * iocost_page_coef(p, read);
}

/* the model's registry name: NAME, or NAME_hdd for the fixed-HDD build */
#ifdef IOCOST_FIXED_HDD
#define IOCOST_MODEL_NAME(n)	n "_hdd"
#else
#define IOCOST_MODEL_NAME(n)	n
#endif

#endif /* _IOCOST_LINEAR_BPF_H */
