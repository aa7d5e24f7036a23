/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small JSON writer for iocostctl, in the spirit of bpftool's
 * json_writer
 *
 * It owns the syntax of iocostctl's JSON: the commas between members and
 * elements, the quotes and escapes of strings, and how numbers, booleans
 * and null are spelt.  The output is compact (no blanks, no newlines); a
 * caller ends a top-level value with its own newline.  A member is a name
 * (jsonw_name()) then one value, or one of the *_field() shorthands.
 *
 * The writer holds no buffer: it writes to its FILE as it goes, and the
 * caller checks the FILE (ferror(), fflush()) as for any other output.
 */
#ifndef _IOCOSTCTL_JSON_H
#define _IOCOSTCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH	16	/* nested objects and arrays */

struct json_writer {
	FILE *f;
	unsigned int depth;		/* open objects and arrays */
	unsigned int nonempty;		/* bit d: level d has a value */
	unsigned int named;		/* a name waits for its value */
};

void jsonw_init(struct json_writer *w, FILE *f);

void jsonw_start_object(struct json_writer *w);
void jsonw_end_object(struct json_writer *w);
void jsonw_start_array(struct json_writer *w);
void jsonw_end_array(struct json_writer *w);

/* the name of the next member of the open object */
void jsonw_name(struct json_writer *w, const char *name);

void jsonw_string(struct json_writer *w, const char *s);
void jsonw_uint(struct json_writer *w, unsigned long long v);
void jsonw_int(struct json_writer *w, long long v);
/* @v with @prec decimals ("%.*f"); null if it is not finite */
void jsonw_float(struct json_writer *w, int prec, double v);
void jsonw_bool(struct json_writer *w, bool v);
void jsonw_null(struct json_writer *w);

void jsonw_string_field(struct json_writer *w, const char *name,
			const char *s);
void jsonw_uint_field(struct json_writer *w, const char *name,
		      unsigned long long v);
void jsonw_int_field(struct json_writer *w, const char *name, long long v);
void jsonw_float_field(struct json_writer *w, const char *name, int prec,
		       double v);
void jsonw_bool_field(struct json_writer *w, const char *name, bool v);
void jsonw_null_field(struct json_writer *w, const char *name);

#endif /* _IOCOSTCTL_JSON_H */
