// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_2x - the builtin linear model at double price
 *
 * Proves the pricing path: every bio of a bound device is priced by the
 * builtin formula with the builtin's cursor per cgroup and disk, doubled.
 * The cursor follows the builtin's rules: zero means no previous IO, a seek
 * beyond 16 MiB makes an IO random, and only data READ/WRITE bios that are
 * not merges advance it.  Flushes, which the builtin prices at 0, cost two
 * write pages here.  Like the builtin cursor, the update is lockless.
 *
 * The price uses the bound disk's live coefficients (iocost_linear.bpf.h),
 * so on any device and after any change of io.cost.model it is exactly
 * twice what the builtin charges; iocost_2x_hdd is the series' version,
 * with the HDD autop constants.
 *
 * Where the cursors live: the builtin keeps one per cgroup and disk (in
 * its ioc_gq), so does this model.  An array slot per cgroup, indexed by
 * the blkcg's css id and tagged with its css serial number, holds the
 * cursors of up to NR_DEVS disks, each tagged with the disk's dev_t.  css
 * ids are small and dense (the lowest free one is reused), and serial
 * numbers are never reused: a slot whose tag is another css's is reset,
 * so a new cgroup starts with no previous IO, as a new iocg does in the
 * builtin.  (The serial number is a field of the blkcg the model is
 * given, one plain load; the cgroup's id is three pointers away, two of
 * them checked loads.)
 * With more than NR_CURSORS blkcgs, cgroups whose css ids share a slot
 * keep resetting each other's cursors, and a cgroup doing IO on more than
 * NR_DEVS bound disks replaces their cursors in turn (round robin);
 * either way the IO counts as a first IO: sequential.  A cgroup local
 * storage (bpf_cgrp_storage_get()) has no such limit, but its lookup is a
 * helper call that disables migration, and cost more than the rest of
 * this model on the benchmark's IO path (docs/PERFORMANCE.md); the slots
 * are a global array instead, indexed directly.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define NR_CURSORS 16384	/* a power of two */
#define NR_DEVS 4

/* a cursor's disk: its dev_t with this bit, so that 0 means unused */
#define DISK_USED 0x100000000ULL

struct cursor {
	u64 serial;		/* the css whose cursors these are */
	u64 disk[NR_DEVS];	/* each cursor's disk: dev_t | DISK_USED, 0: unused */
	u64 next[NR_DEVS];	/* sector after its last data IO, 0 before the first */
	u32 victim;		/* the cursor a new disk takes next (round robin) */
};

/* in .bss: a direct, bounds-masked access, no lookup call or NULL check */
static struct cursor cursors[NR_CURSORS];

SEC("struct_ops/calc_cost")
u64 BPF_PROG(twox_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	u32 slot = blkcg->css.id & (NR_CURSORS - 1);
	u64 serial = blkcg->css.serial_nr;
	struct iocost_dev_params params;
	const struct iocost_dev_params *p = iocost_cur_params(&params);
	u64 disk = iocost_cur_dev(p) | DISK_USED;
	struct cursor *c = &cursors[slot];
	bool seq;
	int i, d = -1;

	if (c->serial != serial) {
		__builtin_memset(c, 0, sizeof(*c));
		c->serial = serial;
	}
	for (i = 0; i < NR_DEVS; i++) {
		if (c->disk[i] == disk) {
			d = i;
			break;
		}
	}
	if (d < 0) {	/* this disk's first IO here */
		d = c->victim++ & (NR_DEVS - 1);
		c->disk[d] = disk;
		c->next[d] = 0;
	}
	seq = iocost_seek_is_seq(sector, c->next[d]);
	if (iocost_is_data_rw(opf, nbytes) &&
	    !(model_flags & IOCOST_COST_F_MERGE))
		c->next[d] = iocost_end_sector(sector, nbytes);
	return 2 * iocost_linear_cost(p, opf, nbytes, seq, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)twox_calc_cost,
	.name = IOCOST_MODEL_NAME("iocost_2x"),
};
