// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_ms - multi-stream sequentiality detection
 *
 * The builtin judges sequentiality with one cursor per cgroup: two
 * sequential streams in one cgroup ping-pong it and are both priced as
 * random, and random IO inside a window smaller than its 16 MiB seek
 * threshold is priced as sequential.  This model keeps four stream slots
 * per cgroup instead.  A data READ/WRITE is sequential iff its sector is
 * exactly the expected next sector of a tracked slot, which then advances;
 * otherwise it is random and takes over the least recently used slot.  A
 * merge skips the base cost but still advances the slot it continues.
 * Prices use the builtin linear formula (iocost_linear.bpf.h).  As with
 * the builtin cursor, updates are lockless: concurrent submitters of one
 * cgroup may race on a slot, which can only misjudge one IO.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 4

struct streams {
	u64 clock;			/* use counter for LRU */
	u64 next[NR_SLOTS];		/* expected next sector; 0 = free */
	u64 used[NR_SLOTS];		/* clock at last use */
};

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct streams);
} streams SEC(".maps");

SEC("struct_ops/calc_cost")
u64 BPF_PROG(ms_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	bool merge = model_flags & IOCOST_COST_F_MERGE, seq = false;
	struct streams *s;
	int i, hit = -1, lru = 0;

	if (!iocost_is_data_rw(opf, nbytes))
		return iocost_linear_cost(opf, nbytes, false, model_flags);
	s = bpf_cgrp_storage_get(&streams, blkcg->css.cgroup, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s)
		return iocost_linear_cost(opf, nbytes, false, model_flags);

	for (i = 0; i < NR_SLOTS; i++) {
		if (s->next[i] && s->next[i] == sector) {
			hit = i;
			seq = true;
			break;
		}
		if (s->used[i] < s->used[lru])
			lru = i;
	}
	if (!seq && !merge)
		hit = lru;	/* a new stream replaces the least recently used */
	if (hit >= 0 && hit < NR_SLOTS) {
		s->next[hit] = iocost_end_sector(sector, nbytes);
		s->used[hit] = ++s->clock;
	}
	return iocost_linear_cost(opf, nbytes, seq, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)ms_calc_cost,
	.name = "iocost_ms",
};
