// SPDX-License-Identifier: GPL-2.0
/*
 * clone.c - pricing through GCC's IPA-SRA clone of calc_vtime_cost_builtin
 *
 * On some kernels (Debian's 7.x) GCC emitted calc_vtime_cost_builtin()
 * only as an IPA-SRA clone, calc_vtime_cost_builtin.isra.N: pahole leaves
 * it out of BTF and its arguments are not the source's.  By the kernel's
 * DWARF (tests/vm/clone-abi) the clone still receives iocg, is_merge and
 * costp in rcx, r8 and r9, and in place of the bio the three fields it
 * loads from it, bi_opf, bi_iter.bi_size and bi_iter.bi_sector: exactly a
 * model's (opf, nbytes, sector), in rdi, rsi and rdx in some order.
 * Nothing in the kernel states that convention, so this file checks it,
 * on every bio, before hook.c replaces a price:
 *
 *  - at init, the two callers (ioc_rqos_throttle() and ioc_rqos_merge(),
 *    rq_qos callbacks, in BTF) are located and their code scanned for
 *    direct calls.  Every call to a calc_vtime_cost_builtin copy must go
 *    to the same clone, each caller must make at least one, and the plain
 *    function must not exist; otherwise the kernel is refused.  The
 *    return addresses of those calls are the only ones accepted later;
 *  - while hooked, a handler at each caller's entry (no ip-modify) stashes
 *    copies of what the checks need, {current, the bio's blkg, opf, size,
 *    sector, whole disk and its diskseq, kind}, never the bio itself, in a
 *    per-cpu ring of the interrupt level (a task preempted in between
 *    finds it later, on any CPU);
 *  - the clone's handler (hook.c) asks iocost_clone_call() for the call's
 *    arguments.  They are given only when every check holds: the stash is
 *    the current task's (consumed: one stash, one call) and, of the task's
 *    stashes, one whose kind is is_merge and whose fields the registers
 *    hold under the mapping (or, while learning, under one of the
 *    candidates): a caller that returned without calling the clone (a
 *    root-cgroup bio, iocost off) leaves a stale stash behind, which a
 *    task that moved to another CPU would otherwise find first; the
 *    return address is one of the caller's calls, costp is in the
 *    caller's frame (8-byte aligned, just above the clone's return-address
 *    slot), the three scalar registers equal the stashed bio's fields
 *    under the mapping, and iocg->pd.blkg is the bio's blkg (read with
 *    get_kernel_nofault(), last, when everything else held);
 *  - the mapping (which register holds which field) is learned: the
 *    kernel's DWARF does not name the clone's replacement parameters (its
 *    call sites give no values for rdi, rsi and rdx either), so no build
 *    can read it.  After the hook is attached, the first
 *    IOCOST_CLONE_LEARN_IOS bios of bound disks that pass the other checks
 *    are a shadow phase: the builtin prices them (stats "learning=") while
 *    each one's registers narrow the six permutations; pricing starts when
 *    exactly one is left, and every later bio is still checked against it;
 *  - a failed check leaves the bio to the builtin and counts the reason in
 *    the binding's stats (fallback_*=) and in the module's totals (the hook
 *    file's "fallbacks since load" line, logged at unload); a missing
 *    stash, which names no disk, only there, as "unattributed".  A structural
 *    mismatch (no single mapping fits the bios) disables pricing through
 *    the clone: every disk goes back to the builtin, new bindings are
 *    refused, and the kernel log says why.
 *
 * The caller scan runs on every kernel: where the function is in BTF and
 * hooked itself, each caller must call it too, or a compiler that inlined
 * it into one of them (a newer GCC in a DKMS rebuild) would leave that
 * caller's bios priced by the builtin without a word: the kernel is
 * refused instead.
 *
 * The test build's clone_fault makes one check fail on purpose, for the
 * tests that show each fallback (tests/vm/t/17-clone.sh, testhooks.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_buf.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include "iocost_bpf.h"

#if !IS_ENABLED(CONFIG_KPROBES) || !IS_ENABLED(CONFIG_KALLSYMS)
#error "iocost_bpf scans the pricing function's callers with CONFIG_KPROBES=y and CONFIG_KALLSYMS=y"
#endif

/* bios of bound disks that fix the mapping when it must be learned */
#define IOCOST_CLONE_LEARN_IOS 64
/* calls of the clone per caller we accept (6.12-7.3 have one) */
#define IOCOST_CLONE_MAX_SITES 4
/* the largest frame of a caller costp may be in (theirs: about 100 bytes) */
#define IOCOST_CLONE_FRAME_MAX 512

/* the two callers, by kind: their bio is argument 1 and 2 */
static const struct {
	const char *name;
	int bio_arg;
} iocost_callers[IOCOST_NR_KINDS] = {
	[IOCOST_KIND_THROTTLE] = { "ioc_rqos_throttle", 1 },
	[IOCOST_KIND_MERGE] = { "ioc_rqos_merge", 2 },
};

/* the hooked function's callers' calls of it: their return addresses */
char iocost_clone_target[KSYM_NAME_LEN];
static unsigned long iocost_clone_ret[IOCOST_NR_KINDS][IOCOST_CLONE_MAX_SITES];
static unsigned int iocost_clone_nr_ret[IOCOST_NR_KINDS];

#if IOCOST_HOOK_CLONE

/* the model's arguments, in the order of the registers' permutations */
enum { IOCOST_F_OPF, IOCOST_F_NBYTES, IOCOST_F_SECTOR, IOCOST_NR_F };

static const char * const iocost_field_names[IOCOST_NR_F] = {
	"opf", "nbytes", "sector",
};

static const char * const iocost_reg_names[IOCOST_NR_F] = {
	"rdi", "rsi", "rdx",
};

/* iocost_perms[p][f]: the argument register (0-2) holding field f */
static const u8 iocost_perms[6][IOCOST_NR_F] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
	{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

const char * const iocost_fallback_names[IOCOST_NR_FALLBACK] = {
#define IOCOST_FALLBACK(reason) #reason
#include "iocost_stats.h"
#undef IOCOST_FALLBACK
};

/*
 * What a caller's entry handler leaves for the clone's: a ring of the last
 * IOCOST_STASH_RING entries per CPU and interrupt level (task, softirq,
 * hardirq, NMI).  A task preempted between its caller's entry and the
 * clone (the 7.x kernels are PREEMPT_LAZY) finds its entry behind the
 * ones of the tasks that ran meanwhile, or, if it moved, on the CPU it
 * ran on: on a miss the clone's handler looks there too.  Only when more
 * than IOCOST_STASH_RING bios were submitted on that CPU meanwhile is the
 * entry gone (the builtin prices that bio, counted as unattributed); a
 * ring of four lost one in 768 bios of six fio jobs on two CPUs.  An entry is
 * published with its task last and taken by a cmpxchg of that task back
 * to NULL, so that a reader on another CPU never takes a half-written one.
 *
 * An entry holds copies of what the checks need, never the bio to read
 * later: a caller that returns before calling the clone (root cgroup,
 * iocost off) leaves its entry behind, and should a task's fresh entry be
 * overwritten while it was preempted, the search may find an old one of
 * it, whose bio (and disk) may be gone.  Such an entry fails the checks on
 * its copies; the only pointer followed is iocg's, read without faulting,
 * and its blkg once it equals the entry's.
 */
#define IOCOST_STASH_RING 16

struct iocost_clone_stash {
	struct task_struct *task;
	struct blkcg_gq *blkg;
	u64 val[IOCOST_NR_F];	/* the bio's opf, nbytes, sector */
	dev_t devt;		/* its whole disk, and that disk's diskseq */
	u64 diskseq;
	unsigned int kind;
};

struct iocost_clone_ring {
	unsigned int next;
	struct iocost_clone_stash e[IOCOST_STASH_RING];
};

static DEFINE_PER_CPU(struct iocost_clone_ring, iocost_clone_rings[4]);
static DEFINE_PER_CPU(u64, iocost_clone_unattributed);
static DEFINE_PER_CPU(u64, iocost_clone_fallbacks[IOCOST_NR_FALLBACK]);

/* the mapping: a permutation once known, else the candidates' bitmask */
static int iocost_clone_perm = -1;
static atomic_t iocost_clone_cands = ATOMIC_INIT(0x3f);
static atomic_t iocost_clone_learned;
/* set once on a structural mismatch: pricing through the clone is over */
static const char *iocost_clone_broken;

/* the test build's clone_fault (testhooks.h), bit by bit */
#define IOCOST_FAULT_STASH	BIT(0)
#define IOCOST_FAULT(fb)	BIT((fb) + 1)
#define IOCOST_FAULT_MAP	BIT(6)
#define IOCOST_FAULT_MOVE	BIT(7)

static void iocost_clone_fail_workfn(struct work_struct *work)
{
	iocost_unbind_all();
}

static DECLARE_WORK(iocost_clone_fail_work, iocost_clone_fail_workfn);

/* a structural mismatch: the builtin prices everything from now on */
static void iocost_clone_fail(const char *why)
{
	if (cmpxchg(&iocost_clone_broken, NULL, why))
		return;
	pr_err("%s: %s; pricing through it is disabled: every disk is back to the builtin linear model and new bindings are refused until the module is reloaded\n",
	       iocost_clone_target, why);
	schedule_work(&iocost_clone_fail_work);
}

/**
 * iocost_clone_refuses - may a disk be bound?
 *
 * Return: NULL, or why pricing through the clone was disabled.
 */
const char *iocost_clone_refuses(void)
{
	return READ_ONCE(iocost_clone_broken);
}

static void notrace iocost_clone_stash_entry(struct ftrace_regs *fregs,
					     unsigned int kind)
{
	struct iocost_clone_ring *r;
	struct iocost_clone_stash *s;
	int cpu;

	struct bio *bio = (void *)ftrace_regs_get_argument(fregs,
							   iocost_callers[kind].bio_arg);
	struct gendisk *disk;

	/* not a bio blk-iocost prices: no entry, as if it had not been called */
	if (!bio->bi_bdev || !bio->bi_blkg)
		return;
	disk = bio->bi_bdev->bd_disk;
	preempt_disable_notrace();
	r = this_cpu_ptr(&iocost_clone_rings[interrupt_context_level()]);
	/* the test build: as if the task moved before the clone's call */
	if (unlikely(IOCOST_TEST_HOOK(clone_fault) & IOCOST_FAULT_MOVE)) {
		cpu = cpumask_next(smp_processor_id(), cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		r = per_cpu_ptr(&iocost_clone_rings[interrupt_context_level()], cpu);
	}
	s = &r->e[r->next++ % IOCOST_STASH_RING];
	WRITE_ONCE(s->task, NULL);
	smp_wmb();	/* a reader elsewhere sees NULL before the new fields */
	s->blkg = bio->bi_blkg;
	s->val[IOCOST_F_OPF] = (__force u32)bio->bi_opf;
	s->val[IOCOST_F_NBYTES] = bio->bi_iter.bi_size;
	s->val[IOCOST_F_SECTOR] = bio->bi_iter.bi_sector;
	s->devt = disk_devt(disk);
	s->diskseq = disk->diskseq;
	s->kind = kind;
	smp_wmb();	/* ... and the fields before the task */
	WRITE_ONCE(s->task, current);
	preempt_enable_notrace();
}

static unsigned int iocost_clone_fits(const unsigned long *regs,
				      const u64 *val);

/*
 * What the clone's call says its stash must be: the kind (is_merge), and
 * the registers that must hold its fields under one of the permutations
 * of @perms; any of the task's stashes when @regs is NULL.
 */
struct iocost_clone_want {
	const unsigned long *regs;
	unsigned int perms;
	unsigned int kind;
};

/* take @r's entry of the current task that @w fits into @e, newest first */
static bool notrace iocost_clone_take(struct iocost_clone_ring *r,
				      struct iocost_clone_stash *e,
				      const struct iocost_clone_want *w)
{
	unsigned int i, next = READ_ONCE(r->next);
	struct iocost_clone_stash *s;

	for (i = 1; i <= IOCOST_STASH_RING; i++) {
		s = &r->e[(next - i) % IOCOST_STASH_RING];
		if (READ_ONCE(s->task) != current)
			continue;
		smp_rmb();	/* pairs with the writer's second smp_wmb() */
		*e = *s;
		if (w->regs && (e->kind != w->kind ||
				!(iocost_clone_fits(w->regs, e->val) & w->perms)))
			continue;
		/* one entry, one call; a rewrite meanwhile cleared the task */
		if (cmpxchg(&s->task, current, NULL) == current)
			return true;
	}
	return false;
}

/* the current task's entry that @w fits: on this CPU, else on any (it moved) */
static bool notrace iocost_clone_take_any(struct iocost_clone_stash *e,
					  const struct iocost_clone_want *w)
{
	unsigned int level = interrupt_context_level();
	int cpu;

	if (iocost_clone_take(this_cpu_ptr(&iocost_clone_rings[level]), e, w))
		return true;
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() &&
		    iocost_clone_take(per_cpu_ptr(&iocost_clone_rings[level], cpu), e, w))
			return true;
	return false;
}

/*
 * The call's stash: the task's newest one that fits the call; if none
 * does, its newest one (the checks then say why it does not fit, and
 * count it on its disk's binding).
 */
static bool notrace iocost_clone_stash_find(struct iocost_clone_stash *e,
					    struct iocost_clone_want *w)
{
	if (iocost_clone_take_any(e, w))
		return true;
	w->regs = NULL;
	return iocost_clone_take_any(e, w);
}

static void notrace iocost_throttle_handler(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	iocost_clone_stash_entry(fregs, IOCOST_KIND_THROTTLE);
}

static void notrace iocost_merge_handler(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	iocost_clone_stash_entry(fregs, IOCOST_KIND_MERGE);
}

struct ftrace_ops iocost_throttle_ops = {
	.func = iocost_throttle_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

struct ftrace_ops iocost_merge_ops = {
	.func = iocost_merge_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

/* the permutations under which @regs hold @val's fields */
static unsigned int iocost_clone_fits(const unsigned long *regs,
				      const u64 *val)
{
	unsigned int p, f, fits = 0;

	for (p = 0; p < ARRAY_SIZE(iocost_perms); p++) {
		for (f = 0; f < IOCOST_NR_F; f++) {
			u64 r = regs[iocost_perms[p][f]];

			/* the upper half of a 32-bit argument is undefined */
			if (f != IOCOST_F_SECTOR)
				r = (u32)r;
			if (r != val[f])
				break;
		}
		if (f == IOCOST_NR_F)
			fits |= BIT(p);
	}
	return fits;
}

/*
 * Learning: the bio's registers narrow the candidates.  Return the
 * fallback reason for this bio: IOCOST_NR_FALLBACK (learning: the builtin
 * prices it) until the mapping is known, ARGS if the bio fits no
 * permutation at all (it does not narrow anything).
 */
static int iocost_clone_learn(const unsigned long *regs, const u64 *val,
			      bool fault)
{
	static const char why[] =
		"no single mapping of rdi, rsi and rdx to (opf, nbytes, sector) fits every bio";
	unsigned int fits = iocost_clone_fits(regs, val), left;

	/*
	 * The fault: once a first bio has narrowed the candidates, a bio that
	 * fits none of them.
	 */
	if (fits && unlikely(fault) && atomic_read(&iocost_clone_cands) != 0x3f)
		fits = ~atomic_read(&iocost_clone_cands) & 0x3f;
	if (!fits)
		return IOCOST_FB_args;
	left = atomic_fetch_and(fits, &iocost_clone_cands) & fits;
	if (!left) {
		iocost_clone_fail(why);
		return IOCOST_NR_FALLBACK;
	}
	if (atomic_inc_return(&iocost_clone_learned) >= IOCOST_CLONE_LEARN_IOS &&
	    hweight32(left) == 1 && cmpxchg(&iocost_clone_perm, -1, __ffs(left)) == -1)
		pr_info("%s: registers mapped after %d bios of bound disks, with nothing left to contradict it\n",
			iocost_clone_target, IOCOST_CLONE_LEARN_IOS);
	return IOCOST_NR_FALLBACK;
}

/**
 * iocost_clone_call - the arguments of a call of the clone, when it may be
 *	priced by the model
 * @fregs: the clone's registers at its entry
 * @parent_ip: its return address
 * @c: filled in when the return value is not NULL
 *
 * Context: the clone's ftrace handler, inside iocost_model_enter().
 * Return: the bio's binding, or NULL when the builtin prices the call: an
 * unbound disk, or a failed check (counted: see the header comment).
 */
struct iocost_binding *notrace
iocost_clone_call(struct ftrace_regs *fregs, unsigned long parent_ip,
		  struct iocost_clone_call *c)
{
	unsigned int fault = IOCOST_TEST_HOOK(clone_fault), i;
	unsigned long regs[IOCOST_NR_F];
	struct iocost_clone_want want;
	struct iocost_clone_stash e;
	struct iocost_binding *b;
	struct blkcg_gq *blkg;
	unsigned long sp;
	u64 *costp;
	int perm, fb;
	bool merge;

	if (READ_ONCE(iocost_clone_broken))
		return NULL;
	for (i = 0; i < IOCOST_NR_F; i++)
		regs[i] = ftrace_regs_get_argument(fregs, i);
	if (unlikely(fault & IOCOST_FAULT(IOCOST_FB_args)))
		regs[0] ^= 1;
	c->is_merge = (u8)ftrace_regs_get_argument(fregs, 4);
	perm = READ_ONCE(iocost_clone_perm);
	want.regs = regs;
	want.perms = perm < 0 ? atomic_read(&iocost_clone_cands) : BIT(perm);
	want.kind = c->is_merge ? IOCOST_KIND_MERGE : IOCOST_KIND_THROTTLE;
	if (!iocost_clone_stash_find(&e, &want) || unlikely(fault & IOCOST_FAULT_STASH)) {
		this_cpu_inc(iocost_clone_unattributed);
		return NULL;
	}
	b = iocost_binding_lookup(e.devt, e.diskseq);
	if (!b)
		return NULL;

	merge = e.kind == IOCOST_KIND_MERGE;
	fb = IOCOST_FB_kind;
	if (c->is_merge != merge || unlikely(fault & IOCOST_FAULT(fb)))
		goto fallback;
	fb = IOCOST_FB_caller;
	for (i = 0; i < iocost_clone_nr_ret[e.kind]; i++)
		if (parent_ip == iocost_clone_ret[e.kind][i])
			break;
	if (i == iocost_clone_nr_ret[e.kind] || unlikely(fault & IOCOST_FAULT(fb)))
		goto fallback;
	/*
	 * costp: in the caller's frame, which starts just above the slot
	 * that holds the clone's return address (the stack pointer at the
	 * clone's entry), 8-byte aligned.  The test build's fault checks a
	 * pointer on the task's stack but below that slot.
	 */
	c->costp = (u64 *)ftrace_regs_get_argument(fregs, 5);
	sp = ftrace_regs_get_stack_pointer(fregs);
	costp = unlikely(fault & IOCOST_FAULT(IOCOST_FB_costp)) ?
		(u64 *)(sp - 64) : c->costp;
	fb = IOCOST_FB_costp;
	if ((unsigned long)costp < sp + sizeof(long) ||
	    (unsigned long)costp >= sp + sizeof(long) + IOCOST_CLONE_FRAME_MAX ||
	    !IS_ALIGNED((unsigned long)costp, sizeof(u64)) ||
	    !object_is_on_stack(costp) || *(unsigned long *)sp != parent_ip)
		goto fallback;

	if (perm < 0) {
		fb = iocost_clone_learn(regs, e.val, fault & IOCOST_FAULT_MAP);
		goto fallback;
	}
	fb = IOCOST_FB_args;
	if (!(iocost_clone_fits(regs, e.val) & BIT(perm)))
		goto fallback;

	c->iocg = (void *)ftrace_regs_get_argument(fregs, 3);
	fb = IOCOST_FB_blkg;
	if (get_kernel_nofault(blkg, (struct blkcg_gq **)((char *)c->iocg +
							  IOCOST_OFF_IOCG_PD_BLKG)) ||
	    blkg != e.blkg || unlikely(fault & IOCOST_FAULT(fb)))
		goto fallback;
	/* iocg's blkg, alive while the caller holds the bio */
	c->blkg = blkg;
	c->opf = e.val[IOCOST_F_OPF];
	c->nbytes = e.val[IOCOST_F_NBYTES];
	c->sector = e.val[IOCOST_F_SECTOR];
	return b;

fallback:
	if (fb == IOCOST_NR_FALLBACK) {
		this_cpu_inc(b->stats->learning);
	} else {
		this_cpu_inc(b->stats->fallback[fb]);
		this_cpu_inc(iocost_clone_fallbacks[fb]);
	}
	return NULL;
}

/*
 * "fallbacks since load kind=N caller=N costp=N args=N blkg=N
 * unattributed=N": every bio the builtin priced after a failed check
 */
static void iocost_clone_fallbacks_line(struct seq_buf *s)
{
	unsigned int f;
	u64 sum;
	int cpu;

	seq_buf_printf(s, "fallbacks since load");
	for (f = 0; f < IOCOST_NR_FALLBACK; f++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += READ_ONCE(*per_cpu_ptr(&iocost_clone_fallbacks[f], cpu));
		seq_buf_printf(s, " %s=%llu", iocost_fallback_names[f], sum);
	}
	sum = 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(&iocost_clone_unattributed, cpu));
	seq_buf_printf(s, " unattributed=%llu", sum);
}

/**
 * iocost_clone_show - the clone hook's state, for the "hook" file
 * @s: where to print
 */
void iocost_clone_show(struct seq_buf *s)
{
	const char *broken = READ_ONCE(iocost_clone_broken);
	int perm = READ_ONCE(iocost_clone_perm);
	unsigned int i, f;

	seq_buf_printf(s, "target %s (IPA-SRA clone, not in BTF)\n",
		       iocost_clone_target);
	for (i = 0; i < IOCOST_NR_KINDS; i++) {
		seq_buf_printf(s, "caller %s calls", iocost_callers[i].name);
		for (f = 0; f < iocost_clone_nr_ret[i]; f++)
			seq_buf_printf(s, " %pS", (void *)iocost_clone_ret[i][f]);
		seq_buf_putc(s, '\n');
	}
	seq_buf_printf(s, "mapping");
	if (perm < 0) {
		seq_buf_printf(s, " learning: %d of %d bios, candidates %#x\n",
			       atomic_read(&iocost_clone_learned),
			       IOCOST_CLONE_LEARN_IOS,
			       atomic_read(&iocost_clone_cands));
	} else {
		for (f = 0; f < IOCOST_NR_F; f++)
			seq_buf_printf(s, " %s=%s", iocost_field_names[f],
				       iocost_reg_names[iocost_perms[perm][f]]);
		seq_buf_printf(s, " (learned)\n");
	}
	iocost_clone_fallbacks_line(s);
	seq_buf_putc(s, '\n');
	seq_buf_printf(s, "state %s%s\n", broken ? "disabled: " : perm < 0 ?
		       "learning" : "pricing", broken ?: "");
}

#endif /* IOCOST_HOOK_CLONE */

/* the address of a kernel function, by name (kallsyms_lookup_name() is not exported) */
static unsigned long iocost_lookup(const char *name, unsigned long *size)
{
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr, off, len;
	char *plus;

	/* a disabled kprobe is never armed: it only resolves the name */
	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* "name+0xOFF/0xSIZE": the start may be before the probe (endbr64) */
	sprint_symbol(sym, addr);
	plus = strrchr(sym, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &len) != 2 ||
	    strncmp(sym, name, plus - sym) || plus - sym != strlen(name))
		return 0;
	*size = len;
	return addr - off;
}

/* is this the start of a calc_vtime_cost_builtin copy?  its name in @name */
static bool iocost_is_copy(unsigned long addr, char *name)
{
	static const char base[] = "calc_vtime_cost_builtin";
	char sym[KSYM_SYMBOL_LEN];
	char *plus;

	sprint_symbol(sym, addr);
	plus = strrchr(sym, '+');
	if (!plus || strncmp(plus, "+0x0/", 5) ||
	    strncmp(sym, base, sizeof(base) - 1) ||
	    (sym[sizeof(base) - 1] != '.' && sym + sizeof(base) - 1 != plus))
		return false;
	*plus = '\0';
	strscpy(name, sym, KSYM_NAME_LEN);
	return true;
}

/*
 * Every direct call (e8 rel32) from @kind's caller to a copy of
 * calc_vtime_cost_builtin: the byte pattern at any offset, kept only when
 * it lands on the start of a function of that name.  Where the function
 * is in BTF (hooked itself), the calls must go to it; else to one clone.
 * Return 0, or why not.
 */
static const char *iocost_clone_scan(unsigned int kind)
{
	unsigned long start, size, i, target;
	char name[KSYM_NAME_LEN];
	const u8 *code;
	s32 rel;

	start = iocost_lookup(iocost_callers[kind].name, &size);
	if (!start)
		return "caller not found in kallsyms";
	code = (const u8 *)start;
	/* the test build: as if the compiler had inlined the function here */
	if (IOCOST_TEST_HOOK(caller_fault) & BIT(kind))
		size = 0;
	for (i = 0; i + 5 <= size; i++) {
		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, sizeof(rel));
		target = start + i + 5 + rel;
		if (!iocost_is_copy(target, name))
			continue;
		if (!IOCOST_HOOK_CLONE && strcmp(name, "calc_vtime_cost_builtin"))
			return "calls a copy of calc_vtime_cost_builtin, not the one in BTF";
		if (IOCOST_HOOK_CLONE && !strcmp(name, "calc_vtime_cost_builtin"))
			return "calls calc_vtime_cost_builtin itself, which is not in BTF";
		if (!iocost_clone_target[0])
			strscpy(iocost_clone_target, name);
		else if (strcmp(iocost_clone_target, name))
			return "calls two copies of calc_vtime_cost_builtin";
		if (iocost_clone_nr_ret[kind] == IOCOST_CLONE_MAX_SITES)
			return "calls the clone more often than expected";
		iocost_clone_ret[kind][iocost_clone_nr_ret[kind]++] = start + i + 5;
	}
	if (iocost_clone_nr_ret[kind])
		return NULL;
	if (IOCOST_HOOK_CLONE)
		return "does not call a calc_vtime_cost_builtin clone";
	return "does not call calc_vtime_cost_builtin (inlined?): its bios would bypass the hook";
}

/**
 * iocost_clone_init - find the hooked function's callers' calls of it;
 *	on IPA-SRA clone kernels, the clone
 *
 * Return: 0, or -ENOENT with a log line when the kernel's code is not the
 * shape this file relies on (see the header comment): on every kernel,
 * a caller that does not call the hooked function.
 */
int iocost_clone_init(void)
{
	unsigned long size;
	const char *why;
	unsigned int k;

	if (IOCOST_HOOK_CLONE && iocost_lookup("calc_vtime_cost_builtin", &size)) {
		pr_err("calc_vtime_cost_builtin exists but is not in BTF: not supported\n");
		return -ENOENT;
	}
	for (k = 0; k < IOCOST_NR_KINDS; k++) {
		why = iocost_clone_scan(k);
		if (why) {
			pr_err("%s %s: this kernel is not supported\n",
			       iocost_callers[k].name, why);
			return -ENOENT;
		}
	}
	if (IOCOST_HOOK_CLONE)
		pr_info("hooking %s, called by %s and %s; its registers are mapped from the first %d bios of bound disks\n",
			iocost_clone_target, iocost_callers[0].name,
			iocost_callers[1].name, IOCOST_CLONE_LEARN_IOS);
	return 0;
}

#if IOCOST_HOOK_CLONE

/**
 * iocost_clone_exit - no structural-mismatch work runs after this; the
 *	fallbacks since load go to the kernel log
 */
void iocost_clone_exit(void)
{
	char line[160];
	struct seq_buf s;

	cancel_work_sync(&iocost_clone_fail_work);
	seq_buf_init(&s, line, sizeof(line));
	iocost_clone_fallbacks_line(&s);
	pr_info("%s: %s\n", iocost_clone_target, seq_buf_str(&s));
}

#endif /* IOCOST_HOOK_CLONE */
