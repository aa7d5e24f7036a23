// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - pure parsers of the iocost_bpf control files
 *
 * The bindings file takes one line in io.cost.model's syntax:
 *
 *	MAJ:MIN model=NAME [mode=enforce|shadow]
 *				bind the model registered as NAME; in
 *				shadow mode it prices, the builtin charges
 *	MAJ:MIN model=linear	restore the builtin linear model
 *
 * MAJ and MIN are decimal, fields are separated by blanks (space or tab),
 * the keys come in any order, each at most once, and one trailing newline
 * is accepted.  Anything else (an unknown key or mode, mode= with
 * model=linear), and any line longer than IOCOST_BIND_LINE_MAX, is
 * -EINVAL; a number beyond what a dev_t can hold is -ERANGE.
 */
#include "parse.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/**
 * iocost_name_valid - is @name acceptable as a model name?
 * @name: the name buffer
 * @size: size of the buffer (the name must be NUL-terminated within it)
 *
 * A model name is 1 to IOCOST_MODEL_NAME_LEN - 1 printable, non-blank
 * ASCII characters, NUL-terminated, and not the reserved word "linear".
 *
 * Return: true if valid.
 */
bool iocost_name_valid(const char *name, size_t size)
{
	static const char linear[] = IOCOST_MODEL_LINEAR;
	size_t i;

	if (size > IOCOST_MODEL_NAME_LEN)
		size = IOCOST_MODEL_NAME_LEN;
	for (i = 0; i < size && name[i]; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	if (i == 0 || i == size)
		return false;	/* empty, or not terminated */
	if (i == sizeof(linear) - 1) {
		for (i = 0; i < sizeof(linear) - 1; i++)
			if (name[i] != linear[i])
				return true;
		return false;
	}
	return true;
}

/* parse a decimal number at *pos, at most @max; advances *pos */
static int parse_u32(const char *buf, size_t len, size_t *pos, u32 max,
		     u32 *out)
{
	size_t i = *pos;
	unsigned long long v = 0;
	bool range = false;

	if (i >= len || !is_digit(buf[i]))
		return -EINVAL;
	for (; i < len && is_digit(buf[i]); i++) {
		v = v * 10 + (unsigned int)(buf[i] - '0');
		if (v > max) {
			range = true;
			v = max;	/* keep consuming digits */
		}
	}
	*pos = i;
	*out = (u32)v;
	return range ? -ERANGE : 0;
}

/**
 * iocost_parse_devt - parse a device number, MAJ:MIN
 * @buf: the text (need not be NUL-terminated)
 * @len: number of bytes in @buf
 * @pos: where MAJ starts in @buf; on 0 or -ERANGE, advanced past MIN
 * @major: set to MAJ, or IOCOST_MAJOR_MAX if it is larger
 * @minor: set to MIN, or IOCOST_MINOR_MAX if it is larger
 *
 * MAJ and MIN are decimal digits, without sign or blanks, separated by
 * ':'.  A number out of range is still read to its last digit, so that a
 * caller can go on and report a malformed rest of the line first.
 *
 * Return: 0, -EINVAL when the text is not digits, ':', digits, or -ERANGE
 * when MAJ exceeds IOCOST_MAJOR_MAX or MIN exceeds IOCOST_MINOR_MAX.
 */
int iocost_parse_devt(const char *buf, size_t len, size_t *pos, u32 *major,
		      u32 *minor)
{
	size_t i = *pos;
	int ret, range = 0;

	ret = parse_u32(buf, len, &i, IOCOST_MAJOR_MAX, major);
	if (ret == -ERANGE)
		range = ret;
	else if (ret)
		return ret;
	if (i >= len || buf[i] != ':')
		return -EINVAL;
	i++;
	ret = parse_u32(buf, len, &i, IOCOST_MINOR_MAX, minor);
	if (ret == -ERANGE)
		range = ret;
	else if (ret)
		return ret;
	*pos = i;
	return range;
}

/* does the word buf[start, end) spell @lit? */
static bool word_is(const char *buf, size_t start, size_t end, const char *lit)
{
	size_t i;

	for (i = 0; start + i < end; i++)
		if (!lit[i] || buf[start + i] != lit[i])
			return false;
	return !lit[i];
}

/**
 * iocost_parse_bind - parse one line written to the bindings file
 * @buf: the bytes written (need not be NUL-terminated)
 * @len: number of bytes in @buf
 * @req: filled in on success; left unspecified on error
 *
 * Return: 0, -EINVAL for a malformed line (including embedded NUL bytes,
 * a second line, unknown or repeated keys, an unknown mode, an invalid
 * model name or an overlong line) or -ERANGE for a device number out of
 * range.
 */
int iocost_parse_bind(const char *buf, size_t len, struct iocost_bind_req *req)
{
	size_t pos = 0, start, eq, n, i;
	bool have_model = false, have_mode = false;
	int ret, range = 0;

	if (len > IOCOST_BIND_LINE_MAX)
		return -EINVAL;

	if (len && buf[len - 1] == '\n')
		len--;
	while (pos < len && is_blank(buf[pos]))
		pos++;

	ret = iocost_parse_devt(buf, len, &pos, &req->major, &req->minor);
	if (ret == -ERANGE)
		range = ret;
	else if (ret)
		return ret;
	req->shadow = false;

	/* KEY=VALUE words, each after at least one blank */
	while (pos < len) {
		if (!is_blank(buf[pos]))
			return -EINVAL;
		while (pos < len && is_blank(buf[pos]))
			pos++;
		if (pos == len)
			break;	/* trailing blanks */
		start = pos;
		eq = len;
		while (pos < len && !is_blank(buf[pos])) {
			if (buf[pos] < ' ' || buf[pos] > '~')
				return -EINVAL;	/* NUL, control or non-ASCII byte */
			if (buf[pos] == '=' && eq == len)
				eq = pos;
			pos++;
		}
		if (eq == len)
			return -EINVAL;
		if (word_is(buf, start, eq, "model") && !have_model) {
			have_model = true;
			n = pos - eq - 1;
			if (n == 0 || n >= IOCOST_MODEL_NAME_LEN)
				return -EINVAL;
			for (i = 0; i < n; i++)
				req->name[i] = buf[eq + 1 + i];
			for (; i < IOCOST_MODEL_NAME_LEN; i++)
				req->name[i] = '\0';
		} else if (word_is(buf, start, eq, "mode") && !have_mode) {
			have_mode = true;
			if (word_is(buf, eq + 1, pos, "shadow"))
				req->shadow = true;
			else if (!word_is(buf, eq + 1, pos, "enforce"))
				return -EINVAL;
		} else {
			return -EINVAL;	/* unknown or repeated key */
		}
	}
	if (!have_model)
		return -EINVAL;

	req->linear = !__builtin_strcmp(req->name, IOCOST_MODEL_LINEAR);
	if (req->linear && have_mode)
		return -EINVAL;	/* the builtin has no modes */
	if (!req->linear && !iocost_name_valid(req->name, sizeof(req->name)))
		return -EINVAL;
	return range;
}
