/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btfwalk.h - member offsets and sizes from BTF, for user-space tools
 *
 * Shared by iocost-btfgen (src/btfgen.c) and iocostctl: one walker of
 * member paths through nested and anonymous structs and unions.
 */
#ifndef _IOCOST_BTFWALK_H
#define _IOCOST_BTFWALK_H

#include <bpf/btf.h>

const struct btf_type *btfwalk_skip_mods(const struct btf *btf, __u32 *id);
int btfwalk_member(const struct btf *btf, __u32 type_id, const char *path,
		   long *off, __u32 *member_id);
int btfwalk_member_offset_id(const struct btf *btf, __u32 type_id,
			     const char *path, long *off);
int btfwalk_member_offset(const struct btf *btf, const char *type,
			  const char *path, long *off);
long btfwalk_member_size(const struct btf *btf, const char *type,
			 const char *path);

#endif /* _IOCOST_BTFWALK_H */
