// SPDX-License-Identifier: GPL-2.0
/*
 * Test model: what the device-context kfuncs answer.  calc_cost records
 * the last disk and parameters it was given (and how often reading the
 * parameters failed there); blkcg_online records what the kfuncs answer
 * outside calc_cost.  Prices like the builtin, with the disk's
 * coefficients.  tests/vm/t/16-devctx.sh reads the .bss map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define ENOENT 2	/* errno.h is not for BPF programs */

u64 calls, failed_params;
u64 dev, vrate_ppm, rbps, rseqiops, rrandiops, wbps, wseqiops, wrandiops;
u64 rpage, rseqio, rrandio, wpage, wseqio, wrandio;
u64 online_calls, online_dev, online_params_enoent;

SEC("struct_ops/calc_cost")
u64 BPF_PROG(devprobe_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	struct iocost_dev_params params;
	const struct iocost_dev_params *p = &params;

	__sync_fetch_and_add(&calls, 1);
	dev = bpf_iocost_dev();
	if (bpf_iocost_dev_params(&params)) {
		__sync_fetch_and_add(&failed_params, 1);
		p = &iocost_hdd_params;
	} else {
		vrate_ppm = p->vrate_ppm;
		rbps = p->rbps;
		rseqiops = p->rseqiops;
		rrandiops = p->rrandiops;
		wbps = p->wbps;
		wseqiops = p->wseqiops;
		wrandiops = p->wrandiops;
		rpage = p->rpage;
		rseqio = p->rseqio;
		rrandio = p->rrandio;
		wpage = p->wpage;
		wseqio = p->wseqio;
		wrandio = p->wrandio;
	}
	return iocost_linear_cost(p, opf, nbytes, true, model_flags);
}

SEC("struct_ops/blkcg_online")
void BPF_PROG(devprobe_online, struct blkcg *blkcg)
{
	struct iocost_dev_params params = { .dev = 1, .rpage = 1 };

	__sync_fetch_and_add(&online_calls, 1);
	online_dev = bpf_iocost_dev();
	/* -ENOENT, and the buffer zeroed */
	if (bpf_iocost_dev_params(&params) == -ENOENT && !params.dev && !params.rpage)
		__sync_fetch_and_add(&online_params_enoent, 1);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)devprobe_calc_cost,
	.blkcg_online = (void *)devprobe_online,
	.name = "test_devprobe",
};
