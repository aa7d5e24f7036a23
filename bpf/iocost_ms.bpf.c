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
 * Prices use the builtin linear formula with the bound disk's live
 * coefficients (iocost_linear.bpf.h; iocost_ms_hdd: the HDD constants, as
 * in the series).  Streams are per disk as well as per cgroup: a cgroup
 * reading two disks keeps each disk's slots apart, for up to NR_DEVS
 * disks (more replace the least recently used disk's slots); a disk
 * claims its entry atomically.  As with the builtin cursor, the streams'
 * updates are lockless: concurrent submitters of one cgroup on one disk
 * may race on a slot, which can only misjudge one IO.  The streams live
 * in cgroup local storage.  When a new cgroup's first IOs race,
 * bpf_cgrp_storage_get() creates it for one of them and gives the others
 * NULL (-EEXIST inside): they look it up again, without creating.  Only
 * where that fails too (on PREEMPT_RT, a task that preempted another
 * inside the helper) is an IO priced random with its stream not recorded,
 * so that one more IO of that stream is misjudged.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define NR_SLOTS 4
#define NR_DEVS 4

/* one disk's streams of one cgroup */
struct dev_streams {
	u64 dev;			/* the disk; 0: unused (claimed by cmpxchg) */
	u64 used;			/* clock at last use of the disk */
	u64 next[NR_SLOTS];		/* expected next sector; 0 = free */
	u64 slot_used[NR_SLOTS];	/* clock at last use of the slot */
};

struct streams {
	u64 clock;			/* use counter for LRU */
	struct dev_streams d[NR_DEVS];
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
	struct iocost_dev_params params;
	const struct iocost_dev_params *p = iocost_cur_params(&params);
	u64 dev = iocost_cur_dev(p), cur;
	struct dev_streams *ds;
	struct streams *s;
	int i, hit = -1, lru = 0, d = -1, dlru = 0;

	if (!iocost_is_data_rw(opf, nbytes))
		return iocost_linear_cost(p, opf, nbytes, false, model_flags);
	s = bpf_cgrp_storage_get(&streams, blkcg->css.cgroup, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	/* the loser of a creation race: the winner's storage is there now */
	if (!s)
		s = bpf_cgrp_storage_get(&streams, blkcg->css.cgroup, 0, 0);
	if (!s)
		return iocost_linear_cost(p, opf, nbytes, false, model_flags);

	/*
	 * This disk's streams: the entry it has, or the first free one,
	 * claimed with a compare-and-swap, so that the first IOs of two
	 * disks racing on two CPUs cannot both take (and reset) one entry.
	 * With every entry another disk's, the least recently used one's
	 * streams are reset for this disk.
	 */
	for (i = 0; i < NR_DEVS; i++) {
		cur = s->d[i].dev;
		if (!cur)
			cur = __sync_val_compare_and_swap(&s->d[i].dev, 0, dev) ?: dev;
		if (cur == dev) {
			d = i;
			break;
		}
		if (s->d[i].used < s->d[dlru].used)
			dlru = i;
	}
	if (d < 0) {
		d = dlru;
		__builtin_memset(&s->d[d], 0, sizeof(s->d[d]));
		s->d[d].dev = dev;
	}
	ds = &s->d[d & (NR_DEVS - 1)];
	ds->used = ++s->clock;

	for (i = 0; i < NR_SLOTS; i++) {
		if (ds->next[i] && ds->next[i] == sector) {
			hit = i;
			seq = true;
			break;
		}
		if (ds->slot_used[i] < ds->slot_used[lru])
			lru = i;
	}
	if (!seq && !merge)
		hit = lru;	/* a new stream replaces the least recently used */
	if (hit >= 0 && hit < NR_SLOTS) {
		ds->next[hit] = iocost_end_sector(sector, nbytes);
		ds->slot_used[hit] = s->clock;
	}
	return iocost_linear_cost(p, opf, nbytes, seq, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)ms_calc_cost,
	.name = IOCOST_MODEL_NAME("iocost_ms"),
};
