// SPDX-License-Identifier: GPL-2.0
/* Test model: the smallest valid model, a flat price per bio. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/calc_cost")
u64 BPF_PROG(min_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return IOCOST_VTIME_PER_SEC / 10000;	/* 100 us per bio */
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)min_calc_cost,
	.name = "test_min",
};
