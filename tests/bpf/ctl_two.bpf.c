// SPDX-License-Identifier: GPL-2.0
/*
 * Test object for iocostctl load: two models in one object, under variable
 * names of their own, one of them in the plain .struct_ops section (which
 * iocostctl registers through a link all the same).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/calc_cost")
u64 BPF_PROG(two_a_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return IOCOST_VTIME_PER_SEC / 10000;
}

SEC("struct_ops/calc_cost")
u64 BPF_PROG(two_b_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	return IOCOST_VTIME_PER_SEC / 5000;
}

SEC(".struct_ops.link")
struct iocost_model_ops first_model = {
	.calc_cost = (void *)two_a_calc_cost,
	.name = "test_two_a",
};

SEC(".struct_ops")
struct iocost_model_ops second_model = {
	.calc_cost = (void *)two_b_calc_cost,
	.name = "test_two_b",
};
