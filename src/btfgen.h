/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btfgen.h - derive private kernel struct offsets from a kernel's BTF
 */
#ifndef _IOCOST_BTFGEN_H
#define _IOCOST_BTFGEN_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/btf.h>

/**
 * struct btfgen_field - one offset the module needs
 * @macro: name of the generated macro (IOCOST_OFF_<macro>)
 * @type: struct name in the kernel's BTF
 * @path: member path, dot-separated (anonymous members are searched)
 * @required: a missing field fails the build instead of disabling a feature
 * @size: expected size of the member in bytes (0: any); another size counts
 *	as missing, so the module never reads a field whose type changed
 */
struct btfgen_field {
	const char *macro;
	const char *type;
	const char *path;
	bool required;
	int size;
};

/**
 * struct btfgen_func - one function whose prototype the module relies on
 * @macro: IOCOST_HAVE_<macro> is 1 when the function matches
 * @name: function name in BTF
 * @nr_args: expected argument count
 * @args: expected argument types in the form btfgen_type_str() prints
 * @required: a mismatch fails the build
 * @hint: printed after the refusal when a required function is missing
 */
struct btfgen_func {
	const char *macro;
	const char *name;
	int nr_args;
	const char *args[6];
	bool required;
	const char *hint;
};

/**
 * struct btfgen_enum - one enumerator whose value the module needs
 * @macro: name of the generated macro (IOCOST_ENUM_<macro>)
 * @name: the enumerator, searched in every enum of the BTF (blk-iocost's
 *	are anonymous)
 */
struct btfgen_enum {
	const char *macro;
	const char *name;
};

int btfgen_enum_value(const struct btf *btf, const char *name, long long *val);
int btfgen_field_offset(const struct btf *btf, const struct btfgen_field *f,
			long *off, long *size);
int btfgen_type_str(const struct btf *btf, __u32 id, char *buf, size_t len);
int btfgen_check_func(const struct btf *btf, const struct btfgen_func *f,
		      char *why, size_t len);
int btfgen_check_module(const struct btf *mod, char *why, size_t len);
int btfgen_emit(FILE *out, const struct btf *btf, const char *origin,
		const struct btfgen_field *fields, int nr_fields,
		const struct btfgen_func *funcs, int nr_funcs,
		const struct btfgen_enum *enums, int nr_enums);

#endif /* _IOCOST_BTFGEN_H */
