// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_tmpl - the template to copy when you write a cost model
 *
 * The smallest model that prices like blk-iocost does: the builtin linear
 * formula, with the coefficients of the disk it is bound to, read live,
 * and no state at all.  Without a cursor it cannot tell a sequential IO
 * from a random one, so it prices every data IO as random: a seek plus
 * its pages.  On a disk whose io.cost.model gives seqiops = randiops it
 * charges data IO what the builtin charges; elsewhere sequential IO costs
 * more than under the builtin.  Bios that are not data READ/WRITE cost
 * their pages as writes (a flush: one write page), which the builtin
 * prices 0.
 *
 * bpf/README.md walks through it; the VM suite builds, loads, binds and
 * prices with it (tests/vm/t/02-register.sh).
 *
 * What blk-iocost asks.  For every bio it meters on a bound disk (the IO
 * of cgroups below the root: the root cgroup's IO is not priced) and for
 * every bio merged into a request already priced, the module calls
 * calc_cost(opf, nbytes, sector, blkcg, model_flags) instead of the
 * builtin formula:
 *
 *	@opf	the whole bio->bi_opf: the operation is opf & 0xff
 *		(IOCOST_REQ_OP_MASK; REQ_OP_READ, REQ_OP_WRITE, REQ_OP_FLUSH,
 *		REQ_OP_DISCARD ... from vmlinux.h), the REQ_* flag bits above
 *	@nbytes	bio->bi_iter.bi_size; 0 for a bio without data (a flush)
 *	@sector	bio->bi_iter.bi_sector, in 512-byte sectors
 *	@blkcg	the issuing cgroup's blkcg, the kernel's own struct: read
 *		its fields directly (blkcg->css.id, blkcg->css.serial_nr,
 *		blkcg->css.cgroup for cgroup local storage)
 *	@model_flags	IOCOST_COST_F_MERGE when the bio is merged into a
 *		request: the request has paid for its seek already
 *
 * and charges what it returns: a price in vtime, where
 * IOCOST_VTIME_PER_SEC is one second of the device's time at vrate 100%.
 * The module clamps a price above IOCOST_VTIME_PER_SEC to it (stats:
 * "clamped"); a data bio priced 0 is free (stats: "zero").
 *
 * Where it runs.  On the submission path of every IO of a bound disk,
 * under RCU, with preemption disabled (PREEMPT_RT: migration disabled).
 * So the verifier refuses a sleepable program, and the model must be
 * short: see bpf/README.md for what the example models cost per IO.  As
 * in any BPF program, loops must be bounded and the locals fit in BPF's
 * 512-byte stack: larger state goes in maps or global variables.  The
 * program may call the base helpers (maps, bpf_cgrp_storage_get(), ...)
 * and the module's two kfuncs, which only iocost_model_ops programs get:
 * bpf_iocost_dev() (the disk's dev_t) and bpf_iocost_dev_params() (its
 * io.cost.model and coefficients, see include/iocost_model.h).
 * iocost_cur_params() below calls the latter once per IO.
 *
 * The struct_ops map at the end registers the model: calc_cost is
 * required, blkcg_online and blkcg_offline are optional (called as
 * cgroups come and go while the model is bound to a disk), and the name
 * is 1-15 printable characters without blanks, not "linear".
 *
 * Build, load, bind.  `make` builds every bpf/NAME.bpf.c (a wildcard)
 * into build/KREL/bpf/NAME.bpf.o, its NAME_hdd variant (-DIOCOST_FIXED_HDD:
 * the HDD autop coefficients compiled in, whatever the disk) and a
 * skeleton loader build/KREL/bin/NAME.  Then, with iocost enabled on the
 * disk (io.cost.qos's enable=1):
 *
 *	iocostctl load build/$(uname -r)/bpf/iocost_tmpl.bpf.o
 *	iocostctl bind vdb iocost_tmpl --shadow   (builtin charges, model counted)
 *	iocostctl bind vdb iocost_tmpl            (its prices charged)
 *	cat /sys/kernel/iocost_bpf/stats          (charges=, vtime=, ...)
 *	iocostctl unbind vdb; iocostctl unload iocost_tmpl
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"		/* the ABI: iocost_model_ops, the kfuncs */
#include "iocost_linear.bpf.h"	/* the builtin's formula, as helpers */

/* struct_ops programs and kfunc calls need a GPL-compatible license */
char _license[] SEC("license") = "GPL";

SEC("struct_ops/calc_cost")
u64 BPF_PROG(tmpl_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	/*
	 * The bound disk's coefficients as blk-iocost holds them now, copied
	 * onto this program's stack by bpf_iocost_dev_params(); where the
	 * kernel's BTF lacks them (or in the NAME_hdd build), the HDD autop
	 * profile's.  p->dev is the disk: key per-disk state by it.
	 */
	struct iocost_dev_params params;
	const struct iocost_dev_params *p = iocost_cur_params(&params);

	/*
	 * The builtin's formula, with the IO judged random (false): a data
	 * READ or WRITE costs rrandio or wrandio (nothing on a merge) plus
	 * rpage or wpage per 4 KiB, at least one page; any other bio costs
	 * its pages as writes.  A model that remembers where each cgroup's
	 * last IO ended would pass true for a sequential one here
	 * (iocost_2x: one cursor per cgroup and disk; iocost_ms: four
	 * streams).
	 */
	return iocost_linear_cost(p, opf, nbytes, false, model_flags);
}

/* the model: registered under .name by `iocostctl load` or its loader */
SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)tmpl_calc_cost,
	/* "iocost_tmpl", or "iocost_tmpl_hdd" for the fixed-HDD build */
	.name = IOCOST_MODEL_NAME("iocost_tmpl"),
};
