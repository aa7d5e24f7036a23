// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of src/btfgen.c and src/btfwalk.c on BTF built here with
 * libbpf: offsets through nested and anonymous members, by name and by
 * type id, missing types and fields, prototype checks, the
 * forward-declaration check of the module BTF, and the generated header.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "../../src/btfgen.h"
#include "../../src/btfwalk.h"

struct fixture {
	int u64_t, bool_t, bio, ioc_gq, blkcg, css;
};

static struct btf *make_base(struct fixture *f)
{
	struct btf *btf = btf__new_empty();
	int ull, uni, anon, pbio, pgq, pu64, proto, cg, pcg, b;

	ull = btf__add_int(btf, "unsigned long long", 8, 0);
	f->u64_t = btf__add_typedef(btf, "u64", ull);
	b = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	f->bool_t = btf__add_typedef(btf, "bool", b);

	cg = btf__add_struct(btf, "cgroup", 8);
	btf__add_field(btf, "id", f->u64_t, 0, 0);

	/* struct cgroup_subsys_state { struct cgroup *cgroup; u64 x; } */
	pcg = btf__add_ptr(btf, cg);	/* types first: fields go to the last type */
	f->css = btf__add_struct(btf, "cgroup_subsys_state", 16);
	btf__add_field(btf, "cgroup", pcg, 0, 0);
	btf__add_field(btf, "x", f->u64_t, 64, 0);

	/* struct blkcg { u64 pad; struct css css; union { u64 a; u64 b; }; u64 bits:3; } */
	uni = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "a", f->u64_t, 0, 0);
	btf__add_field(btf, "b", f->u64_t, 0, 0);
	anon = uni;
	f->blkcg = btf__add_struct(btf, "blkcg", 40);
	btf__add_field(btf, "pad", f->u64_t, 0, 0);
	btf__add_field(btf, "css", f->css, 64, 0);
	btf__add_field(btf, NULL, anon, 192, 0);
	btf__add_field(btf, "bits", f->u64_t, 256, 3);

	/* enum { LCOEF_A, LCOEF_B, NR_LCOEFS }, anonymous as blk-iocost's */
	btf__add_enum(btf, NULL, 4);
	btf__add_enum_value(btf, "LCOEF_A", 0);
	btf__add_enum_value(btf, "LCOEF_B", 1);
	btf__add_enum_value(btf, "NR_LCOEFS", 2);

	f->bio = btf__add_struct(btf, "bio", 8);
	btf__add_field(btf, "x", f->u64_t, 0, 0);
	f->ioc_gq = btf__add_struct(btf, "ioc_gq", 8);
	btf__add_field(btf, "x", f->u64_t, 0, 0);

	pbio = btf__add_ptr(btf, f->bio);
	pgq = btf__add_ptr(btf, f->ioc_gq);
	pu64 = btf__add_ptr(btf, f->u64_t);
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "bio", pbio);
	btf__add_func_param(btf, "iocg", pgq);
	btf__add_func_param(btf, "is_merge", f->bool_t);
	btf__add_func_param(btf, "costp", pu64);
	btf__add_func(btf, "calc_vtime_cost_builtin", BTF_FUNC_STATIC, proto);
	return btf;
}

/* a module BTF whose calc_cost's 4th argument points at @blkcg_id */
static struct btf *make_mod(struct btf *base, const struct fixture *f,
			    int fwd)
{
	struct btf *mod = btf__new_empty_split(base);
	int target, proto, pf, st, pb;

	target = fwd ? btf__add_fwd(mod, "blkcg", BTF_FWD_STRUCT) : f->blkcg;
	pb = btf__add_ptr(mod, target);
	proto = btf__add_func_proto(mod, f->u64_t);
	btf__add_func_param(mod, "opf", f->u64_t);
	btf__add_func_param(mod, "nbytes", f->u64_t);
	btf__add_func_param(mod, "sector", f->u64_t);
	btf__add_func_param(mod, "blkcg", pb);
	btf__add_func_param(mod, "model_flags", f->u64_t);
	pf = btf__add_ptr(mod, proto);
	st = btf__add_struct(mod, "iocost_model_ops", 8);
	btf__add_field(mod, "calc_cost", pf, 0, 0);
	(void)st;
	return mod;
}

int main(void)
{
	struct fixture f;
	struct btf *base = make_base(&f), *mod;
	char why[512], *out = NULL;
	size_t outlen = 0;
	FILE *mem;
	long off;
	int ret;

	ok(!btfwalk_member_offset(base, "blkcg", "css", &off) && off == 8,
	   "blkcg.css at 8 (got %ld)", off);
	ok(!btfwalk_member_offset(base, "blkcg", "css.cgroup", &off) && off == 8,
	   "nested path blkcg.css.cgroup at 8");
	ok(!btfwalk_member_offset(base, "blkcg", "css.x", &off) && off == 16,
	   "nested path blkcg.css.x at 16");
	ok(!btfwalk_member_offset(base, "blkcg", "b", &off) && off == 24,
	   "member of an anonymous union found at 24");
	ok(btfwalk_member_offset(base, "blkcg", "nope", &off) == -ENOENT,
	   "missing member is -ENOENT");
	ok(btfwalk_member_offset(base, "nope", "css", &off) == -ENOENT,
	   "missing struct is -ENOENT");
	ok(btfwalk_member_offset(base, "blkcg", "pad.x", &off) == -EINVAL,
	   "path through a scalar is -EINVAL");
	ok(btfwalk_member_offset(base, "blkcg", "bits", &off) == -EINVAL,
	   "bitfield is -EINVAL");
	ok(btfwalk_member_size(base, "blkcg", "css") == 16, "blkcg.css is 16 bytes");
	ok(btfwalk_member_size(base, "blkcg", "css.cgroup") == 8,
	   "a pointer member is 8 bytes");
	ok(btfwalk_member_size(base, "blkcg", "nope") == -ENOENT,
	   "size of a missing member is -ENOENT");
	ok(!btfwalk_member_offset_id(base, f.blkcg, "css.x", &off) && off == 16,
	   "by type id: blkcg.css.x at 16");
	ok(!btfwalk_member_offset_id(base, f.blkcg, "a", &off) && off == 24,
	   "by type id: a member of an anonymous union at 24");
	ok(!btfwalk_member_offset_id(base, f.css, "x", &off) && off == 8,
	   "by type id: cgroup_subsys_state.x at 8");
	ok(btfwalk_member_offset_id(base, f.css, "nope", &off) == -ENOENT,
	   "by type id: a missing member is -ENOENT");
	ok(btfwalk_member_offset_id(base, f.u64_t, "x", &off) == -EINVAL,
	   "by type id: a scalar has no members, -EINVAL");

	{
		const struct btfgen_field sized = { "X", "blkcg", "css.x", false, 8 };
		const struct btfgen_field resized = { "X", "blkcg", "css", false, 8 };
		const struct btfgen_field any = { "X", "blkcg", "css", false, 0 };
		const struct btfgen_field gone = { "X", "blkcg", "nope", false, 8 };
		long size;

		ok(!btfgen_field_offset(base, &sized, &off, &size) && off == 16 &&
		   size == 8, "a field of the expected size: offset and size");
		ok(btfgen_field_offset(base, &resized, &off, &size) == -EINVAL &&
		   size == 16, "a field of another size is -EINVAL, its size given");
		ok(!btfgen_field_offset(base, &any, &off, &size) && size == 16,
		   "a field of any size: its size given");
		ok(btfgen_field_offset(base, &gone, &off, &size) == -ENOENT &&
		   size == 0, "a missing field is -ENOENT, size 0");
	}

	{
		struct btfgen_func good = { "X", "calc_vtime_cost_builtin", 4,
			{ "struct bio *", "struct ioc_gq *", "bool", "u64 *" }, true, NULL };
		struct btfgen_func three = good, other = good, gone = good;

		ok(!btfgen_check_func(base, &good, why, sizeof(why)),
		   "prototype of calc_vtime_cost_builtin matches");
		three.nr_args = 3;
		ok(btfgen_check_func(base, &three, why, sizeof(why)) == -EINVAL &&
		   strstr(why, "takes 4 arguments"), "argument count mismatch: %s", why);
		other.args[1] = "struct ioc *";
		ok(btfgen_check_func(base, &other, why, sizeof(why)) == -EINVAL &&
		   strstr(why, "argument 2"), "argument type mismatch: %s", why);
		gone.name = "calc_vtime_cost";
		ok(btfgen_check_func(base, &gone, why, sizeof(why)) == -ENOENT,
		   "missing function (inlined or an .isra clone) is -ENOENT");
	}

	mod = make_mod(base, &f, 0);
	ok(!btfgen_check_module(mod, why, sizeof(why)),
	   "module BTF with the real struct blkcg passes");
	btf__free(mod);
	mod = make_mod(base, &f, 1);
	ret = btfgen_check_module(mod, why, sizeof(why));
	ok(ret == -EINVAL && strstr(why, "fwd blkcg"),
	   "module BTF with a forward-declared blkcg fails: %s", why);
	btf__free(mod);

	{
		const struct btfgen_field fields[] = {
			{ "CSS", "blkcg", "css", true, 0 },
			{ "OPT", "blkcg", "missing", false, 0 },
			{ "SIZED", "blkcg", "css.x", false, 8 },
			{ "RESIZED", "blkcg", "css", false, 8 },
		};
		const struct btfgen_field req[] = {
			{ "REQ", "blkcg", "missing", true, 0 },
		};
		const struct btfgen_func funcs[] = {
			{ "BUILTIN", "calc_vtime_cost_builtin", 4,
			  { "struct bio *", "struct ioc_gq *", "bool", "u64 *" }, true, NULL },
		};

		const struct btfgen_enum enums[] = {
			{ "B", "LCOEF_B" },
			{ "NR", "NR_LCOEFS" },
			{ "GONE", "LCOEF_GONE" },
		};

		mem = open_memstream(&out, &outlen);
		ret = btfgen_emit(mem, base, "test", fields, 4, funcs, 1, enums, 3);
		fclose(mem);
		ok(ret == 0, "header with an optional field missing is generated");
		ok(strstr(out, "#define IOCOST_OFF_SIZED 16 "),
		   "a field of the expected size is emitted");
		ok(strstr(out,
			  "#define IOCOST_OFF_RESIZED (-1) /* blkcg.css: 16 bytes, expected 8 */"),
		   "a field whose size changed counts as missing, with the reason");
		ok(strstr(out, "#define IOCOST_OFF_CSS 8 "), "IOCOST_OFF_CSS 8 emitted");
		ok(strstr(out, "#define IOCOST_OFF_OPT (-1)"), "missing optional field is -1");
		ok(strstr(out, "#define IOCOST_HAVE_BUILTIN 1"), "function found is 1");
		ok(strstr(out, "#define IOCOST_SIZE_CSS 16\n"), "a found field has its size");
		ok(strstr(out, "#define IOCOST_SIZE_OPT 0\n"), "a missing field has size 0");
		ok(strstr(out, "#define IOCOST_ENUM_B 1 /* LCOEF_B */"),
		   "an enumerator of an anonymous enum is found");
		ok(strstr(out, "#define IOCOST_ENUM_NR 2 /* NR_LCOEFS */"),
		   "the enum's last enumerator is found");
		ok(strstr(out, "#define IOCOST_ENUM_GONE (-1) /* LCOEF_GONE: missing */"),
		   "a missing enumerator is -1");
		free(out);

		mem = open_memstream(&out, &outlen);
		ret = btfgen_emit(mem, base, "test", req, 1, NULL, 0, NULL, 0);
		fclose(mem);
		ok(ret == -ENOENT, "missing required field fails the generation");
		free(out);
	}
	btf__free(base);
	return tap_done();
}
