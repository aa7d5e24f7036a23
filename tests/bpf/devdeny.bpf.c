// SPDX-License-Identifier: GPL-2.0
/*
 * Test program (not a model): a cgroup v2 device program that denies every
 * block device and allows everything else, so that a reader put in its
 * cgroup cannot open any disk (tests/vm/t/12-readers.sh).  Attached with
 * bpftool cgroup attach CGROUP device pinned PIN.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

#define BPF_DEVCG_DEV_BLOCK	1	/* include/uapi/linux/bpf.h, a #define */

SEC("cgroup/dev")
int deny_block(struct bpf_cgroup_dev_ctx *ctx)
{
	/* access_type is (access << 16) | type */
	return (ctx->access_type & 0xffff) == BPF_DEVCG_DEV_BLOCK ? 0 : 1;
}
