// SPDX-License-Identifier: GPL-2.0
/*
 * errno-write FILE DATA - write DATA to FILE in a single write(2) and print
 * the outcome as "OK" or the errno name (ENOENT, EINVAL, ...), so that
 * tests can assert on the exact errno of each control-file write.  DATA
 * may contain \n, \t, \0 and \xHH escapes.  Exit status 0 either way, 2 on
 * usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	while (*in) {
		if (in[0] == '\\' && in[1]) {
			in++;
			switch (*in) {
			case 'n':
				out[n++] = '\n';
				in++;
				continue;
			case 't':
				out[n++] = '\t';
				in++;
				continue;
			case '0':
				out[n++] = '\0';
				in++;
				continue;
			case '\\':
				out[n++] = '\\';
				in++;
				continue;
			case 'x': {
				char hex[3] = { 0 };

				if (in[1] && in[2]) {
					hex[0] = in[1];
					hex[1] = in[2];
					out[n++] = (char)strtol(hex, NULL, 16);
					in += 3;
					continue;
				}
				break;
			}
			}
			out[n++] = '\\';
			continue;
		}
		out[n++] = *in++;
	}
	return n;
}

int main(int argc, char **argv)
{
	char *buf;
	size_t len;
	ssize_t ret;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: errno-write FILE DATA\n");
		return 2;
	}
	buf = malloc(strlen(argv[2]) + 1);
	if (!buf)
		return 2;
	len = unescape(argv[2], buf);
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	ret = write(fd, buf, len);
	if (ret < 0)
		printf("%s\n", strerrorname_np(errno));
	else if ((size_t)ret != len)
		printf("SHORT %zd/%zu\n", ret, len);
	else
		printf("OK\n");
	close(fd);
	free(buf);
	return 0;
}
