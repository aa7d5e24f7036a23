// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/iocostctl/json.c, the JSON writer of status --json
 * and top --json: commas between members and elements at every depth,
 * empty objects and arrays, each kind of value and its spelling, string
 * escapes, and what a non-finite number becomes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "../../tools/iocostctl/json.h"

static char *buf, *last;
static size_t size;
static FILE *out;

static struct json_writer *start(struct json_writer *w)
{
	buf = NULL;
	size = 0;
	out = open_memstream(&buf, &size);
	jsonw_init(w, out);
	return w;
}

/* what @w wrote since start() (valid until the next start()) */
static const char *text(void)
{
	fclose(out);
	free(last);
	last = buf;
	return buf;
}

static void test_values(void)
{
	struct json_writer w;
	const char *t;

	jsonw_string(start(&w), "vda");
	ok(!strcmp(t = text(), "\"vda\""), "a plain string: %s", t);
	jsonw_uint(start(&w), 18446744073709551615ULL);
	ok(!strcmp(t = text(), "18446744073709551615"), "the largest uint: %s", t);
	jsonw_int(start(&w), -2147483648LL);
	ok(!strcmp(t = text(), "-2147483648"), "a negative int: %s", t);
	jsonw_float(start(&w), 3, 1000000.0);
	ok(!strcmp(t = text(), "1000000.000"), "a float, 3 decimals: %s", t);
	jsonw_float(start(&w), 6, 123.456789);
	ok(!strcmp(t = text(), "123.456789"), "a float, 6 decimals: %s", t);
	jsonw_float(start(&w), 2, NAN);
	ok(!strcmp(t = text(), "null"), "NaN is null: %s", t);
	jsonw_float(start(&w), 2, INFINITY);
	ok(!strcmp(t = text(), "null"), "infinity is null: %s", t);
	jsonw_bool(start(&w), true);
	ok(!strcmp(t = text(), "true"), "true: %s", t);
	jsonw_bool(start(&w), false);
	ok(!strcmp(t = text(), "false"), "false: %s", t);
	jsonw_null(start(&w));
	ok(!strcmp(t = text(), "null"), "null: %s", t);
}

static void test_escapes(void)
{
	struct json_writer w;
	const char *t;

	jsonw_string(start(&w), "a\"b\\c\nd\x01");
	ok(!strcmp(t = text(), "\"a\\\"b\\\\c\\nd\\u0001\""),
	   "quotes, backslashes and control characters escaped: %s", t);
	jsonw_string(start(&w), "\t\r\x1f\x7f");
	ok(!strcmp(t = text(), "\"\\t\\r\\u001f\\u007f\""), "tab, CR, 0x1f and DEL: %s", t);
	jsonw_string(start(&w), "caf\xc3\xa9 <1/4 >=4");
	ok(!strcmp(t = text(), "\"caf\xc3\xa9 <1/4 >=4\""), "UTF-8 and '/' as they are: %s", t);
	jsonw_string(start(&w), "");
	ok(!strcmp(t = text(), "\"\""), "the empty string: %s", t);
	jsonw_string_field(start(&w), "a\"b", "x");
	ok(!strcmp(t = text(), "\"a\\\"b\":\"x\""), "a name is escaped too: %s", t);
}

#define NESTED								\
	"{\"a\":[{\"i\":0,\"e\":[]},{\"i\":1,\"e\":[]},{\"i\":2,\"e\":[]}],"	\
	"\"o\":{},\"z\":null}"

static void test_structure(void)
{
	struct json_writer w;
	const char *t;
	int i;

	start(&w);
	jsonw_start_object(&w);
	jsonw_end_object(&w);
	ok(!strcmp(t = text(), "{}"), "an empty object: %s", t);

	start(&w);
	jsonw_start_array(&w);
	jsonw_end_array(&w);
	ok(!strcmp(t = text(), "[]"), "an empty array: %s", t);

	start(&w);
	jsonw_start_object(&w);
	jsonw_string_field(&w, "s", "x");
	jsonw_uint_field(&w, "u", 1);
	jsonw_int_field(&w, "i", -1);
	jsonw_float_field(&w, "f", 2, 0.5);
	jsonw_bool_field(&w, "b", false);
	jsonw_null_field(&w, "n");
	jsonw_end_object(&w);
	ok(!strcmp(t = text(), "{\"s\":\"x\",\"u\":1,\"i\":-1,\"f\":0.50,\"b\":false,\"n\":null}"),
	   "every kind of field, one comma between each: %s", t);

	start(&w);
	jsonw_start_object(&w);
	jsonw_name(&w, "a");
	jsonw_start_array(&w);
	for (i = 0; i < 3; i++) {
		jsonw_start_object(&w);
		jsonw_uint_field(&w, "i", i);
		jsonw_name(&w, "e");
		jsonw_start_array(&w);
		jsonw_end_array(&w);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_name(&w, "o");
	jsonw_start_object(&w);
	jsonw_end_object(&w);
	jsonw_null_field(&w, "z");
	jsonw_end_object(&w);
	ok(!strcmp(t = text(), NESTED),
	   "nested objects and arrays: commas at each depth, none after a name: %s", t);
	ok(w.depth == 0, "every level closed: depth 0");

	start(&w);
	jsonw_start_array(&w);
	jsonw_uint(&w, 1);
	jsonw_string(&w, "2");
	jsonw_null(&w);
	jsonw_start_array(&w);
	jsonw_bool(&w, true);
	jsonw_end_array(&w);
	jsonw_end_array(&w);
	ok(!strcmp(t = text(), "[1,\"2\",null,[true]]"), "an array of values: %s", t);

	/* two top-level values in a row (top --json's lines): each is whole */
	start(&w);
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "n", 1);
	jsonw_end_object(&w);
	jsonw_init(&w, out);
	jsonw_start_object(&w);
	jsonw_uint_field(&w, "n", 2);
	jsonw_end_object(&w);
	ok(!strcmp(t = text(), "{\"n\":1}{\"n\":2}"), "a fresh writer per line: %s", t);
}

int main(void)
{
	test_values();
	test_escapes();
	test_structure();
	free(last);
	return tap_done();
}
