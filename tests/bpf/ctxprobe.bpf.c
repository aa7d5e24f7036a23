// SPDX-License-Identifier: GPL-2.0
/*
 * Test model: records the deepest preemption count its calc_cost ever ran
 * at (the low byte of x86's per-CPU preempt count, pcpu_hot.preempt_count
 * before Linux 6.15 and __preempt_count since (IOCOST_HAVE_PCPU_HOT, from
 * the target's vmlinux.h): the
 * preempt_disable() depth, without the softirq/hardirq/NMI bits and the
 * inverted PREEMPT_NEED_RESCHED bit) and the number of calls, then prices
 * like the builtin (bpf/iocost_linear.bpf.h).  tests/vm/t/14-preempt.sh
 * reads both from the .bss map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"
#include "iocost_ksyms.bpf.h"

char _license[] SEC("license") = "GPL";

u64 max_depth;
u64 calls;

SEC("struct_ops/calc_cost")
u64 BPF_PROG(ctxprobe_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	struct iocost_dev_params params;
#if IOCOST_HAVE_PCPU_HOT
	u64 depth = (u32)((struct pcpu_hot *)bpf_this_cpu_ptr(&pcpu_hot))->preempt_count & 0xff;
#else
	u64 depth = *(u32 *)bpf_this_cpu_ptr(&__preempt_count) & 0xff;
#endif

	/* a racy max: a lost update can only hide a depth another CPU saw too */
	if (depth > max_depth)
		max_depth = depth;
	__sync_fetch_and_add(&calls, 1);
	return iocost_linear_cost(iocost_cur_params(&params), opf, nbytes, true, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)ctxprobe_calc_cost,
	.name = "test_ctxprobe",
};
