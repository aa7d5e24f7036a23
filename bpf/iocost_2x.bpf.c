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
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

struct cursor {
	u64 next;	/* sector after the last data IO, 0 before the first */
};

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cursor);
} cursors SEC(".maps");

SEC("struct_ops/calc_cost")
u64 BPF_PROG(twox_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	struct cursor *c;
	bool seq = true;

	c = bpf_cgrp_storage_get(&cursors, blkcg->css.cgroup, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
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
