// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_2x - the builtin linear model at double price
 *
 * Proves the pricing path: every bio of a bound device is priced by the
 * builtin HDD formula with the builtin's single cursor per cgroup, doubled.
 * The cursor follows the builtin's rules: zero means no previous IO, a seek
 * beyond 16 MiB makes an IO random, and only data READ/WRITE bios that are
 * not merges advance it.  Flushes, which the builtin prices at 0, cost two
 * write pages here.  Like the builtin cursor, the update is lockless.
 *
 * Where the cursors live: an array slot per cgroup, indexed by the blkcg's
 * css id and tagged with the cgroup's id.  css ids are small and dense (the
 * lowest free one is reused), and cgroup ids are never reused: a slot whose
 * tag is another cgroup's is reset, so a new cgroup starts with no previous
 * IO, as a new iocg does in the builtin.  With more than NR_CURSORS blkcgs,
 * cgroups whose css ids share a slot keep resetting each other's cursor
 * (their IOs count as first IOs: sequential).  A cgroup local storage
 * (bpf_cgrp_storage_get()) has no such limit, but its lookup is a helper
 * call that disables migration, and cost more than the rest of this model
 * on the benchmark's IO path (docs/PERFORMANCE.md); the verifier inlines an
 * array lookup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define NR_CURSORS 16384	/* a power of two */

struct cursor {
	u64 cgid;	/* the cgroup whose cursor this is */
	u64 next;	/* sector after its last data IO, 0 before the first */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NR_CURSORS);
	__type(key, u32);
	__type(value, struct cursor);
} cursors SEC(".maps");

SEC("struct_ops/calc_cost")
u64 BPF_PROG(twox_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	u32 slot = blkcg->css.id & (NR_CURSORS - 1);
	u64 cgid = blkcg->css.cgroup->kn->id;
	struct cursor *c;
	bool seq = true;

	c = bpf_map_lookup_elem(&cursors, &slot);
	if (c && c->cgid != cgid) {
		c->cgid = cgid;
		c->next = 0;
	}
	if (c)
		seq = iocost_seek_is_seq(sector, c->next);
	if (c && iocost_is_data_rw(opf, nbytes) &&
	    !(model_flags & IOCOST_COST_F_MERGE))
		c->next = iocost_end_sector(sector, nbytes);
	return 2 * iocost_linear_cost(opf, nbytes, seq, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)twox_calc_cost,
	.name = "iocost_2x",
};
