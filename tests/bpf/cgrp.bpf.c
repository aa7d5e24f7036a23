// SPDX-License-Identifier: GPL-2.0
/*
 * Test model: reads the blkcg argument as the kernel's real struct blkcg
 * (blkcg->css.cgroup) and keeps per-cgroup state in cgroup storage, which
 * the verifier only allows if the module's BTF describes the argument as
 * the real struct.  Also implements the optional lifecycle callbacks.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, u64);
} bios SEC(".maps");

u64 onlined, offlined;

SEC("struct_ops/calc_cost")
u64 BPF_PROG(cgrp_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	struct cgroup *cgrp = blkcg->css.cgroup;
	u64 *n;

	n = bpf_cgrp_storage_get(&bios, cgrp, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (n)
		(*n)++;
	return IOCOST_VTIME_PER_SEC / 10000;
}

SEC("struct_ops/blkcg_online")
void BPF_PROG(cgrp_online, struct blkcg *blkcg)
{
	__sync_fetch_and_add(&onlined, 1);
}

SEC("struct_ops/blkcg_offline")
void BPF_PROG(cgrp_offline, struct blkcg *blkcg)
{
	__sync_fetch_and_add(&offlined, 1);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)cgrp_calc_cost,
	.blkcg_online = (void *)cgrp_online,
	.blkcg_offline = (void *)cgrp_offline,
	.name = "test_cgrp",
};
