// SPDX-License-Identifier: GPL-2.0
/*
 * Test model: the device-context kfuncs from a softirq on top of a model.
 * The first calc_cost arms a bpf_timer pinned to its CPU to expire at
 * once, and spins (bpf_loop) until the timer's callback has run: on a
 * kernel without PREEMPT_RT the callback runs in the timer softirq at the
 * exit of the interrupt that arrives while the model spins, on top of it.
 * The callback records what the kfuncs answer it, whether the model was
 * still spinning and on which CPU; tests/vm/t/16-devctx.sh reads .bss.
 * Prices like the builtin (HDD coefficients).  PREEMPT_RT kernels refuse
 * bpf_timer in the verifier (EOPNOTSUPP): the case cannot arise there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "iocost_model.h"
#include "iocost_linear.bpf.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC		1
#define BPF_F_TIMER_CPU_PIN	2	/* linux/bpf.h, since 6.7 */
#define SPIN_MAX		0x800000	/* bpf_loop() iterations at most */

struct tval {
	struct bpf_timer t;
};

/* pinned (/sys/fs/bpf/devtimer_timers): a timer needs its map held */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct tval);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} devtimer_timers SEC(".maps");

u64 armed, fired, spinning, model_dev, model_cpu, spins;
u64 cb_dev, cb_cpu, cb_while_spinning;
s64 cb_params_ret, arm_ret;

static int timer_cb(void *map, int *key, struct tval *v)
{
	struct iocost_dev_params params;

	cb_while_spinning = spinning;
	cb_cpu = bpf_get_smp_processor_id();
	cb_dev = bpf_iocost_dev();
	cb_params_ret = bpf_iocost_dev_params(&params);
	fired = 1;
	return 0;
}

static long spin(u64 i, void *ctx)
{
	spins = i;
	/* a call per iteration: each reads fired anew */
	return fired ? 1 : 0;
}

SEC("struct_ops/calc_cost")
u64 BPF_PROG(devtimer_calc_cost, u64 opf, u64 nbytes, sector_t sector,
	     struct blkcg *blkcg, u64 model_flags)
{
	int zero = 0;
	struct tval *v;

	if (!__sync_bool_compare_and_swap(&armed, 0, 1))
		return iocost_linear_cost(&iocost_hdd_params, opf, nbytes, true, model_flags);
	model_dev = bpf_iocost_dev();
	model_cpu = bpf_get_smp_processor_id();
	v = bpf_map_lookup_elem(&devtimer_timers, &zero);
	if (!v)
		return iocost_linear_cost(&iocost_hdd_params, opf, nbytes, true, model_flags);
	arm_ret = bpf_timer_init(&v->t, &devtimer_timers, CLOCK_MONOTONIC);
	if (!arm_ret)
		arm_ret = bpf_timer_set_callback(&v->t, timer_cb);
	spinning = 1;
	if (!arm_ret)
		arm_ret = bpf_timer_start(&v->t, 0, BPF_F_TIMER_CPU_PIN);
	if (!arm_ret)
		bpf_loop(SPIN_MAX, spin, NULL, 0);
	spinning = 0;
	return iocost_linear_cost(&iocost_hdd_params, opf, nbytes, true, model_flags);
}

SEC(".struct_ops.link")
struct iocost_model_ops iocost_ops = {
	.calc_cost = (void *)devtimer_calc_cost,
	.name = "test_devtimer",
};
