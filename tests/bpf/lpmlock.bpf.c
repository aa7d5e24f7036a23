// SPDX-License-Identifier: GPL-2.0
/*
 * Test model: updates an LPM trie on every calc_cost call and returns a
 * flat price.  On 6.12 an LPM trie update takes trie->lock, a spinlock_t
 * (kernel/bpf/lpm_trie.c, trie_update_elem()), which is a sleeping lock on
 * PREEMPT_RT: run with preemption disabled there, it is a "sleeping function
 * called from invalid context" (CONFIG_DEBUG_ATOMIC_SLEEP) or, when the lock
 * is contended, "scheduling while atomic".  tests/vm/t/14-preempt.sh binds
 * it and reads the counters from the .bss map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

struct lpm_key {
	u32 prefixlen;
	u32 data;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 64);
	__type(key, struct lpm_key);
	__type(value, u64);
} trie SEC(".maps");

u64 calls;
u64 updated;	/* calls whose update returned 0 */

SEC("struct_ops/calc_cost")
u64 BPF_PROG(lpmlock_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	/* a few keys, rewritten on every IO: the trie stays small */
	struct lpm_key key = { .prefixlen = 32, .data = (u32)sector & 7 };
	u64 val = sector;

	__sync_fetch_and_add(&calls, 1);
	if (!bpf_map_update_elem(&trie, &key, &val, BPF_ANY))
		__sync_fetch_and_add(&updated, 1);
	return IOCOST_VTIME_PER_SEC / 100000;	/* 10 us per bio */
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)lpmlock_calc_cost,
	.name = "test_lpmlock",
};
