// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the control path: struct_ops -> registry -> sysfs -> bindings
 *
 * Registering an iocost_model_ops struct_ops (bpftool struct_ops register,
 * a libbpf skeleton, iocostctl load) calls iocost_model_reg(), which puts
 * the model in the registry under its name; unregistering calls
 * iocost_model_unreg(), which takes the name away.
 *
 * /sys/kernel/iocost_bpf/ (a kobject under kernel_kobj):
 *   models    (0444) registered models: "NAME bindings=N"
 *   bindings  (0644) "MAJ:MIN model=NAME" binds, "MAJ:MIN model=linear"
 *		      restores the builtin; reads back one line per bound disk
 *   stats     (0444) per bound disk: what the model priced since binding
 *
 * A write is parsed, the model looked up and the disk resolved before
 * anything changes; the switch then happens under iocost_ctl_lock, which
 * serializes every writer, the registry and the hook installation.
 *
 * Lifetime, as the series specifies: a binding holds a reference on the
 * model's struct_ops map (bpf_map_inc; the kernel's bpf_struct_ops_get()
 * is not exported, and it does the same).  Unregistering a bound model
 * only removes its name: bound disks keep pricing with it until they are
 * switched to linear, and the last switch drops the map, whose free path
 * releases the programs and the module reference the map holds.  So the
 * module cannot be unloaded while a model is registered or bound.  A
 * model's first binding also subscribes it to the blkcg online/offline
 * callbacks (hook.c), its last binding unsubscribes it: they follow the
 * binding, not the registry.
 *
 * A binding is made for a whole disk, identified by dev_t and diskseq:
 * partitions are refused with ENODEV (bind the disk; a partition's bios are
 * charged to its disk), and a disk that went away is dropped from the
 * bindings at the next access of the control files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "iocost_bpf.h"
#include "parse.h"

static DEFINE_MUTEX(iocost_ctl_lock);
static LIST_HEAD(iocost_models);	/* registered models */
static LIST_HEAD(iocost_binding_list);	/* all bindings */
static unsigned int iocost_nr_bindings;
static struct kobject *iocost_kobj;

/* ---- the struct_ops type ---------------------------------------------- */

static struct bpf_map *iocost_kdata_to_map(void *kdata)
{
	return (void *)((char *)kdata - IOCOST_OFF_ST_VALUE_DATA -
			IOCOST_OFF_ST_MAP_KVALUE + IOCOST_OFF_ST_MAP_MAP);
}

static struct iocost_model *iocost_model_find(const char *name)
{
	struct iocost_model *m;

	list_for_each_entry(m, &iocost_models, node)
		if (!strncmp(m->name, name, IOCOST_MODEL_NAME_LEN))
			return m;
	return NULL;
}

static void iocost_model_free_if_unused(struct iocost_model *m)
{
	if (!m->registered && !m->nr_bindings)
		kfree(m);
}

static int iocost_model_reg(void *kdata, struct bpf_link *link)
{
	struct iocost_model_ops *ops = kdata;
	struct bpf_map *map = iocost_kdata_to_map(kdata);
	struct iocost_model *m;

	if (!ops->calc_cost || !iocost_name_valid(ops->name, sizeof(ops->name)))
		return -EINVAL;	/* init_member() has refused these already */
	/* the same privilege as binding: a model prices a whole device */
	if (!capable(CAP_SYS_ADMIN)) {
		pr_info_ratelimited("model %s: registering needs CAP_SYS_ADMIN\n",
				    ops->name);
		return -EPERM;
	}
	if (map->map_type != BPF_MAP_TYPE_STRUCT_OPS) {
		pr_err("struct_ops map layout is not what the build derived from BTF; refusing %s\n",
		       ops->name);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->ops = ops;
	m->map = map;
	m->calc_prog = iocost_hook_model_prog(map);
	m->registered = true;
	strscpy(m->name, ops->name, sizeof(m->name));

	mutex_lock(&iocost_ctl_lock);
	if (iocost_model_find(m->name)) {
		mutex_unlock(&iocost_ctl_lock);
		pr_info("model %s: a model of that name is already registered\n",
			m->name);
		kfree(m);
		return -EEXIST;
	}
	list_add_tail(&m->node, &iocost_models);
	mutex_unlock(&iocost_ctl_lock);
	pr_info("model %s registered%s\n", m->name, m->calc_prog ? "" :
		" (called through its struct_ops trampoline)");
	return 0;
}

static void iocost_model_unreg(void *kdata, struct bpf_link *link)
{
	struct iocost_model *m, *found = NULL;

	mutex_lock(&iocost_ctl_lock);
	list_for_each_entry(m, &iocost_models, node) {
		if (m->ops == kdata) {
			found = m;
			break;
		}
	}
	if (found) {
		list_del(&found->node);
		found->registered = false;
		pr_info("model %s unregistered%s\n", found->name,
			found->nr_bindings ?
			" (still bound: kept until its devices switch back to linear)" : "");
		iocost_model_free_if_unused(found);
	}
	mutex_unlock(&iocost_ctl_lock);
}

static int iocost_model_validate(void *kdata)
{
	struct iocost_model_ops *ops = kdata;

	return ops->calc_cost ? 0 : -EINVAL;
}

static int iocost_model_init(struct btf *btf)
{
	return 0;
}

static int iocost_model_check_member(const struct btf_type *t,
				     const struct btf_member *member,
				     const struct bpf_prog *prog)
{
	if (prog->sleepable) {
		pr_err("%s: sleepable programs are refused: calc_cost and the blkcg callbacks run under RCU\n",
		       prog->aux->name);
		return -EINVAL;
	}
	return 0;
}

static int iocost_model_init_member(const struct btf_type *t,
				    const struct btf_member *member,
				    void *kdata, const void *udata)
{
	const struct iocost_model_ops *uops = udata;
	struct iocost_model_ops *kops = kdata;
	u32 moff = __btf_member_bit_offset(t, member) / 8;

	switch (moff) {
	case offsetof(struct iocost_model_ops, calc_cost):
		/* udata holds the program fd of each implemented op */
		if (!uops->calc_cost) {
			pr_err("model %*pE: no calc_cost program: refused (a model must price every IO)\n",
			       (int)strnlen(uops->name, sizeof(uops->name)),
			       uops->name);
			return -EINVAL;
		}
		return 0;
	case offsetof(struct iocost_model_ops, name):
		if (!iocost_name_valid(uops->name, sizeof(uops->name))) {
			pr_err("model name \"%*pE\" refused: 1-%d printable non-blank characters, NUL-terminated, not \"%s\"\n",
			       (int)strnlen(uops->name, sizeof(uops->name)),
			       uops->name, IOCOST_MODEL_NAME_LEN - 1,
			       IOCOST_MODEL_LINEAR);
			return -EINVAL;
		}
		strscpy(kops->name, uops->name, sizeof(kops->name));
		return 1;
	}
	return 0;
}

static const struct bpf_func_proto *
iocost_model_get_func_proto(enum bpf_func_id func_id,
			    const struct bpf_prog *prog)
{
	return bpf_base_func_proto(func_id, prog);
}

static bool iocost_model_is_valid_access(int off, int size,
					 enum bpf_access_type type,
					 const struct bpf_prog *prog,
					 struct bpf_insn_access_aux *info)
{
	return bpf_tracing_btf_ctx_access(off, size, type, prog, info);
}

static const struct bpf_verifier_ops iocost_model_verifier_ops = {
	.get_func_proto = iocost_model_get_func_proto,
	.is_valid_access = iocost_model_is_valid_access,
};

/* CFI stubs: the prototypes the struct_ops trampolines are generated for */
static u64 iocost_model_ops__calc_cost(u64 opf, u64 nbytes, sector_t sector,
				       struct blkcg *blkcg, u64 model_flags)
{
	return 0;
}

static void iocost_model_ops__blkcg_online(struct blkcg *blkcg)
{
}

static void iocost_model_ops__blkcg_offline(struct blkcg *blkcg)
{
}

static struct iocost_model_ops iocost_model_cfi_stubs = {
	.calc_cost = iocost_model_ops__calc_cost,
	.blkcg_online = iocost_model_ops__blkcg_online,
	.blkcg_offline = iocost_model_ops__blkcg_offline,
};

static struct bpf_struct_ops iocost_model_bpf_ops = {
	.verifier_ops = &iocost_model_verifier_ops,
	.init = iocost_model_init,
	.check_member = iocost_model_check_member,
	.init_member = iocost_model_init_member,
	.reg = iocost_model_reg,
	.unreg = iocost_model_unreg,
	.validate = iocost_model_validate,
	.cfi_stubs = &iocost_model_cfi_stubs,
	.owner = THIS_MODULE,
	.name = "iocost_model_ops",
};

/**
 * iocost_ctl_register_ops - register the iocost_model_ops struct_ops type
 *
 * Return: 0 or the error of register_bpf_struct_ops(), logged.
 */
int iocost_ctl_register_ops(void)
{
	int ret = register_bpf_struct_ops(&iocost_model_bpf_ops,
					  iocost_model_ops);

	if (ret)
		pr_err("registering struct_ops iocost_model_ops failed: %d (is the module built with BTF?)\n",
		       ret);
	return ret;
}

/* ---- bindings ------------------------------------------------------------ */

/* Resolve MAJ:MIN to a whole disk's diskseq, as io.cost.model does. */
static int iocost_resolve_disk(dev_t devt, u64 *diskseq)
{
	struct block_device *bdev;
	struct file *file;
	int ret = 0;

	file = bdev_file_open_by_dev(devt, BLK_OPEN_READ | BLK_OPEN_NDELAY,
				     NULL, NULL);
	if (IS_ERR(file))
		return -ENODEV;
	bdev = file_bdev(file);
	if (bdev_is_partition(bdev))
		ret = -ENOTBLK;
	else
		*diskseq = bdev->bd_disk->diskseq;
	fput(file);
	return ret;
}

/* @m prices one more device; the first binding subscribes it to blkcg events */
static void iocost_model_add_binding(struct iocost_model *m)
{
	if (!m->nr_bindings++)
		iocost_hook_publish_model(m);
}

/* ... one device less; the caller waits for a grace period before freeing */
static void iocost_model_drop_binding(struct iocost_model *m)
{
	if (!--m->nr_bindings)
		iocost_hook_unpublish_model(m);
}

static void iocost_binding_free(struct iocost_binding *b)
{
	free_percpu(b->stats);
	kfree(b);
}

/*
 * Take @b out of service; the caller does synchronize_rcu() and then
 * iocost_binding_release().  Called with iocost_ctl_lock held.
 */
static void iocost_binding_unlink(struct iocost_binding *b)
{
	list_del(&b->node);
	iocost_model_drop_binding(b->model);
	if (!--iocost_nr_bindings)
		iocost_hook_remove();
}

/* Drop what @b holds.  Called with iocost_ctl_lock held, after a grace period. */
static struct bpf_map *iocost_binding_release(struct iocost_binding *b)
{
	struct iocost_model *m = b->model;
	struct bpf_map *map = m->map;

	iocost_model_free_if_unused(m);
	iocost_binding_free(b);
	return map;	/* bpf_map_put() it outside iocost_ctl_lock */
}

static struct iocost_binding *iocost_binding_find_devt(dev_t devt)
{
	struct iocost_binding *b;

	list_for_each_entry(b, &iocost_binding_list, node)
		if (b->devt == devt)
			return b;
	return NULL;
}

/*
 * Drop bindings of disks that went away (or were replaced by a new disk
 * with the same MAJ:MIN).  Called with iocost_ctl_lock held; returns the
 * maps to put in @maps (at most @max; the rest waits for the next call).
 */
static int iocost_prune_locked(struct bpf_map **maps, int max)
{
	struct iocost_binding *b, *tmp;
	LIST_HEAD(dead);
	int n = 0;

	list_for_each_entry_safe(b, tmp, &iocost_binding_list, node) {
		u64 seq;

		if (n == max)
			break;
		if (!iocost_resolve_disk(b->devt, &seq) && seq == b->diskseq)
			continue;
		pr_info("%u:%u went away: dropping its binding to %s\n",
			MAJOR(b->devt), MINOR(b->devt), b->model->name);
		iocost_hook_unpublish(b);
		iocost_binding_unlink(b);
		list_add(&b->node, &dead);
		n++;
	}
	if (!n)
		return 0;
	synchronize_rcu();
	n = 0;
	list_for_each_entry_safe(b, tmp, &dead, node)
		maps[n++] = iocost_binding_release(b);
	return n;
}

#define IOCOST_PRUNE_BATCH 16

/*
 * Take iocost_ctl_lock for a reader of the bindings, first dropping the
 * bindings of disks that went away.  Returns with the lock held.
 */
static void iocost_ctl_lock_and_prune(void)
{
	struct bpf_map *maps[IOCOST_PRUNE_BATCH];
	int i, n;

	mutex_lock(&iocost_ctl_lock);
	n = iocost_prune_locked(maps, IOCOST_PRUNE_BATCH);
	if (!n)
		return;
	mutex_unlock(&iocost_ctl_lock);
	for (i = 0; i < n; i++)
		bpf_map_put(maps[i]);
	mutex_lock(&iocost_ctl_lock);
}

static int iocost_bind(dev_t devt, u64 diskseq, const char *name)
{
	struct iocost_binding *b, *old;
	struct bpf_map *old_map = NULL;
	struct iocost_model *m;
	int ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->stats = alloc_percpu(struct iocost_stats);
	if (!b->stats) {
		kfree(b);
		return -ENOMEM;
	}
	b->devt = devt;
	b->diskseq = diskseq;

	mutex_lock(&iocost_ctl_lock);
	m = iocost_model_find(name);
	if (!m) {
		ret = -ENOENT;
		goto err_unlock;
	}
	old = iocost_binding_find_devt(devt);
	if (!old && !iocost_nr_bindings) {
		ret = iocost_hook_install();
		if (ret)
			goto err_unlock;
	}
	bpf_map_inc(m->map);
	iocost_model_add_binding(m);
	b->model = m;
	iocost_hook_publish(b, old);
	if (old) {
		list_replace(&old->node, &b->node);
		iocost_model_drop_binding(old->model);
		synchronize_rcu();
		old_map = iocost_binding_release(old);
	} else {
		list_add_tail(&b->node, &iocost_binding_list);
		iocost_nr_bindings++;
	}
	mutex_unlock(&iocost_ctl_lock);
	if (old_map)
		bpf_map_put(old_map);
	pr_info("%u:%u bound to model %s\n", MAJOR(devt), MINOR(devt), name);
	return 0;

err_unlock:
	mutex_unlock(&iocost_ctl_lock);
	iocost_binding_free(b);
	return ret;
}

static int iocost_unbind(dev_t devt)
{
	struct iocost_binding *b;
	struct bpf_map *map;

	mutex_lock(&iocost_ctl_lock);
	b = iocost_binding_find_devt(devt);
	if (!b) {
		mutex_unlock(&iocost_ctl_lock);
		return 0;	/* already linear */
	}
	iocost_hook_unpublish(b);
	iocost_binding_unlink(b);
	synchronize_rcu();
	pr_info("%u:%u back to the builtin linear model (was %s)\n",
		MAJOR(devt), MINOR(devt), b->model->name);
	map = iocost_binding_release(b);
	mutex_unlock(&iocost_ctl_lock);
	bpf_map_put(map);
	return 0;
}

/* ---- sysfs --------------------------------------------------------------- */

static ssize_t models_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct iocost_model *m;
	int len = 0;

	mutex_lock(&iocost_ctl_lock);
	list_for_each_entry(m, &iocost_models, node)
		len += sysfs_emit_at(buf, len, "%s bindings=%u\n", m->name,
				     m->nr_bindings);
	mutex_unlock(&iocost_ctl_lock);
	return len;
}

static ssize_t bindings_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct iocost_binding *b;
	int len = 0;

	iocost_ctl_lock_and_prune();
	list_for_each_entry(b, &iocost_binding_list, node)
		len += sysfs_emit_at(buf, len, "%u:%u model=%s\n",
				     MAJOR(b->devt), MINOR(b->devt),
				     b->model->name);
	mutex_unlock(&iocost_ctl_lock);
	return len;
}

static ssize_t bindings_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	struct iocost_bind_req req;
	u64 diskseq;
	dev_t devt;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = iocost_parse_bind(buf, count, &req);
	if (ret) {
		pr_info_ratelimited("bindings: refused \"%*pE\": %s\n",
				    (int)min_t(size_t, count, 64), buf,
				    ret == -ERANGE ? "device number out of range" :
				    "expected \"MAJ:MIN model=NAME\"");
		return ret;
	}
	devt = MKDEV(req.major, req.minor);
	ret = iocost_resolve_disk(devt, &diskseq);
	if (ret) {
		pr_info_ratelimited("bindings: %u:%u: %s\n", req.major, req.minor,
				    ret == -ENOTBLK ? "is a partition: bind its whole disk" :
				    "no such block device");
		return -ENODEV;
	}
	if (req.linear)
		ret = iocost_unbind(devt);
	else
		ret = iocost_bind(devt, diskseq, req.name);
	if (ret == -ENOENT)
		pr_info_ratelimited("bindings: %u:%u: no model named %s is registered\n",
				    req.major, req.minor, req.name);
	return ret ? ret : count;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct iocost_binding *b;
	int len = 0, cpu;

	iocost_ctl_lock_and_prune();
	list_for_each_entry(b, &iocost_binding_list, node) {
		struct iocost_stats sum = {};

		for_each_possible_cpu(cpu) {
			struct iocost_stats *s = per_cpu_ptr(b->stats, cpu);

			sum.charges += READ_ONCE(s->charges);
			sum.merges += READ_ONCE(s->merges);
			sum.nodata += READ_ONCE(s->nodata);
			sum.zero += READ_ONCE(s->zero);
			sum.clamped += READ_ONCE(s->clamped);
			sum.vtime += READ_ONCE(s->vtime);
		}
		len += sysfs_emit_at(buf, len,
				     "%u:%u model=%s registered=%d charges=%llu merges=%llu nodata=%llu zero=%llu clamped=%llu vtime=%llu\n",
				     MAJOR(b->devt), MINOR(b->devt),
				     b->model->name, b->model->registered,
				     sum.charges, sum.merges, sum.nodata,
				     sum.zero, sum.clamped, sum.vtime);
	}
	mutex_unlock(&iocost_ctl_lock);
	return len;
}

static struct kobj_attribute models_attr = __ATTR_RO(models);
static struct kobj_attribute bindings_attr = __ATTR_RW(bindings);
static struct kobj_attribute stats_attr = __ATTR_RO(stats);

static struct attribute *iocost_attrs[] = {
	&models_attr.attr,
	&bindings_attr.attr,
	&stats_attr.attr,
	NULL,
};

static const struct attribute_group iocost_attr_group = {
	.attrs = iocost_attrs,
};

/**
 * iocost_ctl_init - create /sys/kernel/iocost_bpf
 *
 * Return: 0 or -ENOMEM / the sysfs error.
 */
int iocost_ctl_init(void)
{
	int ret;

	iocost_kobj = kobject_create_and_add("iocost_bpf", kernel_kobj);
	if (!iocost_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(iocost_kobj, &iocost_attr_group);
	if (ret)
		kobject_put(iocost_kobj);
	return ret;
}

/**
 * iocost_ctl_exit - remove /sys/kernel/iocost_bpf
 *
 * Nothing can be bound or registered here: both hold a module reference.
 */
void iocost_ctl_exit(void)
{
	WARN_ON_ONCE(iocost_nr_bindings || !list_empty(&iocost_models));
	sysfs_remove_group(iocost_kobj, &iocost_attr_group);
	kobject_put(iocost_kobj);
}
