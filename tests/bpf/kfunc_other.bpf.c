// SPDX-License-Identifier: GPL-2.0
/*
 * Not a model: a syscall program that calls the device-context kfuncs.
 * The verifier must refuse it (tests/vm/t/16-devctx.sh): they are
 * registered for iocost_model_ops programs only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iocost_model.h"

char _license[] SEC("license") = "GPL";

SEC("syscall")
int other(void *ctx)
{
	return bpf_iocost_dev();
}
