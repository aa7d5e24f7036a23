// SPDX-License-Identifier: GPL-2.0
/*
 * btfgen.c - derive private kernel struct offsets from a kernel's BTF
 *
 * The module needs a few facts about structs that are private to the
 * kernel (declared in .c files or in block/ headers that no headers
 * package ships).  Their definitions are never copied: this build tool
 * reads the target kernel's BTF (the headers package's vmlinux) and writes
 * a header of offsets, failing the build with a readable message when a
 * required field is missing.  It also checks that the hooked function has
 * the prototype the hook assumes, and (--check-module) that the built
 * module's BTF describes calc_cost's blkcg argument as the kernel's real
 * struct blkcg, which the verifier needs to let models read it.
 *
 *   iocost-btfgen VMLINUX > iocost_btf.h
 *   iocost-btfgen --check-module MODULE.ko VMLINUX
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "btfgen.h"
#include "btfwalk.h"

/**
 * btfgen_enum_value - the value of an enumerator
 * @btf: the kernel's BTF
 * @name: the enumerator's name
 * @val: set to its value on success
 *
 * Every enum (and enum64) type is searched, named or not: the first
 * enumerator called @name counts.
 *
 * Return: 0, or -ENOENT when no enum has an enumerator of that name.
 */
int btfgen_enum_value(const struct btf *btf, const char *name, long long *val)
{
	__u32 id, n = btf__type_cnt(btf);
	int i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (i = 0; i < btf_vlen(t); i++, e++) {
				if (strcmp(btf__name_by_offset(btf, e->name_off), name))
					continue;
				*val = btf_kflag(t) ? (long long)e->val :
						      (long long)(__u32)e->val;
				return 0;
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (i = 0; i < btf_vlen(t); i++, e++) {
				if (strcmp(btf__name_by_offset(btf, e->name_off), name))
					continue;
				*val = (long long)btf_enum64_value(e);
				return 0;
			}
		}
	}
	return -ENOENT;
}

/**
 * btfgen_type_str - spell a type the way btfgen_func args are written
 * @btf: BTF holding @id
 * @id: type id
 * @buf: output
 * @len: size of @buf
 *
 * Typedefs are kept by name ("u64"), qualifiers dropped, pointers end in
 * " *", structs are "struct NAME".  A forward declaration is spelled
 * "fwd NAME" so that callers can tell it from the real struct.
 *
 * Return: 0, or -EINVAL for a type this tool does not spell.
 */
int btfgen_type_str(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	char inner[200];

	while (t && btf_is_mod(t)) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		if (btfgen_type_str(btf, t->type, inner, sizeof(inner)))
			return -EINVAL;
		snprintf(buf, len, "%s *", inner);
		return 0;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		snprintf(buf, len, "%s %s", btf_is_struct(t) ? "struct" : "union",
			 btf__name_by_offset(btf, t->name_off));
		return 0;
	case BTF_KIND_FWD:
		snprintf(buf, len, "fwd %s", btf__name_by_offset(btf, t->name_off));
		return 0;
	case BTF_KIND_INT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(buf, len, "%s", btf__name_by_offset(btf, t->name_off));
		return 0;
	case BTF_KIND_FUNC_PROTO:
		snprintf(buf, len, "func");
		return 0;
	}
	return -EINVAL;
}

/**
 * btfgen_check_func - does a kernel function have the expected prototype?
 * @btf: the kernel's BTF
 * @f: the expectation
 * @why: set to a reason on mismatch
 * @len: size of @why
 *
 * Return: 0 on a match, -ENOENT when the function is not in BTF (inlined,
 * renamed or turned into a compiler clone), -EINVAL on another prototype.
 */
int btfgen_check_func(const struct btf *btf, const struct btfgen_func *f,
		      char *why, size_t len)
{
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	char got[200];
	int id, i;

	id = btf__find_by_name_kind(btf, f->name, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(why, len, "function %s is not in the kernel's BTF", f->name);
		return -ENOENT;
	}
	fn = btf__type_by_id(btf, id);
	proto = btf__type_by_id(btf, fn->type);
	if (!proto || !btf_is_func_proto(proto)) {
		snprintf(why, len, "%s has no prototype in BTF", f->name);
		return -EINVAL;
	}
	if (btf_vlen(proto) != f->nr_args) {
		snprintf(why, len, "%s takes %d arguments, expected %d", f->name,
			 btf_vlen(proto), f->nr_args);
		return -EINVAL;
	}
	p = btf_params(proto);
	for (i = 0; i < f->nr_args; i++, p++) {
		if (btfgen_type_str(btf, p->type, got, sizeof(got)) ||
		    strcmp(got, f->args[i])) {
			snprintf(why, len, "%s argument %d is '%s', expected '%s'",
				 f->name, i + 1, got, f->args[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * btfgen_check_module - check the module BTF's view of calc_cost
 * @mod: the module's split BTF (base: the kernel's)
 * @why: set to a reason on failure
 * @len: size of @why
 *
 * Return: 0 when struct iocost_model_ops exists and calc_cost's fourth
 * argument is a pointer to the real struct blkcg (not a forward
 * declaration, which the verifier would refuse to let a model read).
 */
int btfgen_check_module(const struct btf *mod, char *why, size_t len)
{
	const struct btf_type *ptr, *proto;
	const struct btf_param *p;
	__u32 id;
	long off;
	char got[200];
	int sid;

	sid = btf__find_by_name_kind(mod, "iocost_model_ops", BTF_KIND_STRUCT);
	if (sid < 0) {
		snprintf(why, len, "no struct iocost_model_ops in the module's BTF");
		return -ENOENT;
	}
	if (btfwalk_member(mod, sid, "calc_cost", &off, &id)) {
		snprintf(why, len, "struct iocost_model_ops has no calc_cost");
		return -ENOENT;
	}
	ptr = btfwalk_skip_mods(mod, &id);
	if (!ptr || !btf_is_ptr(ptr)) {
		snprintf(why, len, "calc_cost is not a function pointer");
		return -EINVAL;
	}
	id = ptr->type;
	proto = btfwalk_skip_mods(mod, &id);
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) != 5) {
		snprintf(why, len, "calc_cost does not take 5 arguments");
		return -EINVAL;
	}
	p = btf_params(proto) + 3;
	if (btfgen_type_str(mod, p->type, got, sizeof(got)) ||
	    strcmp(got, "struct blkcg *")) {
		snprintf(why, len,
			 "calc_cost's blkcg argument is '%s' in the module's BTF, not 'struct blkcg *': %s",
			 got,
			 "models could not read it: pahole left a forward declaration");
		return -EINVAL;
	}
	return 0;
}

/**
 * btfgen_field_offset - where a field is, its size checked
 * @btf: the kernel's BTF
 * @f: the field
 * @off: set to its byte offset on success
 * @size: set to its size in bytes when the member was found, else 0
 *
 * Return: 0, a negative error as btfwalk_member_offset(), or -EINVAL when
 * @f->size is set and the member has another size.
 */
int btfgen_field_offset(const struct btf *btf, const struct btfgen_field *f,
			long *off, long *size)
{
	int err = btfwalk_member_offset(btf, f->type, f->path, off);

	*size = 0;
	if (err)
		return err;
	*size = btfwalk_member_size(btf, f->type, f->path);
	if (f->size && *size != f->size)
		return -EINVAL;
	return 0;
}

/**
 * btfgen_emit - write the offsets header
 * @out: where to write
 * @btf: the kernel's BTF
 * @origin: printed in the header comment
 * @fields: offsets to derive
 * @nr_fields: number of @fields
 * @funcs: prototypes to check
 * @nr_funcs: number of @funcs
 * @enums: enumerator values to look up
 * @nr_enums: number of @enums
 *
 * Every field also gets IOCOST_SIZE_<macro>, its size in bytes (0 when
 * missing).
 * A missing enumerator is emitted as -1 (never required).  Optional
 * fields that are missing are emitted as -1 with a comment, so the
 * module can disable the feature with a log line.
 *
 * Return: 0, or -ENOENT when a required field or function is missing (a
 * message on stderr names it).
 */
int btfgen_emit(FILE *out, const struct btf *btf, const char *origin,
		const struct btfgen_field *fields, int nr_fields,
		const struct btfgen_func *funcs, int nr_funcs,
		const struct btfgen_enum *enums, int nr_enums)
{
	char why[512];
	int i, ret = 0;

	/* split so that the tag is not taken for this file's own */
	fprintf(out, "/* SPDX-%s: GPL-2.0 */\n", "License-Identifier");
	fprintf(out, "/* Generated by iocost-btfgen from %s: do not edit. */\n",
		origin);
	fprintf(out, "#ifndef _IOCOST_BTF_H\n#define _IOCOST_BTF_H\n\n");
	for (i = 0; i < nr_fields; i++) {
		const struct btfgen_field *f = &fields[i];
		long off, size;
		int err = btfgen_field_offset(btf, f, &off, &size);

		if (!err) {
			fprintf(out, "#define IOCOST_OFF_%s %ld /* %s.%s */\n",
				f->macro, off, f->type, f->path);
			fprintf(out, "#define IOCOST_SIZE_%s %ld\n", f->macro, size);
			continue;
		}
		if (err == -EINVAL && size > 0)
			snprintf(why, sizeof(why), "%ld bytes, expected %d",
				 size, f->size);
		else
			snprintf(why, sizeof(why), "missing");
		fprintf(out, "#define IOCOST_OFF_%s (-1) /* %s.%s: %s */\n",
			f->macro, f->type, f->path, why);
		fprintf(out, "#define IOCOST_SIZE_%s 0\n", f->macro);
		if (f->required) {
			fprintf(stderr,
				"iocost-btfgen: %s: struct %s member '%s': %s: this kernel is not supported\n",
				origin, f->type, f->path, why);
			ret = -ENOENT;
		}
	}
	fprintf(out, "\n");
	for (i = 0; i < nr_funcs; i++) {
		const struct btfgen_func *f = &funcs[i];
		int err = btfgen_check_func(btf, f, why, sizeof(why));

		fprintf(out, "#define IOCOST_HAVE_%s %d%s%s%s\n", f->macro,
			!err, err ? " /* " : "", err ? why : "", err ? " */" : "");
		if (err && f->required) {
			fprintf(stderr, "iocost-btfgen: %s: %s: this kernel is not supported%s%s\n",
				origin, why, err == -ENOENT && f->hint ? "; " : "",
				err == -ENOENT && f->hint ? f->hint : "");
			ret = -ENOENT;
		}
	}
	fprintf(out, "\n");
	for (i = 0; i < nr_enums; i++) {
		long long val;

		if (btfgen_enum_value(btf, enums[i].name, &val))
			fprintf(out, "#define IOCOST_ENUM_%s (-1) /* %s: missing */\n",
				enums[i].macro, enums[i].name);
		else
			fprintf(out, "#define IOCOST_ENUM_%s %lld /* %s */\n",
				enums[i].macro, val, enums[i].name);
	}
	fprintf(out, "\n#endif /* _IOCOST_BTF_H */\n");
	return ret;
}

#ifndef BTFGEN_NO_MAIN
#include <bpf/libbpf.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define CLONE_HINT \
	"pahole leaves compiler clones out of BTF; where GCC emitted only the IPA-SRA clone calc_vtime_cost_builtin.isra.N (Debian's 7.x kernels), the module hooks the clone and checks each call against its callers ioc_rqos_throttle() and ioc_rqos_merge(), which must then be in BTF with their prototypes, as must struct ioc_gq member pd.blkg"

/* what the module needs; keep in step with src/iocost_bpf.h */
static const struct btfgen_field fields[] = {
	{ "ST_MAP_MAP", "bpf_struct_ops_map", "map", true, 0 },
	{ "ST_MAP_KVALUE", "bpf_struct_ops_map", "kvalue", true, 0 },
	{ "ST_VALUE_DATA", "bpf_struct_ops_value", "data", true, 0 },
	{ "BLKCG_CSS", "blkcg", "css", true, 0 },
	{ "BLKG_BLKCG", "blkcg_gq", "blkcg", true, 8 },
	/* calling the model's program directly (hook.c): optional */
	{ "ST_MAP_LINKS", "bpf_struct_ops_map", "links", false, 8 },
	{ "ST_MAP_FUNCS_CNT", "bpf_struct_ops_map", "funcs_cnt", false, 4 },
	{ "PROG_AUX_PRIV_STACK", "bpf_prog_aux", "jits_use_priv_stack", false, 0 },
	/* the iocost_ioc_tick event (tick.c): optional, sizes checked */
#define IOCOST_TICK_FIELD(macro, type, path, size) { #macro, #type, #path, false, size },
#include "iocost_fields.h"
#undef IOCOST_TICK_FIELD
	/* device context for models, the builtin's price in shadow mode (devctx.c) */
	{ "IOCG_IOC", "ioc_gq", "ioc", false, 8 },
	{ "IOCG_CURSOR", "ioc_gq", "cursor", false, 8 },
	{ "IOC_LCOEFS", "ioc", "params.lcoefs", false, 0 },
	{ "IOC_I_LCOEFS", "ioc", "params.i_lcoefs", false, 0 },
	/* IPA-SRA clone kernels: iocg's blkg, checked against the bio's (clone.c) */
	{ "IOCG_PD_BLKG", "ioc_gq", "pd.blkg", false, 8 },
};

/* blk-iocost's indices into ioc->params.lcoefs[] and .i_lcoefs[] (devctx.c) */
static const struct btfgen_enum enums[] = {
	{ "LCOEF_RPAGE", "LCOEF_RPAGE" },
	{ "LCOEF_RSEQIO", "LCOEF_RSEQIO" },
	{ "LCOEF_RRANDIO", "LCOEF_RRANDIO" },
	{ "LCOEF_WPAGE", "LCOEF_WPAGE" },
	{ "LCOEF_WSEQIO", "LCOEF_WSEQIO" },
	{ "LCOEF_WRANDIO", "LCOEF_WRANDIO" },
	{ "NR_LCOEFS", "NR_LCOEFS" },
	{ "I_LCOEF_RBPS", "I_LCOEF_RBPS" },
	{ "I_LCOEF_RSEQIOPS", "I_LCOEF_RSEQIOPS" },
	{ "I_LCOEF_RRANDIOPS", "I_LCOEF_RRANDIOPS" },
	{ "I_LCOEF_WBPS", "I_LCOEF_WBPS" },
	{ "I_LCOEF_WSEQIOPS", "I_LCOEF_WSEQIOPS" },
	{ "I_LCOEF_WRANDIOPS", "I_LCOEF_WRANDIOPS" },
	{ "NR_I_LCOEFS", "NR_I_LCOEFS" },
};

static const struct btfgen_func funcs[] = {
	/* the pricing hook; without it, its IPA-SRA clone's callers (clone.c) */
	{ "CALC_VTIME_COST_BUILTIN", "calc_vtime_cost_builtin", 4,
	  { "struct bio *", "struct ioc_gq *", "bool", "u64 *" }, false, NULL },
	{ "IOC_RQOS_THROTTLE", "ioc_rqos_throttle", 2,
	  { "struct rq_qos *", "struct bio *" }, false, NULL },
	{ "IOC_RQOS_MERGE", "ioc_rqos_merge", 3,
	  { "struct rq_qos *", "struct request *", "struct bio *" }, false, NULL },
	/* the blkcg lifecycle callbacks (hook.c) */
	{ "BLKCG_CSS_ONLINE", "blkcg_css_online", 1,
	  { "struct cgroup_subsys_state *" }, true, NULL },
	{ "BLKCG_CSS_OFFLINE", "blkcg_css_offline", 1,
	  { "struct cgroup_subsys_state *" }, true, NULL },
	/* the iocost_ioc_tick event (tick.c) */
	{ "IOC_TIMER_FN", "ioc_timer_fn", 1, { "struct timer_list *" }, false, NULL },
};

static unsigned long long get_le(const unsigned char *p, int n)
{
	unsigned long long v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * elf_section - copy the named section of a little-endian ELF64 file (a
 * module) into a malloc()ed buffer; NULL if the file or the section is
 * missing or the file is malformed.  Headers are read by their offsets in
 * the ELF64 specification, every offset checked against the file size.
 */
static void *elf_section(const char *path, const char *name, size_t *size)
{
	unsigned long long shoff, off, len, stroff, strsize;
	unsigned int shentsize, shnum, shstrndx, i;
	unsigned char *f, *sh, *buf = NULL;
	long fsize;
	FILE *fp;

	fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fsize = fseek(fp, 0, SEEK_END) ? -1 : ftell(fp);
	if (fsize < 64 || fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return NULL;
	}
	f = malloc(fsize);
	if (!f || fread(f, 1, fsize, fp) != (size_t)fsize ||
	    memcmp(f, "\177ELF\2\1", 6))
		goto out;
	shoff = get_le(f + 0x28, 8);
	shentsize = get_le(f + 0x3a, 2);
	shnum = get_le(f + 0x3c, 2);
	shstrndx = get_le(f + 0x3e, 2);
	if (shentsize < 64 || shstrndx >= shnum ||
	    shoff + (unsigned long long)shnum * shentsize > (unsigned long)fsize)
		goto out;
	sh = f + shoff + (unsigned long long)shstrndx * shentsize;
	stroff = get_le(sh + 24, 8);
	strsize = get_le(sh + 32, 8);
	if (stroff + strsize > (unsigned long)fsize)
		goto out;
	for (i = 0; i < shnum; i++) {
		unsigned long long n;

		sh = f + shoff + (unsigned long long)i * shentsize;
		n = get_le(sh, 4);
		if (n >= strsize ||
		    strncmp((char *)f + stroff + n, name, strsize - n))
			continue;
		off = get_le(sh + 24, 8);
		len = get_le(sh + 32, 8);
		if (!len || off + len > (unsigned long)fsize)
			break;
		buf = malloc(len);
		if (buf) {
			memcpy(buf, f + off, len);
			*size = len;
		}
		break;
	}
out:
	free(f);
	fclose(fp);
	return buf;
}

/*
 * parse_module_btf - the module's BTF, split from the kernel's.  pahole
 * 1.28 and later write out-of-tree modules' BTF against a distilled base
 * (.BTF.base: the few base types the module uses, which the kernel
 * relocates to its own when it loads the module); libbpf < 1.5 cannot
 * parse such a file against vmlinux, so then the module's BTF is read
 * against its distilled base, which names the same types.  *dbase is set
 * to that base (to free after the module's BTF), or NULL.
 */
static struct btf *parse_module_btf(const char *path, struct btf *base,
				    struct btf **dbase)
{
	void *raw = NULL, *rawbase;
	libbpf_print_fn_t print;
	struct btf *mod;
	size_t size = 0, bsize = 0;

	*dbase = NULL;
	/* quiet: the failure is expected with a distilled base */
	print = libbpf_set_print(NULL);
	mod = btf__parse_split(path, base);
	libbpf_set_print(print);
	if (mod)
		return mod;
	rawbase = elf_section(path, ".BTF.base", &bsize);
	if (rawbase)
		raw = elf_section(path, ".BTF", &size);
	if (raw)
		*dbase = btf__new(rawbase, bsize);
	if (*dbase)
		mod = btf__new_split(raw, size, *dbase);
	if (!mod) {
		btf__free(*dbase);
		*dbase = NULL;
	}
	free(raw);
	free(rawbase);
	if (!mod)
		errno = EINVAL;
	return mod;
}

/* the entry named @macro in fields[], and below in funcs[] */
static const struct btfgen_field *field_of(const char *macro)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].macro, macro))
			return &fields[i];
	return NULL;
}

static const struct btfgen_func *func_of(const char *macro)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(funcs); i++)
		if (!strcmp(funcs[i].macro, macro))
			return &funcs[i];
	return NULL;
}

/*
 * The pricing hook needs calc_vtime_cost_builtin in BTF, or else (its
 * IPA-SRA clone, src/clone.c) both callers and ioc_gq.pd.blkg.
 */
static int check_hook(const struct btf *btf, const char *origin)
{
	static const char * const callers[] = { "IOC_RQOS_THROTTLE", "IOC_RQOS_MERGE" };
	const struct btfgen_field *blkg = field_of("IOCG_PD_BLKG");
	char why[512], clone[512];
	long off, size;
	size_t i;

	if (!btfgen_check_func(btf, func_of("CALC_VTIME_COST_BUILTIN"), why, sizeof(why)))
		return 0;
	for (i = 0; i < ARRAY_SIZE(callers); i++)
		if (btfgen_check_func(btf, func_of(callers[i]), clone, sizeof(clone)))
			goto refuse;
	if (!btfgen_field_offset(btf, blkg, &off, &size))
		return 0;
	snprintf(clone, sizeof(clone), "struct %s member '%s' is missing",
		 blkg->type, blkg->path);
refuse:
	fprintf(stderr, "iocost-btfgen: %s: %s, and %s: this kernel is not supported; %s\n",
		origin, why, clone, CLONE_HINT);
	return -ENOENT;
}

static int print_help(void)
{
	fprintf(stderr, "usage: iocost-btfgen VMLINUX > iocost_btf.h\n"
			"       iocost-btfgen --check-module MODULE.ko VMLINUX\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct btf *base, *mod, *dbase;
	char why[512];
	int err;

	if (argc == 4 && !strcmp(argv[1], "--check-module")) {
		base = btf__parse(argv[3], NULL);
		if (!base) {
			fprintf(stderr, "iocost-btfgen: %s: no BTF: %s\n", argv[3],
				strerror(errno));
			return 1;
		}
		mod = parse_module_btf(argv[2], base, &dbase);
		if (!mod) {
			fprintf(stderr, "iocost-btfgen: %s: no BTF (%s?): %s\n",
				argv[2], "no CONFIG_DEBUG_INFO_BTF_MODULES or no pahole",
				strerror(errno));
			return 1;
		}
		err = btfgen_check_module(mod, why, sizeof(why));
		if (err)
			fprintf(stderr, "iocost-btfgen: %s: %s\n", argv[2], why);
		btf__free(mod);
		btf__free(dbase);
		btf__free(base);
		return err ? 1 : 0;
	}
	if (argc != 2 || argv[1][0] == '-')
		return print_help();

	base = btf__parse(argv[1], NULL);
	if (!base) {
		fprintf(stderr, "iocost-btfgen: %s: no BTF: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	err = btfgen_emit(stdout, base, argv[1], fields, ARRAY_SIZE(fields),
			  funcs, ARRAY_SIZE(funcs), enums, ARRAY_SIZE(enums));
	if (!err)
		err = check_hook(base, argv[1]);
	btf__free(base);
	return err ? 1 : 0;
}
#endif
