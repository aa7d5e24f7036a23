// SPDX-License-Identifier: GPL-2.0
/*
 * model_load.c - register the iocost_model_ops maps of a BPF object
 * (see model_load.h)
 *
 * Owns what registering a model means in user space: which maps are
 * models (struct_ops maps of type iocost_model_ops), the layout check
 * against include/iocost_model.h (the name member's offset, read from
 * the object's BTF by src/btfwalk.c), the name override, the link that
 * keeps a model registered, and where it is pinned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include "model_load.h"
#include "../../src/btfwalk.h"

/* the struct_ops type of @map, or "" */
static const char *struct_ops_type(const struct btf *btf,
				   const struct bpf_map *map)
{
	const struct btf_type *t;

	if (!btf || bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
		return "";
	t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
	if (!t)
		return "";
	return btf__name_by_offset(btf, t->name_off) ?: "";
}

int model_find(struct bpf_object *obj, struct model_map *m, int max)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	int n = 0;

	bpf_object__for_each_map(map, obj) {
		if (strcmp(struct_ops_type(btf, map), IOCOST_MODEL_TYPE))
			continue;
		if (n == max)
			return -E2BIG;
		memset(&m[n], 0, sizeof(m[n]));
		m[n++].map = map;
	}
	return n;
}

int model_ops(struct bpf_object *obj, struct model_map *m)
{
	const struct btf *btf = bpf_object__btf(obj);
	size_t size = 0;
	long off;

	m->ops = bpf_map__initial_value(m->map, &size);
	if (!m->ops || size < sizeof(*m->ops) || !btf ||
	    btfwalk_member_offset_id(btf, bpf_map__btf_value_type_id(m->map),
				     "name", &off) ||
	    off != (long)offsetof(struct iocost_model_ops, name))
		return -EINVAL;
	return 0;
}

int model_want_link(struct model_map *m)
{
	u32 flags = bpf_map__map_flags(m->map);

	if (flags & BPF_F_LINK)
		return 0;
	return bpf_map__set_map_flags(m->map, flags | BPF_F_LINK);
}

void model_set_name(struct model_map *m, const char *name)
{
	size_t n = strlen(name);

	memset(m->ops->name, 0, sizeof(m->ops->name));
	memcpy(m->ops->name, name,
	       n < sizeof(m->ops->name) ? n : sizeof(m->ops->name));
}

int model_pin_path(const struct model_map *m, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%.*s", IOCOST_PIN_DIR,
			 (int)sizeof(m->ops->name), m->ops->name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int model_pin_dir(void)
{
	if (mkdir(IOCOST_PIN_DIR, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int model_register(struct model_map *m)
{
	m->link = bpf_map__attach_struct_ops(m->map);
	return m->link ? 0 : -errno;
}

int model_pin(struct model_map *m, const char *path)
{
	return bpf_link__pin(m->link, path);
}

void model_release(struct model_map *m)
{
	bpf_link__disconnect(m->link);
	bpf_link__destroy(m->link);
	m->link = NULL;
}

void model_unregister(struct model_map *m)
{
	if (!m->link)
		return;
	if (bpf_link__pin_path(m->link))
		bpf_link__unpin(m->link);
	bpf_link__destroy(m->link);
	m->link = NULL;
}

int model_foreground(struct model_map *m, int n, const char *ready)
{
	sigset_t set;
	int i, sig, err;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		err = -errno;
	} else {
		fputs(ready, stdout);
		fflush(stdout);
		err = -sigwait(&set, &sig);
	}
	for (i = 0; i < n; i++)
		model_unregister(&m[i]);
	return err;
}
