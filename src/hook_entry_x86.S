/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hook_entry_x86.S - the pricing hook's entry on x86-64: an ftrace direct
 * call (hook.c explains when it is used)
 *
 * ftrace patches the fentry call of calc_vtime_cost_builtin() to call
 * iocost_direct_entry, or, when another ftrace user traces the function
 * too, jumps here from its ftrace_regs_caller with the stack as the call
 * left it.  Either way this runs where the builtin would start: its four
 * arguments (bio, iocg, is_merge, costp) in rdi, rsi, rdx and rcx, the
 * return address into the builtin on top of the stack and its caller's
 * return address above it.  Everything else the C ABI lets a callee
 * clobber is dead here.
 *
 * iocost_hook_direct() prices the bio (hook.c).  When it returns true, the
 * model's price is in *costp and the builtin must not run: the entry drops
 * its own return address and returns straight to the builtin's caller, as
 * a BPF trampoline with BPF_TRAMP_F_SKIP_FRAME does.  Otherwise it restores
 * the arguments and returns into the builtin, which runs unchanged.
 *
 * Review notes (x86-64, Linux 6.12):
 *  - IBT: SYM_FUNC_START puts an ENDBR first; the patched site calls this
 *    directly and ftrace_regs_caller reaches it with a return, so nothing
 *    needs it, but ftrace keeps the address as a function pointer.
 *  - Returns go through RET (the return thunk); call-depth tracking
 *    (CONFIG_MITIGATION_CALL_DEPTH_TRACKING) counts calls through their
 *    callees' thunks and returns through the return thunk.  The fentry
 *    call that entered here was not counted.  On the builtin path two
 *    returns follow (this one and the builtin's), so that path counts it
 *    (CALL_DEPTH_ACCOUNT, as samples/ftrace does); on the skip path one
 *    return ends both calls, which the count already balances.
 *  - ORC: objtool sees a normal frame of four pushes; on the skip path,
 *    after the return address into the builtin is dropped, the stack is
 *    as at a function's entry, which UNWIND_HINT_FUNC says.
 *  - The stack is 16-byte aligned at the call, as at any call site.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "iocost_btf.h"

/* IOCOST_HOOK_DIRECT (iocost_bpf.h); this file is built on x86-64 only */
#if IOCOST_HAVE_CALC_VTIME_COST_BUILTIN && \
	IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
	.text
SYM_FUNC_START(iocost_direct_entry)
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	call	iocost_hook_direct
	testb	%al, %al
	jnz	.Lpriced
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	CALL_DEPTH_ACCOUNT
	RET
.Lpriced:
	/* the four arguments and the return address into the builtin */
	addq	$40, %rsp
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(iocost_direct_entry)
#endif
