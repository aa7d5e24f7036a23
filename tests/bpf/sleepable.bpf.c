// SPDX-License-Identifier: GPL-2.0
/* Test model that must be refused at verification: a sleepable calc_cost. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops.s/calc_cost")
u64 BPF_PROG(sleepy_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return 1;
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)sleepy_calc_cost,
	.name = "test_sleepable",
};
