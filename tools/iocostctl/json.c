// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a small JSON writer for iocostctl (see json.h)
 *
 * Every value first writes the comma its place needs: none after '{', '['
 * or a member's name, one before each later member or element.  Strings
 * escape the double quote, the backslash, the control characters and DEL
 * (newline, tab and carriage return by their letters, the others as
 * u00XX); other bytes (UTF-8 included) are written as they are.
 */
#include <math.h>
#include "json.h"

void jsonw_init(struct json_writer *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->nonempty = 0;
	w->named = 0;
}

/* the comma before a value, unless it is its level's first or a member's */
static void jsonw_sep(struct json_writer *w)
{
	unsigned int bit = 1U << w->depth;

	if (w->named)
		w->named = 0;
	else if (w->nonempty & bit)
		fputc(',', w->f);
	w->nonempty |= bit;
}

static void jsonw_open(struct json_writer *w, char c)
{
	jsonw_sep(w);
	fputc(c, w->f);
	if (w->depth + 1 < JSONW_MAX_DEPTH) {
		w->depth++;
		w->nonempty &= ~(1U << w->depth);
	}
}

static void jsonw_close(struct json_writer *w, char c)
{
	w->nonempty &= ~(1U << w->depth);
	if (w->depth)
		w->depth--;
	fputc(c, w->f);
}

void jsonw_start_object(struct json_writer *w)
{
	jsonw_open(w, '{');
}

void jsonw_end_object(struct json_writer *w)
{
	jsonw_close(w, '}');
}

void jsonw_start_array(struct json_writer *w)
{
	jsonw_open(w, '[');
}

void jsonw_end_array(struct json_writer *w)
{
	jsonw_close(w, ']');
}

static void jsonw_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void jsonw_name(struct json_writer *w, const char *name)
{
	jsonw_sep(w);
	jsonw_quoted(w->f, name);
	fputc(':', w->f);
	w->named = 1;
}

void jsonw_string(struct json_writer *w, const char *s)
{
	jsonw_sep(w);
	jsonw_quoted(w->f, s);
}

void jsonw_uint(struct json_writer *w, unsigned long long v)
{
	jsonw_sep(w);
	fprintf(w->f, "%llu", v);
}

void jsonw_int(struct json_writer *w, long long v)
{
	jsonw_sep(w);
	fprintf(w->f, "%lld", v);
}

void jsonw_float(struct json_writer *w, int prec, double v)
{
	if (!isfinite(v)) {
		jsonw_null(w);
		return;
	}
	jsonw_sep(w);
	fprintf(w->f, "%.*f", prec, v);
}

void jsonw_bool(struct json_writer *w, bool v)
{
	jsonw_sep(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct json_writer *w)
{
	jsonw_sep(w);
	fputs("null", w->f);
}

void jsonw_string_field(struct json_writer *w, const char *name,
			const char *s)
{
	jsonw_name(w, name);
	jsonw_string(w, s);
}

void jsonw_uint_field(struct json_writer *w, const char *name,
		      unsigned long long v)
{
	jsonw_name(w, name);
	jsonw_uint(w, v);
}

void jsonw_int_field(struct json_writer *w, const char *name, long long v)
{
	jsonw_name(w, name);
	jsonw_int(w, v);
}

void jsonw_float_field(struct json_writer *w, const char *name, int prec,
		       double v)
{
	jsonw_name(w, name);
	jsonw_float(w, prec, v);
}

void jsonw_bool_field(struct json_writer *w, const char *name, bool v)
{
	jsonw_name(w, name);
	jsonw_bool(w, v);
}

void jsonw_null_field(struct json_writer *w, const char *name)
{
	jsonw_name(w, name);
	jsonw_null(w);
}
