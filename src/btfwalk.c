// SPDX-License-Identifier: GPL-2.0
/*
 * btfwalk.c - member offsets and sizes from BTF, for user-space tools
 *
 * A member path is dot-separated ("rqos.disk"); each name is searched in
 * the struct or union reached so far and, when not there, in its
 * anonymous members, as C lets a program name them.  Typedefs and
 * qualifiers are looked through.  Used by iocost-btfgen on the kernel's
 * BTF and by iocostctl on a BPF object's own.
 */
#include <errno.h>
#include <string.h>
#include "btfwalk.h"

/**
 * btfwalk_skip_mods - look through typedefs and qualifiers
 * @btf: BTF holding *@id
 * @id: a type id; set to the id of the type it names
 *
 * Return: the type *@id ends at, or NULL for an invalid id.
 */
const struct btf_type *btfwalk_skip_mods(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/* search @t (a struct or union) for member @name, descending anonymous ones */
static int find_member(const struct btf *btf, const struct btf_type *t,
		       const char *name, long *off, __u32 *type_id)
{
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		long moff = btf_member_bit_offset(t, i);

		if (mname && !strcmp(mname, name)) {
			if (moff % 8 || btf_member_bitfield_size(t, i))
				return -EINVAL;	/* bitfields have no address */
			*off = moff / 8;
			*type_id = m->type;
			return 0;
		}
		if (!mname || !*mname) {
			__u32 sub_id = m->type;
			const struct btf_type *sub = btfwalk_skip_mods(btf, &sub_id);
			long sub_off;

			if (sub && btf_is_composite(sub) &&
			    !find_member(btf, sub, name, &sub_off, type_id)) {
				*off = moff / 8 + sub_off;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/**
 * btfwalk_member - offset and type of a member path
 * @btf: BTF holding @type_id
 * @type_id: the struct or union the path starts in (or a typedef of one)
 * @path: dot-separated member path, e.g. "kvalue.data"
 * @off: set to the member's byte offset on success
 * @member_id: set to the member's type id on success
 *
 * Return: 0, -ENOENT when a member is missing, -EINVAL when the path goes
 * through a non-composite member, ends at a bitfield or is too long.
 */
int btfwalk_member(const struct btf *btf, __u32 type_id, const char *path,
		   long *off, __u32 *member_id)
{
	char buf[256], *name, *save = NULL;
	const struct btf_type *t;
	__u32 id = type_id;
	long total = 0;

	if (strlen(path) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, path, strlen(path) + 1);

	for (name = strtok_r(buf, ".", &save); name;
	     name = strtok_r(NULL, ".", &save)) {
		long moff;
		int err;

		t = btfwalk_skip_mods(btf, &id);
		if (!t || !btf_is_composite(t))
			return -EINVAL;
		err = find_member(btf, t, name, &moff, &id);
		if (err)
			return err;
		total += moff;
	}
	*off = total;
	*member_id = id;
	return 0;
}

/**
 * btfwalk_member_offset_id - byte offset of a member path, by type id
 * @btf: BTF holding @type_id
 * @type_id: the struct or union the path starts in (or a typedef of one)
 * @path: dot-separated member path
 * @off: set to the byte offset on success
 *
 * Return: 0, or a negative error as btfwalk_member().
 */
int btfwalk_member_offset_id(const struct btf *btf, __u32 type_id,
			     const char *path, long *off)
{
	__u32 id;

	return btfwalk_member(btf, type_id, path, off, &id);
}

/* the struct, else the union, called @type */
static int find_composite(const struct btf *btf, const char *type, __u32 *id)
{
	int sid;

	sid = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (sid < 0)
		sid = btf__find_by_name_kind(btf, type, BTF_KIND_UNION);
	if (sid < 0)
		return -ENOENT;
	*id = sid;
	return 0;
}

/**
 * btfwalk_member_offset - byte offset of a member path inside a struct
 * @btf: BTF to search, e.g. the kernel's
 * @type: struct (or union) name
 * @path: dot-separated member path, e.g. "kvalue.data"
 * @off: set to the byte offset on success
 *
 * Return: 0, -ENOENT when the type or a member is missing, -EINVAL when
 * the path goes through a non-composite member or ends at a bitfield.
 */
int btfwalk_member_offset(const struct btf *btf, const char *type,
			  const char *path, long *off)
{
	__u32 id;
	int err = find_composite(btf, type, &id);

	return err ? err : btfwalk_member_offset_id(btf, id, path, off);
}

/**
 * btfwalk_member_size - byte size of the member a path ends at
 * @btf: BTF to search
 * @type: struct (or union) name
 * @path: dot-separated member path
 *
 * Return: the size, or a negative error as btfwalk_member_offset().
 */
long btfwalk_member_size(const struct btf *btf, const char *type,
			 const char *path)
{
	long off;
	__u32 id;
	int err = find_composite(btf, type, &id);

	if (!err)
		err = btfwalk_member(btf, id, path, &off, &id);
	if (err)
		return err;
	return btf__resolve_size(btf, id);
}
