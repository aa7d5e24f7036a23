/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_load.h - register the iocost_model_ops maps of a BPF object
 *
 * The one path by which user space registers a cost model: the per-model
 * skeleton loaders (bpf/loader.c, with the skeleton's object) and
 * iocostctl load (tools/iocostctl/load.c, with any object file) both find
 * the model's iocost_model_ops struct_ops map, check it against
 * include/iocost_model.h, rename it, register it and pin its link under
 * IOCOST_PIN_DIR (or hold it in the foreground).  Messages are the
 * callers': every function returns 0 or a negative errno.
 */
#ifndef _IOCOST_MODEL_LOAD_H
#define _IOCOST_MODEL_LOAD_H

#include <stddef.h>
#include <bpf/libbpf.h>
#include "../../src/parse.h"	/* u32, u64; include/iocost_model.h */

/* where a registered model's struct_ops link is pinned: IOCOST_PIN_DIR/NAME */
#define IOCOST_PIN_DIR		"/sys/fs/bpf/iocost_bpf"

/* the struct_ops type of a model */
#define IOCOST_MODEL_TYPE	"iocost_model_ops"

struct model_map {
	struct bpf_map *map;		/* an iocost_model_ops struct_ops map */
	struct iocost_model_ops *ops;	/* its initial value: the model */
	struct bpf_link *link;		/* once registered */
};

/*
 * The iocost_model_ops maps of @obj (opened, not loaded) into @m (room
 * for @max, zeroed but for .map): their number, or -E2BIG for more.
 */
int model_find(struct bpf_object *obj, struct model_map *m, int max);

/*
 * Point @m->ops at the model (the initial value of its map, of @obj) and
 * check, by the object's BTF, that it is the struct of
 * include/iocost_model.h: 0 or -EINVAL.
 */
int model_ops(struct bpf_object *obj, struct model_map *m);

/*
 * Ask libbpf for a link for @m (libbpf 1.4 makes one by itself only for
 * maps in .struct_ops.link): a link is what a pin keeps registered.
 */
int model_want_link(struct model_map *m);

/*
 * Register @m under @name instead of its own: at most
 * IOCOST_MODEL_NAME_LEN bytes are copied, so a name that long arrives
 * unterminated (the module refuses it).  Before the object is loaded.
 */
void model_set_name(struct model_map *m, const char *name);

/* IOCOST_PIN_DIR/NAME of the model's name, in @buf: 0 or -ENAMETOOLONG */
int model_pin_path(const struct model_map *m, char *buf, size_t size);

/* create IOCOST_PIN_DIR (bpffs must be mounted): 0 if it is there */
int model_pin_dir(void);

/* register @m (its object loaded): attach its struct_ops, set @m->link */
int model_register(struct model_map *m);

/* pin @m's link at @path: the pin keeps the model registered */
int model_pin(struct model_map *m, const char *path);

/* let go of a pinned link: the model stays registered through the pin */
void model_release(struct model_map *m);

/* undo model_register() and model_pin(): the model is unregistered */
void model_unregister(struct model_map *m);

/*
 * Keep the @n models of @m registered in the foreground: print @ready on
 * stdout once SIGINT and SIGTERM are blocked, wait for one of them, then
 * unregister the models.  0 or a negative errno.
 */
int model_foreground(struct model_map *m, int n, const char *ready);

#endif /* _IOCOST_MODEL_LOAD_H */
