// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/parse.c: the bindings line parser and name rules. */
#include <assert.h>
#include <string.h>
#include "tap.h"
#include "../../src/parse.h"

/* include/iocost_model.h spells the series' shifts in hex: same values, same type */
static_assert(IOCOST_COST_F_MERGE == 1ULL << 0, "IOCOST_COST_F_MERGE is bit 0");
static_assert(IOCOST_VTIME_PER_SEC == 1ULL << 37, "IOCOST_VTIME_PER_SEC is 2^37");
static_assert(__builtin_types_compatible_p(__typeof__(IOCOST_COST_F_MERGE), unsigned long long) &&
	      __builtin_types_compatible_p(__typeof__(IOCOST_VTIME_PER_SEC), unsigned long long),
	      "the model ABI's constants are unsigned long long");

static int parse(const char *s, struct iocost_bind_req *r)
{
	return iocost_parse_bind(s, strlen(s), r);
}

static void good(const char *s, unsigned int maj, unsigned int min,
		 const char *name, int linear)
{
	struct iocost_bind_req r;
	int ret = parse(s, &r);

	ok(ret == 0 && r.major == maj && r.minor == min && r.linear == linear &&
	   !r.shadow && !strcmp(r.name, name), "accepts \"%s\"", s);
}

static void good_mode(const char *s, const char *name, int shadow)
{
	struct iocost_bind_req r;
	int ret = parse(s, &r);

	ok(ret == 0 && !r.linear && r.shadow == shadow && !strcmp(r.name, name),
	   "accepts \"%s\" (%s)", s, shadow ? "shadow" : "enforce");
}

static void bad(const char *s, size_t len, int err, const char *what)
{
	struct iocost_bind_req r;

	ok(iocost_parse_bind(s, len, &r) == err, "refuses %s with %d", what, err);
}

int main(void)
{
	char name[32];

	good("254:0 model=iocost_2x", 254, 0, "iocost_2x", 0);
	good("254:0 model=iocost_2x\n", 254, 0, "iocost_2x", 0);
	good("8:16\tmodel=linear", 8, 16, "linear", 1);
	/* \x20: a blank right before the newline */
	good("  8:16   model=linear \x20\n", 8, 16, "linear", 1);
	good("4095:1048575 model=a", 4095, 1048575, "a", 0);
	good("1:2 model=abcdefghijklmno", 1, 2, "abcdefghijklmno", 0);

	good_mode("254:0 model=iocost_2x mode=shadow", "iocost_2x", 1);
	good_mode("254:0 model=iocost_2x mode=enforce\n", "iocost_2x", 0);
	good_mode("254:0 mode=shadow model=iocost_ms", "iocost_ms", 1);
	good_mode("254:0\tmodel=m\t mode=shadow\x20\n", "m", 1);
	bad("254:0 model=x mode=", 19, -EINVAL, "an empty mode");
	bad("254:0 model=x mode=bogus", 24, -EINVAL, "an unknown mode");
	bad("254:0 model=x mode=shadowy", 26, -EINVAL, "a mode with a suffix");
	bad("254:0 model=x mode=shado", 24, -EINVAL, "a mode prefix");
	bad("254:0 model=x mode=Shadow", 25, -EINVAL, "a mode in another case");
	bad("254:0 model=x mode=shadow mode=enforce", 38, -EINVAL, "two modes");
	bad("254:0 model=x model=y", 21, -EINVAL, "two models");
	bad("254:0 mode=shadow", 17, -EINVAL, "a mode without a model");
	bad("254:0 model=linear mode=enforce", 31, -EINVAL, "a mode for linear");
	bad("254:0 model=linear mode=shadow", 30, -EINVAL, "shadow mode for linear");
	bad("254:0 model=x mode", 18, -EINVAL, "a key without =");
	bad("254:0 model=x =shadow", 21, -EINVAL, "a value without a key");
	bad("", 0, -EINVAL, "an empty write");
	bad("\n", 1, -EINVAL, "a newline");
	bad("254 model=x", 11, -EINVAL, "a missing minor");
	bad("254: model=x", 12, -EINVAL, "an empty minor");
	bad(":0 model=x", 10, -EINVAL, "an empty major");
	bad("254:0", 5, -EINVAL, "a missing key");
	bad("254:0model=x", 12, -EINVAL, "a missing blank");
	bad("254:0 model=", 12, -EINVAL, "an empty name");
	bad("254:0 model=abcdefghijklmnop", 28, -EINVAL, "a 16-character name");
	bad("254:0 modl=x", 12, -EINVAL, "an unknown key");
	bad("254:0 model=x ctrl=auto", 23, -EINVAL, "a second key");
	bad("254:0 model=x\n254:1 model=y", 27, -EINVAL, "two lines");
	bad("254:0 model=x\n\n", 15, -EINVAL, "two newlines");
	bad("254:0 model=a\0b", 15, -EINVAL, "an embedded NUL");
	bad("254:0 model=\x01x", 14, -EINVAL, "a control character");
	bad("254:0 model=\xc3\xa9", 14, -EINVAL, "non-ASCII bytes");
	bad("-1:0 model=x", 12, -EINVAL, "a negative major");
	bad("0x10:0 model=x", 14, -EINVAL, "a hex major");
	bad("4096:0 model=x", 14, -ERANGE, "major 4096");
	{
		char line[IOCOST_BIND_LINE_MAX + 2];
		struct iocost_bind_req r;

		memset(line, ' ', sizeof(line));
		memcpy(line, "8:0 model=x", 11);
		ok(iocost_parse_bind(line, IOCOST_BIND_LINE_MAX, &r) == 0,
		   "a line of IOCOST_BIND_LINE_MAX bytes (trailing blanks) is accepted");
		bad(line, IOCOST_BIND_LINE_MAX + 1, -EINVAL,
		    "a line one byte longer than IOCOST_BIND_LINE_MAX");
	}
	bad("1:1048576 model=x", 17, -ERANGE, "minor 2^20");
	bad("99999999999999999999999:0 model=x", 33, -ERANGE, "a huge major");
	bad("99999999999999999999999:0 model=", 32, -EINVAL, "a huge major with no name");

	ok(iocost_name_valid("iocost_ms", 16), "name iocost_ms valid");
	ok(!iocost_name_valid("", 16), "empty name invalid");
	ok(!iocost_name_valid("linear", 16), "reserved name linear invalid");
	ok(iocost_name_valid("linear2", 16), "name linear2 valid");
	ok(iocost_name_valid("linea", 16), "name linea valid");
	ok(!iocost_name_valid("a b", 16), "name with a blank invalid");
	ok(!iocost_name_valid("a\tb", 16), "name with a tab invalid");
	memset(name, 'a', sizeof(name));
	ok(!iocost_name_valid(name, 16), "unterminated name invalid");
	name[15] = '\0';
	ok(iocost_name_valid(name, 16), "15-character name valid");
	ok(!iocost_name_valid("\x7f", 16), "DEL invalid");
	return tap_done();
}
