// SPDX-License-Identifier: GPL-2.0
/*
 * binding.c - the bindings: which model prices which disk
 *
 * A binding ties one whole disk (dev_t + diskseq) to one model.  This file
 * is its only owner: it makes, replaces, finds and retires bindings, and
 * decides when the hooks are attached (first binding) and detached (last
 * binding gone).  ctl.c turns sysfs writes into iocost_bind() and
 * iocost_unbind() and reads the bindings through iocost_bindings_show();
 * hook.c finds the binding of a bio's disk with iocost_binding_find(),
 * inline in iocost_bpf.h.
 *
 * Where a binding lives:
 *  - an RCU hash keyed by dev_t, read by the pricing handler;
 *  - a list in binding order, read by the control files;
 *  - the model's count of bindings; a model with at least one binding is
 *    on iocost_bound_models, the RCU list the blkcg callbacks walk.
 * All three change together, under iocost_lock and (for the control
 * files' readers) iocost_show_lock, in iocost_binding_add() and
 * iocost_binding_unlink(); the free happens after a grace period, from a
 * work item that iocost_bindings_free() queues (no writer waits for it).
 * Replacing a disk's model adds the new binding in front of the old one
 * in the hash (the handler sees one or the other, never neither) and
 * retires the old one on the same path as an unbind or a disk removal.
 *
 * When is a disk gone?  Only when the block layer says so: hook.c traces
 * bdev_mark_dead(), which del_gendisk() and blk_mark_disk_dead() call for
 * every block device of a disk once the disk no longer accepts openers or
 * IO.  iocost_binding_disk_dead() marks the disk's binding gone and a work
 * item retires it.  Readers of the control files never open a disk and
 * never drop anything: a binding survives a reader in a device cgroup
 * that may not open the disk, or a disk whose ->open fails for a while.
 * A bind that races with the removal of its disk is caught by checking
 * the disk after the binding is published (see iocost_bind()).
 *
 * Lifetime: a binding holds a reference on its model's struct_ops map,
 * which keeps the model's ops and programs alive after it is unregistered;
 * the model's own object is freed with its last binding if it is no
 * longer registered (ctl.c frees it at unregistration otherwise).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "iocost_bpf.h"

/* serializes the registry (ctl.c), the bindings and the hooks' attachment */
DEFINE_MUTEX(iocost_lock);
/*
 * What the control files show (the registry, the list of bindings, the
 * models' counts) changes under iocost_lock and this lock, taken inside it
 * and never held across anything slow; the readers take this one only.
 */
DEFINE_MUTEX(iocost_show_lock);
LIST_HEAD(iocost_bound_models);
/* read by the pricing handler: iocost_binding_lookup() (iocost_bpf.h) */
DEFINE_HASHTABLE(iocost_bindings_hash, IOCOST_BINDINGS_HASH_BITS);
static LIST_HEAD(iocost_bindings);
static unsigned int iocost_nr_bindings;

static void iocost_gone_workfn(struct work_struct *work);
static DECLARE_WORK(iocost_gone_work, iocost_gone_workfn);

static struct iocost_binding *iocost_binding_find_devt(dev_t devt)
{
	struct iocost_binding *b;

	list_for_each_entry(b, &iocost_bindings, node)
		if (b->devt == devt)
			return b;
	return NULL;
}

/* Take @b out of the hash, the list and the counts (iocost_show_lock held). */
static void iocost_binding_del(struct iocost_binding *b,
			       struct list_head *dead)
{
	struct iocost_model *m = b->model;

	hash_del_rcu(&b->hnode);
	list_move_tail(&b->node, dead);
	if (!--m->nr_bindings) {
		list_del_rcu(&m->bound_node);
		/* unregistered and unbound: nothing can find it any more */
		b->free_model = !m->registered;
	}
	iocost_nr_bindings--;
}

/*
 * Publish @b (iocost_lock held): hash, list, model, count; and retire
 * @old, the disk's previous binding if any, to @dead in the same
 * iocost_show_lock section, so that no reader sees the disk twice.
 */
static void iocost_binding_add(struct iocost_binding *b,
			       struct iocost_binding *old,
			       struct list_head *dead)
{
	struct iocost_model *m = b->model;

	mutex_lock(&iocost_show_lock);
	if (!m->nr_bindings++)
		list_add_tail_rcu(&m->bound_node, &iocost_bound_models);
	list_add_tail(&b->node, &iocost_bindings);
	iocost_nr_bindings++;
	/* last: once in the hash, the handler prices with it */
	hash_add_rcu(iocost_bindings_hash, &b->hnode, b->devt);
	if (old)
		iocost_binding_del(old, dead);
	mutex_unlock(&iocost_show_lock);
}

/*
 * The one retire path (iocost_lock held): take @b out of service and move
 * it to @dead, which iocost_bindings_free() hands to a grace period.
 * The last binding detaches the hooks, outside iocost_show_lock.
 */
static void iocost_binding_unlink(struct iocost_binding *b,
				  struct list_head *dead)
{
	unsigned int left;

	mutex_lock(&iocost_show_lock);
	iocost_binding_del(b, dead);
	left = iocost_nr_bindings;
	mutex_unlock(&iocost_show_lock);
	if (!left) {
		/*
		 * Nothing can find a binding or a bound model any more; wait
		 * for the handlers that did, before the ftrace trampolines go:
		 * on PREEMPT_RT a model may be blocked on a sleeping lock, and
		 * unregister_ftrace_function() waits for RCU-tasks only, which
		 * takes such a task for quiescent (hook.c).
		 */
		synchronize_rcu();
		iocost_hook_remove();
	}
}

/*
 * Retired bindings are freed from this workqueue after a grace period, so
 * that a bind or unbind never waits for one: it lasts until the pricing
 * handlers and every reader printing a control file at that moment are
 * done (iocost_bindings_show()); waiting for it made bind/unbind cycles
 * under three readers of stats 1.74x slower than under readers of /proc
 * files at 192 bound disks (tests/bench/readers).  Its own queue, so that
 * module exit can drain it (iocost_binding_exit()).
 */
static struct workqueue_struct *iocost_free_wq;

static void iocost_binding_free_workfn(struct work_struct *work)
{
	struct iocost_binding *b = container_of(to_rcu_work(work),
						struct iocost_binding, free);

	if (b->free_model)
		kfree(b->model);
	bpf_map_put(b->map);
	free_percpu(b->stats);
	kfree(b);
}

/*
 * Release what the bindings on @dead hold once no handler or reader can
 * see them any more: after a grace period, without waiting for it.
 */
static void iocost_bindings_free(struct list_head *dead)
{
	struct iocost_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, dead, node) {
		INIT_RCU_WORK(&b->free, iocost_binding_free_workfn);
		queue_rcu_work(iocost_free_wq, &b->free);
	}
}

/* Is @disk dead or being deleted?  Pairs with iocost_binding_disk_dead(). */
static bool iocost_disk_gone(struct gendisk *disk)
{
	return !disk_live(disk) || test_bit(GD_DEAD, &disk->state);
}

/**
 * iocost_bind - price a disk with a registered model
 * @disk: the whole disk, held open by the caller
 * @name: the model's name
 * @shadow: shadow mode: call the model for every bio and count its price,
 *	but let the builtin's be charged
 *
 * Replaces the disk's current binding, if any (a new mode is a new
 * binding, with new counters).  The first binding attaches the hooks.
 *
 * Return: 0; -ENOENT if no model of that name is registered; -ENODEV if
 * the disk went away meanwhile; -EOPNOTSUPP for shadow mode on a kernel
 * whose BTF lacks what the builtin's price needs (logged at load), or on
 * an IPA-SRA clone kernel after a structural mismatch (logged); -ENOMEM;
 * or the hook's error (logged).  On error nothing changed.
 */
int iocost_bind(struct gendisk *disk, const char *name, bool shadow)
{
	struct iocost_binding *b, *old;
	dev_t devt = disk_devt(disk);
	struct iocost_model *m;
	LIST_HEAD(dead);
	int ret = 0;

	if (shadow && !iocost_devctx_shadow_ok())
		return -EOPNOTSUPP;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->stats = alloc_percpu(struct iocost_stats);
	if (!b->stats) {
		kfree(b);
		return -ENOMEM;
	}
	b->devt = devt;
	b->diskseq = disk->diskseq;
	b->shadow = shadow;

	flush_work(&iocost_gone_work);	/* a removed disk's binding is retired */
	if (IOCOST_TEST_HOOK(bind_delay_ms))
		msleep(IOCOST_TEST_HOOK(bind_delay_ms));
	mutex_lock(&iocost_lock);
	/*
	 * Under the lock: the clone's structural mismatch (clone.c) sets the
	 * reason, then unbinds every disk under this lock; a bind that got
	 * the lock first is unbound by it, one that comes after sees why.
	 */
	if (IOCOST_HOOK_CLONE && iocost_clone_refuses()) {
		pr_err_ratelimited("%u:%u not bound: pricing through %s was disabled (%s)\n",
				   MAJOR(devt), MINOR(devt), IOCOST_HOOK_TARGET,
				   iocost_clone_refuses());
		ret = -EOPNOTSUPP;
		goto err_unlock;
	}
	m = iocost_model_find(name);
	if (!m) {
		ret = -ENOENT;
		goto err_unlock;
	}
	old = iocost_binding_find_devt(devt);
	if (!iocost_nr_bindings) {
		ret = iocost_hook_install();
		if (ret)
			goto err_unlock;
	}
	bpf_map_inc(m->map);
	b->map = m->map;
	b->model = m;
	iocost_binding_add(b, old, &dead);
	/*
	 * The disk may have died before the binding was published, too late
	 * for the bdev_mark_dead() hook to see it.  The barrier orders the
	 * publication before this check; the hook orders the disk's death
	 * before its lookup, so one of the two sees the other.
	 */
	smp_mb();
	if (iocost_disk_gone(disk)) {
		iocost_binding_unlink(b, &dead);
		ret = -ENODEV;
	}
	mutex_unlock(&iocost_lock);
	iocost_bindings_free(&dead);
	if (!ret)
		pr_info("%u:%u bound to model %s%s\n", MAJOR(devt), MINOR(devt),
			name, shadow ? " in shadow mode (the builtin's prices are charged)" : "");
	return ret;

err_unlock:
	mutex_unlock(&iocost_lock);
	free_percpu(b->stats);
	kfree(b);
	return ret;
}

/**
 * iocost_unbind - give a disk back to the builtin linear model
 * @devt: the whole disk's dev_t
 *
 * Needs no access to the disk, so that a disk that cannot be opened (for
 * the writer's device cgroup, or for the moment) can still be unbound.
 *
 * Return: true if @devt was bound, false if it was not.
 */
bool iocost_unbind(dev_t devt)
{
	struct iocost_binding *b;
	LIST_HEAD(dead);

	flush_work(&iocost_gone_work);	/* a removed disk's binding is retired */
	mutex_lock(&iocost_lock);
	b = iocost_binding_find_devt(devt);
	if (b) {
		pr_info("%u:%u back to the builtin linear model (was %s)\n",
			MAJOR(devt), MINOR(devt), b->model->name);
		iocost_binding_unlink(b, &dead);
	}
	mutex_unlock(&iocost_lock);
	iocost_bindings_free(&dead);
	return b;
}

/**
 * iocost_unbind_all - give every disk back to the builtin linear model
 *
 * Used by the clone's structural-mismatch path (clone.c) and at module
 * exit (iocost_binding_exit()); the hooks are detached with the last
 * binding.
 */
void iocost_unbind_all(void)
{
	struct iocost_binding *b, *tmp;
	LIST_HEAD(dead);

	cancel_work_sync(&iocost_gone_work);
	mutex_lock(&iocost_lock);
	list_for_each_entry_safe(b, tmp, &iocost_bindings, node)
		iocost_binding_unlink(b, &dead);
	mutex_unlock(&iocost_lock);
	iocost_bindings_free(&dead);
}

/**
 * iocost_binding_disk_dead - the block layer marked a block device dead
 * @bdev: the device, from bdev_mark_dead()
 *
 * Called by hook.c's handler at the entry of bdev_mark_dead() while the
 * hooks are attached.  If @bdev is a bound whole disk that is really going
 * away (no longer live, or marked dead: a driver calling bdev_mark_dead()
 * for a disk it only takes offline keeps its binding), the binding is
 * marked gone and retired from a work item.
 *
 * Context: process context, any locks of the caller; does not sleep.
 */
void notrace iocost_binding_disk_dead(struct block_device *bdev)
{
	struct gendisk *disk = bdev->bd_disk;
	struct iocost_binding *b;
	dev_t devt = disk_devt(disk);
	bool found = false;

	if (bdev_is_partition(bdev) || !iocost_disk_gone(disk))
		return;
	smp_mb();	/* the disk's death before the lookup: see iocost_bind() */
	rcu_read_lock();
	hash_for_each_possible_rcu_notrace(iocost_bindings_hash, b, hnode, devt) {
		if (b->devt == devt && b->diskseq == disk->diskseq) {
			WRITE_ONCE(b->gone, true);
			found = true;
		}
	}
	rcu_read_unlock();
	if (found)
		schedule_work(&iocost_gone_work);
}

static void iocost_gone_workfn(struct work_struct *work)
{
	struct iocost_binding *b, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&iocost_lock);
	list_for_each_entry_safe(b, tmp, &iocost_bindings, node) {
		if (!READ_ONCE(b->gone))
			continue;
		pr_info("%u:%u went away: dropping its binding to %s\n",
			MAJOR(b->devt), MINOR(b->devt), b->model->name);
		iocost_binding_unlink(b, &dead);
	}
	mutex_unlock(&iocost_lock);
	iocost_bindings_free(&dead);
}

/**
 * iocost_binding_init - make the queue retired bindings are freed from
 *
 * Called before anything can bind (ctl.c's files do not exist yet).
 *
 * Return: 0, or -ENOMEM.
 */
int iocost_binding_init(void)
{
	/* unbound: a free needs no CPU; and 7.x warns without the choice */
	iocost_free_wq = alloc_workqueue("iocost_bpf_free", WQ_UNBOUND, 0);
	return iocost_free_wq ? 0 : -ENOMEM;
}

/**
 * iocost_binding_exit - unbind every disk and wait until all is freed
 *
 * Module exit, before the hooks' filters are released: after it no
 * binding exists and no free of one is pending or running, so neither
 * this module's text nor the models' maps are used any more.
 */
void iocost_binding_exit(void)
{
	iocost_unbind_all();
	rcu_barrier();	/* every queue_rcu_work() has queued its work */
	destroy_workqueue(iocost_free_wq);	/* and every work has run */
}

/**
 * iocost_bindings_show - print one line per binding
 * @s: where to print
 * @fn: prints one binding; called in an RCU read-side section, must not
 *	sleep
 *
 * One consistent list: every change of it is made under iocost_show_lock,
 * which no one holds across the hooks' (un)registration, so a reader
 * never waits for that; and the reader holds it only to take the list:
 * the lines are printed after it is dropped, the bindings kept by RCU, so
 * a bind or unbind waits neither for this lock while a text is printed
 * nor for the readers printing (iocost_bindings_free() frees the bindings
 * after a grace period without waiting for it; tests/bench/readers
 * measures what readers cost a writer).  A disk that went away is not
 * shown, whether or not its retirement has run yet.  Changes nothing.
 */
void iocost_bindings_show(struct seq_buf *s,
			  void (*fn)(struct seq_buf *s,
				     const struct iocost_binding *b))
{
	const struct iocost_binding **shown;
	struct iocost_binding *b;
	unsigned int i, n = 0;

	mutex_lock(&iocost_show_lock);
	shown = kvmalloc_array(max(iocost_nr_bindings, 1U), sizeof(*shown),
			       GFP_KERNEL);
	list_for_each_entry(b, &iocost_bindings, node) {
		if (READ_ONCE(b->gone))
			continue;
		if (shown)
			shown[n++] = b;
		else
			fn(s, b);	/* no memory: print under the lock */
	}
	rcu_read_lock();
	mutex_unlock(&iocost_show_lock);
	for (i = 0; i < n; i++)
		fn(s, shown[i]);
	rcu_read_unlock();
	kvfree(shown);
}

/**
 * iocost_model_nr_shown - how many disks a model prices, as a reader sees
 * @m: the model
 *
 * Its bindings, but not those of disks that went away and are not
 * retired yet (iocost_bindings_show() does not show them either).
 *
 * Context: iocost_show_lock held.
 * Return: the count.
 */
unsigned int iocost_model_nr_shown(const struct iocost_model *m)
{
	const struct iocost_binding *b;
	unsigned int n = 0;

	lockdep_assert_held(&iocost_show_lock);
	list_for_each_entry(b, &iocost_bindings, node)
		n += b->model == m && !READ_ONCE(b->gone);
	return n;
}

/**
 * iocost_binding_stats - the sum of a binding's per-cpu counters
 * @b: the binding
 * @sum: filled in
 *
 * struct iocost_stats holds nothing but u64 counters: it is summed as an
 * array of them, so that a counter added to it is summed too.
 */
void iocost_binding_stats(const struct iocost_binding *b,
			  struct iocost_stats *sum)
{
	u64 *to = (u64 *)sum;
	unsigned int i;
	int cpu;

	BUILD_BUG_ON(sizeof(*sum) % sizeof(u64));
	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *from = (const u64 *)per_cpu_ptr(b->stats, cpu);

		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			to[i] += READ_ONCE(from[i]);
	}
}
