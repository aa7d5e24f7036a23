// SPDX-License-Identifier: GPL-2.0
/* Test object for iocostctl load: a BPF object without any cost model. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("socket")
int ctl_nomodel(void *ctx)
{
	return 0;
}
