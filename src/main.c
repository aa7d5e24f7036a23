// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_bpf - pluggable BPF cost models for blk-iocost on stock kernels
 *
 * blk-iocost prices every bio with calc_vtime_cost_builtin(): a linear
 * model with one sequential/random judgement per cgroup.  The in-kernel
 * "BPF struct_ops cost model" series lets a BPF program own that price.
 * This module brings the same interface to unmodified kernels:
 *
 *  - ctl.c registers the iocost_model_ops struct_ops type (same ABI as the
 *    series, include/iocost_model.h), keeps the registry of models by name
 *    and serves /sys/kernel/iocost_bpf.
 *  - binding.c owns the bindings of models to disks, made through
 *    /sys/kernel/iocost_bpf/bindings and dropped when a disk goes away.
 *  - hook.c attaches an ftrace handler to calc_vtime_cost_builtin() while
 *    at least one device is bound; for a bound device it charges the
 *    model's price instead and skips the builtin body.  Everything else in
 *    blk-iocost (the cursor, budgets, vrate) is left untouched.  While a
 *    model is bound it also receives blkcg online/offline callbacks.
 *  - tick.c defines the iocost_ioc_tick trace event: one event per
 *    controller period and device, attached only while enabled.
 *
 * Private kernel structures are never redefined: the few offsets needed
 * are generated from the target kernel's BTF at build time (btfgen.c).
 *
 * Load order matters: the checks that can refuse the kernel run first, the
 * struct_ops type is registered last because it cannot be unregistered
 * except by unloading the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/module.h>
#include <linux/utsname.h>
#include "iocost_bpf.h"
#include "btfdigest.h"

/* register_bpf_struct_ops() arrived with struct_ops in modules, in 6.9 */
#ifndef register_bpf_struct_ops
#error "iocost_bpf needs Linux 6.9 or newer: modules cannot register struct_ops before 6.9"
#endif
#ifndef CONFIG_BLK_CGROUP_IOCOST
#error "iocost_bpf needs CONFIG_BLK_CGROUP_IOCOST=y"
#endif
#ifndef CONFIG_DEBUG_INFO_BTF_MODULES
#error "iocost_bpf needs CONFIG_DEBUG_INFO_BTF_MODULES=y (struct_ops types live in module BTF)"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "iocost_bpf needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS=y for its pricing hook"
#endif

static int __init iocost_bpf_init(void)
{
	int ret;

	ret = iocost_btf_digest_check();
	if (ret)
		return ret;
	ret = iocost_hook_init();
	if (ret)
		return ret;
	iocost_tick_init();
	ret = iocost_ctl_init();
	if (ret)
		goto err_hook;
	/* the kfuncs first: a struct_ops type cannot be taken back */
	ret = iocost_devctx_init();
	if (ret)
		goto err_ctl;
	ret = iocost_ctl_register_ops();
	if (ret)
		goto err_ctl;
	pr_info("kernel %s, hook target %s (ftrace, ip-modify), struct_ops iocost_model_ops registered\n",
		init_utsname()->release, IOCOST_HOOK_TARGET);
	return 0;

err_ctl:
	iocost_ctl_exit();
err_hook:
	iocost_tick_exit();
	iocost_hook_exit();
	return ret;
}

static void __exit iocost_bpf_exit(void)
{
	/* bindings hold module references, so this finds none; if it did,
	 * the hooks would be detached with the last of them, before their
	 * filters are freed below
	 */
	iocost_unbind_all();
	iocost_ctl_exit();
	iocost_tick_exit();
	iocost_hook_exit();
}

module_init(iocost_bpf_init);
module_exit(iocost_bpf_exit);

MODULE_DESCRIPTION("Pluggable BPF cost models for the blk-iocost controller");
MODULE_AUTHOR("iocost-bpf developers");
MODULE_LICENSE("GPL");
