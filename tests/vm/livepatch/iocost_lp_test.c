// SPDX-License-Identifier: GPL-2.0
/*
 * iocost_lp_test.c - a livepatch of blk-iocost's pricing function, for the
 * VM suite only (tests/vm/t/22-livepatch.sh): ftrace lets one ip-modifying
 * user own a function, so while this patch is enabled iocost_bpf's first
 * bind must fail with EBUSY and a log line, and while a disk is bound this
 * patch must fail to load.  Not part of the product.
 *
 * The replacement charges nothing (every bio free): the suite only checks
 * who owns the function.  Parameters: func, the symbol to patch as
 * /proc/kallsyms names it; clone=1 when that is the IPA-SRA clone
 * calc_vtime_cost_builtin.isra.N (Debian's 7.x), whose costp is its sixth
 * argument (r9), instead of calc_vtime_cost_builtin(bio, iocg, is_merge,
 * costp).
 */
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>

static char *func = "calc_vtime_cost_builtin";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the pricing function's symbol (/proc/kallsyms)");
static bool clone;
module_param(clone, bool, 0444);
MODULE_PARM_DESC(clone, "func is the IPA-SRA clone (costp in the sixth argument)");

static void iocost_lp_cost_clone(unsigned long a0, unsigned long a1,
				 unsigned long a2, void *iocg, bool is_merge,
				 u64 *costp)
{
	*costp = 0;
}

static void iocost_lp_cost(void *bio, void *iocg, bool is_merge, u64 *costp)
{
	*costp = 0;
}

static struct klp_func iocost_lp_funcs[] = {
	{
		/* .old_name and .new_func: set by iocost_lp_init() */
	}, { }
};

static struct klp_object iocost_lp_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = iocost_lp_funcs,
	}, { }
};

static struct klp_patch iocost_lp_patch = {
	.mod = THIS_MODULE,
	.objs = iocost_lp_objs,
};

static int __init iocost_lp_init(void)
{
	iocost_lp_funcs[0].old_name = func;
	iocost_lp_funcs[0].new_func = clone ? (void *)iocost_lp_cost_clone :
					      (void *)iocost_lp_cost;
	return klp_enable_patch(&iocost_lp_patch);
}

static void __exit iocost_lp_exit(void)
{
}

module_init(iocost_lp_init);
module_exit(iocost_lp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iocost-bpf VM suite: a livepatch of calc_vtime_cost_builtin");
MODULE_INFO(livepatch, "Y");
