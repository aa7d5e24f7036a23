// SPDX-License-Identifier: GPL-2.0
/*
 * Test models at the edges of the price range: test_zero prices every bio
 * at 0 (IO must keep flowing, the module counts the zero prices) and
 * test_huge asks for far more than one second per bio (the module clamps
 * it to IOCOST_VTIME_PER_SEC and counts the clamps).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/calc_cost")
u64 BPF_PROG(zero_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return 0;
}

SEC("struct_ops/calc_cost")
u64 BPF_PROG(huge_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return ~0ULL;
}

SEC(".struct_ops.link")
struct iocost_model_ops zero_ops = {
	.calc_cost = (void *)zero_calc_cost,
	.name = "test_zero",
};

SEC(".struct_ops.link")
struct iocost_model_ops huge_ops = {
	.calc_cost = (void *)huge_calc_cost,
	.name = "test_huge",
};
