// SPDX-License-Identifier: GPL-2.0
/* Test model that must be refused: no calc_cost, only a lifecycle callback. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/blkcg_online")
void BPF_PROG(nocalc_online, struct blkcg *blkcg)
{
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.blkcg_online = (void *)nocalc_online,
	.name = "test_nocalc",
};
