// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the control path: struct_ops -> registry -> sysfs -> binding.c
 *
 * Registering an iocost_model_ops struct_ops (bpftool struct_ops register,
 * a libbpf skeleton, iocostctl load) calls iocost_model_reg(), which puts
 * the model in the registry under its name; unregistering calls
 * iocost_model_unreg(), which takes the name away.
 *
 * /sys/kernel/iocost_bpf/ (a kobject under kernel_kobj):
 *   models    (0444) registered models: "NAME bindings=N"
 *   bindings  (0644) "MAJ:MIN model=NAME [mode=enforce|shadow]" binds,
 *		      "MAJ:MIN model=linear" restores the builtin; reads back
 *		      "MAJ:MIN model=NAME mode=MODE" per bound disk
 *   stats     (0444) per bound disk: what the model priced since binding;
 *		      in shadow mode also what the builtin charged for the
 *		      same bios and a histogram of model/builtin per IO;
 *		      on IPA-SRA clone kernels why bios were left to the
 *		      builtin (fallback_REASON=N, learning=N: clone.c)
 *   hook      (0444) the pricing hook's target; on clone kernels also the
 *		      callers' calls of it, the registers' mapping, the
 *		      unattributed calls and whether it prices
 * They are binary attributes so that no length limit (a page for a plain
 * attribute) cuts them.  sysfs hands a reader at most a page per read();
 * each open file reads one snapshot: a read at offset 0 builds the whole
 * text, the reads after it copy from that text (see iocost_ctl_read()).
 * Building takes iocost_show_lock, never iocost_lock, which a bind or
 * unbind holds across the ftrace (un)registration of the hooks.
 *
 * A write is parsed and the disk opened (with the writer's credentials,
 * as io.cost.model does) before anything changes; binding.c then makes
 * the switch under iocost_lock, which serializes every writer, the
 * registry and the hook installation.  Reads never open a disk and never
 * change anything.
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
 * A binding is made for a whole disk: partitions are refused with ENODEV
 * (bind the disk; a partition's bios are charged to its disk).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include "iocost_bpf.h"
#include "parse.h"

/* Linux 6.17 made the bin_attribute callbacks and group list const (Kbuild) */
#ifdef IOCOST_LINUX_6_17
#define IOCOST_BIN_ATTR_CONST const
#else
#define IOCOST_BIN_ATTR_CONST
#endif

/* registered models, under iocost_lock and iocost_show_lock */
static LIST_HEAD(iocost_models);
static struct kobject *iocost_kobj;
static const struct btf *iocost_btf;	/* this module's, holding the type */

/* ---- the struct_ops type ---------------------------------------------- */

static struct bpf_map *iocost_kdata_to_map(void *kdata)
{
	return (void *)((char *)kdata - IOCOST_OFF_ST_VALUE_DATA -
			IOCOST_OFF_ST_MAP_KVALUE + IOCOST_OFF_ST_MAP_MAP);
}

/**
 * iocost_model_find - a registered model by name
 * @name: the name
 *
 * Context: iocost_lock held.
 * Return: the model or NULL.
 */
struct iocost_model *iocost_model_find(const char *name)
{
	struct iocost_model *m;

	list_for_each_entry(m, &iocost_models, node)
		if (!strncmp(m->name, name, IOCOST_MODEL_NAME_LEN))
			return m;
	return NULL;
}

static int iocost_model_reg(void *kdata, struct bpf_link *link)
{
	struct iocost_model_ops *ops = kdata;
	struct bpf_map *map = iocost_kdata_to_map(kdata);
	const char *why = NULL;
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
	m->calc_prog = iocost_hook_model_prog(map, &why);
	m->registered = true;
	strscpy(m->name, ops->name, sizeof(m->name));

	mutex_lock(&iocost_lock);
	if (iocost_model_find(m->name)) {
		mutex_unlock(&iocost_lock);
		pr_info("model %s: a model of that name is already registered\n",
			m->name);
		kfree(m);
		return -EEXIST;
	}
	mutex_lock(&iocost_show_lock);
	list_add_tail(&m->node, &iocost_models);
	mutex_unlock(&iocost_show_lock);
	mutex_unlock(&iocost_lock);
	if (m->calc_prog)
		pr_info("model %s registered (calc_cost called directly)\n",
			m->name);
	else
		pr_info("model %s registered (called through its struct_ops trampoline: %s)\n",
			m->name, why);
	return 0;
}

static void iocost_model_unreg(void *kdata, struct bpf_link *link)
{
	struct iocost_model *m, *found = NULL;

	mutex_lock(&iocost_lock);
	list_for_each_entry(m, &iocost_models, node) {
		if (m->ops == kdata) {
			found = m;
			break;
		}
	}
	if (found) {
		mutex_lock(&iocost_show_lock);
		list_del(&found->node);
		WRITE_ONCE(found->registered, false);
		mutex_unlock(&iocost_show_lock);
		pr_info("model %s unregistered%s\n", found->name,
			found->nr_bindings ?
			" (still bound: kept until its devices switch back to linear)" : "");
		/* else binding.c frees it with its last binding */
		if (!found->nr_bindings)
			kfree_rcu(found, rcu);
	}
	mutex_unlock(&iocost_lock);
}

static int iocost_model_validate(void *kdata)
{
	struct iocost_model_ops *ops = kdata;

	return ops->calc_cost ? 0 : -EINVAL;
}

static int iocost_model_init(struct btf *btf)
{
	iocost_btf = btf;
	return 0;
}

/**
 * iocost_ctl_btf - the BTF that holds the iocost_model_ops type
 *
 * Return: the module's BTF, set when the type is registered; an
 * iocost_model_ops program's prog->aux->attach_btf.  NULL before.
 */
const struct btf *iocost_ctl_btf(void)
{
	return iocost_btf;
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

/* ---- sysfs --------------------------------------------------------------- */

/* the longest text a control file produces: 64 KiB bindings of stats */
#define IOCOST_TEXT_MAX (16 << 20)

/* the snapshots a control file keeps: one per open file reading it */
#define IOCOST_NR_SNAPS 16

/**
 * struct iocost_snap - a control file's whole text, as one reader sees it
 * @rcu: frees it after the readers copying from it
 * @id: this snapshot's number, unique since load; what the open file that
 *	built it keeps in its kernfs_open_file's priv
 * @len: the length of @text
 * @text: the text, not NUL-terminated
 */
struct iocost_snap {
	struct rcu_head rcu;
	unsigned long id;
	size_t len;
	char text[];
};

/**
 * struct iocost_ctl_file - a read-only view of a control file
 * @gen: prints the whole text
 * @lock: serializes the replacement of @snaps
 * @next: the slot of @snaps the next snapshot replaces
 * @snaps: the last IOCOST_NR_SNAPS snapshots (RCU)
 * @size: the buffer the last build needed, where the next one starts
 */
struct iocost_ctl_file {
	void (*gen)(struct seq_buf *s);
	spinlock_t lock;	/* replacing @snaps */
	unsigned int next;
	struct iocost_snap __rcu *snaps[IOCOST_NR_SNAPS];
	size_t size;
};

static atomic_long_t iocost_snap_ids;

/*
 * The whole text @f prints, run again with a larger buffer until it fits.
 * A build starts from the size the last one needed (halved when the text
 * shrank to a quarter of it): 192 bindings' stats (20 KiB) are printed
 * once, not once per size from a page up.  A kernel without full
 * preemption runs a build to its end before a bind or unbind waiting for
 * the CPU can run (tests/bench/readers).
 */
static struct iocost_snap *iocost_snap_build(struct iocost_ctl_file *f)
{
	size_t size = max_t(size_t, READ_ONCE(f->size), PAGE_SIZE);
	struct iocost_snap *snap;
	struct seq_buf s;

	for (;;) {
		snap = kvmalloc(size, GFP_KERNEL);
		if (!snap)
			return ERR_PTR(-ENOMEM);
		seq_buf_init(&s, snap->text, size - sizeof(*snap));
		f->gen(&s);
		if (!seq_buf_has_overflowed(&s))
			break;
		kvfree(snap);
		if (size >= IOCOST_TEXT_MAX)
			return ERR_PTR(-EFBIG);
		size *= 2;
		cond_resched();
	}
	snap->len = seq_buf_used(&s);
	snap->id = atomic_long_inc_return(&iocost_snap_ids);
	WRITE_ONCE(f->size, size > PAGE_SIZE && snap->len < size / 4 ?
		   size / 2 : size);
	return snap;
}

/* Make @snap one of @f's snapshots, in place of the oldest. */
static void iocost_snap_publish(struct iocost_ctl_file *f,
				struct iocost_snap *snap)
{
	struct iocost_snap *old;

	spin_lock(&f->lock);
	old = rcu_replace_pointer(f->snaps[f->next], snap,
				  lockdep_is_held(&f->lock));
	f->next = (f->next + 1) % IOCOST_NR_SNAPS;
	spin_unlock(&f->lock);
	if (old)
		kvfree_rcu(old, rcu);
}

/* Copy what @snap holds at @off; 0 at its end. */
static ssize_t iocost_snap_copy(const struct iocost_snap *snap, char *buf,
				loff_t off, size_t count)
{
	ssize_t ret = 0;

	if (off < snap->len) {
		ret = min_t(size_t, count, snap->len - off);
		memcpy(buf, snap->text + off, ret);
	}
	return ret;
}

/*
 * A read of a control file.  sysfs gives a reader at most a page per
 * read(), so a longer text takes several, between which the bindings can
 * change: each open file reads one snapshot.  A read at offset 0 (or the
 * first read of an open file, wherever it starts) builds a new snapshot
 * of the whole text and keeps its number in the open file's
 * kernfs_open_file (the file's seq_file's private; its priv is a
 * published field that sysfs does not use for a bin_attribute, and
 * kernfs zeroes at open); the reads after it copy from that snapshot.
 * sysfs tells a bin_attribute nothing when a file is closed, so nothing
 * is allocated per open file: a control file keeps its last
 * IOCOST_NR_SNAPS snapshots, and a read whose snapshot was replaced by as
 * many newer ones (readers that opened the file in the middle of its
 * read) fails with EAGAIN, logged: read again from offset 0.
 */
static ssize_t iocost_ctl_read(struct iocost_ctl_file *f, struct file *file,
			       const struct bin_attribute *attr, char *buf,
			       loff_t off, size_t count)
{
	struct kernfs_open_file *of =
		((struct seq_file *)file->private_data)->private;
	unsigned long id = (unsigned long)of->priv;
	struct iocost_snap *snap;
	ssize_t ret = -EAGAIN;
	unsigned int i;

	if (!off || !id) {
		snap = iocost_snap_build(f);
		if (IS_ERR(snap))
			return PTR_ERR(snap);
		of->priv = (void *)snap->id;
		ret = iocost_snap_copy(snap, buf, off, count);
		iocost_snap_publish(f, snap);
		return ret;
	}
	rcu_read_lock();
	for (i = 0; i < IOCOST_NR_SNAPS; i++) {
		snap = rcu_dereference(f->snaps[i]);
		if (snap && snap->id == id) {
			ret = iocost_snap_copy(snap, buf, off, count);
			break;
		}
	}
	rcu_read_unlock();
	if (ret == -EAGAIN)
		pr_info_ratelimited("%s: a read at offset %lld failed (EAGAIN): %d newer reads replaced the text this open file was reading; read it again from offset 0\n",
				    attr->attr.name, off, IOCOST_NR_SNAPS);
	return ret;
}

static void models_gen(struct seq_buf *s)
{
	struct iocost_model *m;

	mutex_lock(&iocost_show_lock);
	list_for_each_entry(m, &iocost_models, node)
		seq_buf_printf(s, "%s bindings=%u\n", m->name,
			       iocost_model_nr_shown(m));
	mutex_unlock(&iocost_show_lock);
}

/*
 * The bindings and stats lines are written straight into the text's
 * buffer, without vsnprintf() or a strlen() per piece: stats has a line
 * of seven to twenty numbers per binding, and parsing a format for each
 * was most of what a read of it cost (tests/bench/readers).
 */
struct iocost_line {
	char *buf;	/* the room left in the text's buffer */
	size_t room;
	size_t len;	/* what the line holds; over @room: it did not fit */
};

static void line_mem(struct iocost_line *l, const char *str, size_t n)
{
	if (l->len + n <= l->room)
		memcpy(l->buf + l->len, str, n);
	l->len += n;
}

/* a string literal, its length known when compiling */
#define line_lit(l, lit) line_mem(l, lit, sizeof(lit) - 1)

static void line_u64(struct iocost_line *l, u64 v)
{
	char num[20];	/* U64_MAX has 20 digits */
	char *p = num + sizeof(num);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	line_mem(l, p, num + sizeof(num) - p);
}

/* @name (" NAME=", @n bytes), then @v */
static void line_field(struct iocost_line *l, const char *name, size_t n,
		       u64 v)
{
	line_mem(l, name, n);
	line_u64(l, v);
}

#define line_stat(l, lit, v) line_field(l, lit, sizeof(lit) - 1, v)

static void line_begin(struct iocost_line *l, struct seq_buf *s)
{
	l->room = seq_buf_get_buf(s, &l->buf);
	l->len = 0;
}

/* the line ends: into the text, or the text overflows (built again) */
static void line_end(struct iocost_line *l, struct seq_buf *s)
{
	line_lit(l, "\n");
	seq_buf_commit(s, l->len <= l->room ? (int)l->len : -1);
}

/* "MAJ:MIN model=NAME mode=MODE", what bindings and stats lines begin with */
static void binding_head(struct iocost_line *l, const struct iocost_binding *b)
{
	const char *name = b->model->name;

	line_u64(l, MAJOR(b->devt));
	line_lit(l, ":");
	line_u64(l, MINOR(b->devt));
	line_lit(l, " model=");
	line_mem(l, name, strnlen(name, IOCOST_MODEL_NAME_LEN));
	if (b->shadow)
		line_lit(l, " mode=shadow");
	else
		line_lit(l, " mode=enforce");
}

static void binding_line(struct seq_buf *s, const struct iocost_binding *b)
{
	struct iocost_line l;

	line_begin(&l, s);
	binding_head(&l, b);
	line_end(&l, s);
}

static void bindings_gen(struct seq_buf *s)
{
	iocost_bindings_show(s, binding_line);
}

static void stats_line(struct seq_buf *s, const struct iocost_binding *b)
{
	struct iocost_stats sum;
	struct iocost_line l;
	int i;

	iocost_binding_stats(b, &sum);
	line_begin(&l, s);
	binding_head(&l, b);
	line_stat(&l, " registered=", READ_ONCE(b->model->registered));
#define IOCOST_STAT(name) line_stat(&l, " " #name "=", sum.name)
#include "iocost_stats.h"
#undef IOCOST_STAT
	if (b->shadow) {
#define IOCOST_STAT_SHADOW(name) line_stat(&l, " " #name "=", sum.name)
#include "iocost_stats.h"
#undef IOCOST_STAT_SHADOW
		line_lit(&l, " hist=");
		for (i = 0; i < IOCOST_NR_HIST; i++) {
			if (i)
				line_lit(&l, ",");
			line_u64(&l, sum.hist[i]);
		}
	}
	if (IOCOST_HOOK_CLONE) {
		for (i = 0; i < IOCOST_NR_FALLBACK; i++) {
			line_lit(&l, " fallback_");
			line_mem(&l, iocost_fallback_names[i],
				 strlen(iocost_fallback_names[i]));
			line_stat(&l, "=", sum.fallback[i]);
		}
#define IOCOST_STAT_CLONE(name) line_stat(&l, " " #name "=", sum.name)
#include "iocost_stats.h"
#undef IOCOST_STAT_CLONE
	}
	line_end(&l, s);
}

static void stats_gen(struct seq_buf *s)
{
	iocost_bindings_show(s, stats_line);
}

/* what the pricing hook is attached to, and on clone kernels its state */
static void hook_gen(struct seq_buf *s)
{
	if (IOCOST_HOOK_CLONE)
		iocost_clone_show(s);
	else
		seq_buf_printf(s, "target %s (in BTF)\nstate pricing\n",
			       IOCOST_HOOK_TARGET);
}

static struct iocost_ctl_file models_file = {
	.gen = models_gen,
	.lock = __SPIN_LOCK_UNLOCKED(models_file.lock),
};

static struct iocost_ctl_file bindings_file = {
	.gen = bindings_gen,
	.lock = __SPIN_LOCK_UNLOCKED(bindings_file.lock),
};

static struct iocost_ctl_file stats_file = {
	.gen = stats_gen,
	.lock = __SPIN_LOCK_UNLOCKED(stats_file.lock),
};

static struct iocost_ctl_file hook_file = {
	.gen = hook_gen,
	.lock = __SPIN_LOCK_UNLOCKED(hook_file.lock),
};

static ssize_t models_read(struct file *file, struct kobject *kobj,
			   IOCOST_BIN_ATTR_CONST struct bin_attribute *attr,
			   char *buf, loff_t off, size_t count)
{
	return iocost_ctl_read(&models_file, file, attr, buf, off, count);
}

static ssize_t bindings_read(struct file *file, struct kobject *kobj,
			     IOCOST_BIN_ATTR_CONST struct bin_attribute *attr,
			     char *buf, loff_t off, size_t count)
{
	return iocost_ctl_read(&bindings_file, file, attr, buf, off, count);
}

static ssize_t stats_read(struct file *file, struct kobject *kobj,
			  IOCOST_BIN_ATTR_CONST struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	return iocost_ctl_read(&stats_file, file, attr, buf, off, count);
}

static ssize_t hook_read(struct file *file, struct kobject *kobj,
			 IOCOST_BIN_ATTR_CONST struct bin_attribute *attr,
			 char *buf, loff_t off, size_t count)
{
	return iocost_ctl_read(&hook_file, file, attr, buf, off, count);
}

static struct iocost_ctl_file *const iocost_ctl_files[] = {
	&models_file, &bindings_file, &stats_file, &hook_file,
};

/* Open MAJ:MIN as io.cost.model does: the writer's credentials apply. */
static struct file *iocost_open_disk(const struct iocost_bind_req *req)
{
	struct file *file;

	file = bdev_file_open_by_dev(MKDEV(req->major, req->minor),
				     BLK_OPEN_READ | BLK_OPEN_NDELAY, NULL, NULL);
	if (IS_ERR(file)) {
		pr_info_ratelimited("bindings: %u:%u: no such block device (%ld)\n",
				    req->major, req->minor, PTR_ERR(file));
		return ERR_PTR(-ENODEV);
	}
	if (bdev_is_partition(file_bdev(file))) {
		pr_info_ratelimited("bindings: %u:%u: is a partition: bind its whole disk\n",
				    req->major, req->minor);
		fput(file);
		return ERR_PTR(-ENODEV);
	}
	return file;
}

static ssize_t bindings_write(struct file *f, struct kobject *kobj,
			      IOCOST_BIN_ATTR_CONST struct bin_attribute *attr,
			      char *buf, loff_t off, size_t count)
{
	struct iocost_bind_req req;
	struct file *file;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = off ? -EINVAL : iocost_parse_bind(buf, count, &req);
	if (ret) {
		pr_info_ratelimited("bindings: refused \"%*pE\": %s\n",
				    (int)min_t(size_t, count, 64), buf,
				    ret == -ERANGE ? "device number out of range" :
				    "expected \"MAJ:MIN model=NAME [mode=enforce|shadow]\" or \"MAJ:MIN model=linear\"");
		return ret;
	}
	/* a bound disk is unbound without opening it */
	if (req.linear && iocost_unbind(MKDEV(req.major, req.minor)))
		return count;
	file = iocost_open_disk(&req);
	if (IS_ERR(file))
		return PTR_ERR(file);
	if (!req.linear)
		ret = iocost_bind(file_bdev(file)->bd_disk, req.name,
				  req.shadow);
	fput(file);
	if (ret == -ENOENT)
		pr_info_ratelimited("bindings: %u:%u: no model named %s is registered\n",
				    req.major, req.minor, req.name);
	else if (ret == -ENODEV)
		pr_info_ratelimited("bindings: %u:%u: the disk went away\n",
				    req.major, req.minor);
	else if (ret == -EOPNOTSUPP &&
		 !(IOCOST_HOOK_CLONE && iocost_clone_refuses()))
		pr_info_ratelimited("bindings: %u:%u: mode=shadow needs blk-iocost's coefficients and cursor in this kernel's BTF, which lacks them\n",
				    req.major, req.minor);
	return ret ? ret : count;
}

static BIN_ATTR_RO(models, 0);
static BIN_ATTR_RW(bindings, 0);
static BIN_ATTR_RO(stats, 0);
static BIN_ATTR_RO(hook, 0);

static IOCOST_BIN_ATTR_CONST struct bin_attribute *IOCOST_BIN_ATTR_CONST iocost_bin_attrs[] = {
	&bin_attr_models,
	&bin_attr_bindings,
	&bin_attr_stats,
	&bin_attr_hook,
	NULL,
};

static const struct attribute_group iocost_attr_group = {
	.bin_attrs = iocost_bin_attrs,
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
 * Nothing can be registered here: a registered model holds a module
 * reference.
 */
void iocost_ctl_exit(void)
{
	unsigned int f, i;

	WARN_ON_ONCE(!list_empty(&iocost_models));
	sysfs_remove_group(iocost_kobj, &iocost_attr_group);
	kobject_put(iocost_kobj);
	/* no reader is left: removing the files waited for them */
	for (f = 0; f < ARRAY_SIZE(iocost_ctl_files); f++)
		for (i = 0; i < IOCOST_NR_SNAPS; i++)
			kvfree(rcu_dereference_protected(iocost_ctl_files[f]->snaps[i], 1));
}
