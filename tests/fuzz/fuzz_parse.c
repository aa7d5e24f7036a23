// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_parse.c - libFuzzer harness over the module's parsers (src/parse.c,
 * compiled from the same source the module uses).
 *
 * Properties checked on every input, besides what ASan/UBSan catch (the
 * input buffer is exactly the input: no NUL after it):
 *  - iocost_parse_bind() returns 0, -EINVAL or -ERANGE, nothing else;
 *  - on success: the numbers fit a dev_t, the name is NUL-terminated,
 *    "linear" is flagged as such and any other name is a valid model name,
 *    and printing the request back and parsing it again gives the same
 *    request (the parser accepts exactly one canonical meaning per line);
 *  - iocost_name_valid() agrees with the rules it documents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/parse.h"

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_parse: property violated: %s\n", what);
		abort();
	}
}

static int name_rules(const unsigned char *s, size_t size)
{
	size_t i, n = size < IOCOST_MODEL_NAME_LEN ? size : IOCOST_MODEL_NAME_LEN;

	for (i = 0; i < n && s[i]; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return 0;
	if (i == 0 || i == n)
		return 0;
	return !(i == 6 && !memcmp(s, "linear", 6));
}

/*
 * libFuzzer's entry point, LLVMFuzzerTestOneInput(): the Makefile renames
 * it with -Dfuzz_one_input=LLVMFuzzerTestOneInput (checkpatch: CamelCase).
 */
int fuzz_one_input(const unsigned char *data, size_t size)
{
	struct iocost_bind_req req, again;
	char line[64];
	int ret, len;

	ret = iocost_parse_bind((const char *)data, size, &req);
	check(ret == 0 || ret == -EINVAL || ret == -ERANGE, "return value");
	if (ret == 0) {
		check(req.major <= IOCOST_MAJOR_MAX && req.minor <= IOCOST_MINOR_MAX,
		      "device number range");
		check(!!memchr(req.name, 0, sizeof(req.name)), "name terminated");
		check(req.linear == !strcmp(req.name, IOCOST_MODEL_LINEAR), "linear flag");
		check(req.linear || iocost_name_valid(req.name, sizeof(req.name)),
		      "accepted name is valid");
		len = snprintf(line, sizeof(line), "%u:%u model=%s\n",
			       req.major, req.minor, req.name);
		check(len > 0 && (size_t)len < sizeof(line), "canonical line fits");
		check(iocost_parse_bind(line, len, &again) == 0 &&
		      again.major == req.major && again.minor == req.minor &&
		      again.linear == req.linear &&
		      !memcmp(again.name, req.name, sizeof(req.name)),
		      "round trip through the canonical line");
	}
	check(iocost_name_valid((const char *)data, size) == name_rules(data, size),
	      "iocost_name_valid follows its rules");
	return 0;
}
