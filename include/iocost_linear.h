/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_linear.h - blk-iocost's constants of the builtin linear model
 *
 * block/blk-iocost.c keeps these as #defines and a static table, which are
 * not in the kernel's BTF.  Both copies of the builtin's formula include
 * this header: the module's (iocost_builtin_price() in src/devctx.c, the
 * price shadow mode compares with) and the BPF models'
 * (bpf/iocost_linear.bpf.h), so that the two cannot drift apart.  Plain
 * integer constants, no types and no includes: the module, BPF programs
 * and user space can all include it.  The model ABI itself (calc_cost's
 * arguments, IOCOST_VTIME_PER_SEC, the kfuncs) is include/iocost_model.h.
 */
#ifndef _IOCOST_LINEAR_H
#define _IOCOST_LINEAR_H

/* a sector is 512 bytes (SECTOR_SHIFT): bi_sector counts them */
#define IOCOST_SECT_SHIFT		9
/* blk-iocost prices data in 4 KiB pages (IOC_PAGE_SHIFT) */
#define IOCOST_PAGE_SHIFT		12
/* sectors to pages (IOC_SECT_TO_PAGE_SHIFT) */
#define IOCOST_SECT_TO_PAGE_SHIFT	(IOCOST_PAGE_SHIFT - IOCOST_SECT_SHIFT)
/*
 * a seek of more than this many pages (16 MiB) from the cgroup's cursor
 * makes an IO random (LCOEF_RANDIO_PAGES)
 */
#define IOCOST_RANDIO_PAGES		4096

/*
 * autop's profile for rotational disks (autop[AUTOP_HDD]): io.cost.model's
 * six inputs, bytes and IOs per second.  The series' models hard-code the
 * coefficients derived from them; here the *_hdd builds of the example
 * models price with them.
 */
#define IOCOST_HDD_RBPS			174019176ULL
#define IOCOST_HDD_RSEQIOPS		41708ULL
#define IOCOST_HDD_RRANDIOPS		370ULL
#define IOCOST_HDD_WBPS			178075866ULL
#define IOCOST_HDD_WSEQIOPS		42705ULL
#define IOCOST_HDD_WRANDIOPS		378ULL

#endif /* _IOCOST_LINEAR_H */
