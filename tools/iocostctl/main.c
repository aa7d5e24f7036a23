// SPDX-License-Identifier: GPL-2.0
/*
 * iocostctl - load, bind and watch iocost_bpf cost models
 *
 *   iocostctl load OBJ.bpf.o [--name NAME]
 *   iocostctl unload NAME
 *   iocostctl bind DEV MODEL [--shadow | --mode enforce|shadow]
 *   iocostctl unbind {DEV | --all [--dry-run]}
 *   iocostctl status [--json | --format text|json|openmetrics]
 *   iocostctl top [DEV] [--count N] [--json]
 *
 * load registers every iocost_model_ops struct_ops map of a BPF object
 * through libbpf and pins its link at /sys/fs/bpf/iocost_bpf/NAME, so the
 * model stays registered after iocostctl exits; unload removes that pin.
 * bind/unbind write one line to /sys/kernel/iocost_bpf/bindings (unbind
 * --all one per bound disk, pass after pass until none is left); bind
 * reads it back to check the disk's model and mode (enforce: the model's
 * prices are charged, shadow: the builtin's are, the model's are only
 * counted).  status reads the module's control files and the root
 * cgroup's io.cost.qos (and io.stat, for the OpenMetrics text), and top
 * follows the iocost_ioc_tick trace event in a private tracefs instance.
 *
 * The files, as bpftool's: main.c (this: the command table, the help
 * texts, the global options and every command's option parser), common.c
 * (failures, files, devices), load.c (load, unload; the registering is
 * tools/lib/model_load.c's, shared with bpf/loader.c), bind.c (bind,
 * unbind), status.c, top.c, json.c (the JSON writer of status --json and
 * top --json), openmetrics.c (status --format openmetrics) and ctlparse.c
 * (the parsers, unit-tested on the host; openmetrics.c is too).
 *
 * Exit status: 0 success, 1 failure, 2 usage error.  Every failure names
 * what failed, the file and the errno text, with an explanation where the
 * errno has a known meaning (docs/USAGE.md, "The control files").  See
 * iocostctl(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "common.h"

#ifndef IOCOSTCTL_VERSION
#error "IOCOSTCTL_VERSION is not defined: the Makefile passes it, from VERSION"
#endif

bool debug;

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *summary;
	const char *help;
};

static const struct command commands[] = {
	{ "load", cmd_load, "OBJ.bpf.o [--name NAME]", "register and pin a model",
	  "Register the iocost_model_ops struct_ops map(s) of a BPF object and pin\n"
	  "their links at " PIN_DIR "/NAME, so that the model stays\n"
	  "registered after iocostctl exits.\n\n"
	  "  -n, --name NAME  register the model under NAME instead of its own name\n"
	  "                   (1-15 printable characters without blanks, not linear)\n" },
	{ "unload", cmd_unload, "NAME", "unpin a loaded model",
	  "Remove the pin " PIN_DIR "/NAME and wait until the model\n"
	  "is unregistered.  Devices it is bound to keep pricing with it until\n"
	  "they are unbound.\n" },
	{ "bind", cmd_bind, "DEV MODEL [--shadow | --mode MODE]",
	  "price a disk's IO with a model",
	  "Price DEV's IO with MODEL.  DEV is MAJ:MIN, a block device node such as\n"
	  "/dev/vda, or a block device's name; a whole disk, not a partition.\n"
	  "Rebinding a bound disk replaces its model and mode, and resets its\n"
	  "statistics.\n\n"
	  "      --mode MODE  enforce (the default): charge the model's prices;\n"
	  "                   shadow: call the model for every bio but charge the\n"
	  "                   builtin's prices, and count how the two compare\n"
	  "                   (iocostctl status shows the histogram)\n"
	  "      --shadow     the same as --mode shadow\n" },
	{ "unbind", cmd_unbind, "{DEV | --all [--dry-run]}",
	  "back to the builtin linear model",
	  "Give DEV back to the builtin linear model (\"MAJ:MIN model=linear\").\n\n"
	  "  -a, --all      every bound disk, whatever its model, registered or not:\n"
	  "                 read the bindings, unbind each disk, and again until none\n"
	  "                 is left (at most 5 passes: a bind may race).  With the\n"
	  "                 last binding the module unhooks the kernel's pricing\n"
	  "                 function, so that something else (a livepatch) can take\n"
	  "                 it over.  A disk that went away is no failure; a disk it\n"
	  "                 cannot unbind is named with its error, exit status 1.\n"
	  "      --dry-run  with --all: list the disks it would unbind, change nothing\n" },
	{ "status", cmd_status, "[--json | --format FORMAT]",
	  "models, bindings, statistics",
	  "Show the registered models, which of them are pinned, the bindings\n"
	  "and their modes, per-device statistics (for a shadow binding: the\n"
	  "builtin's sum, the model/builtin ratio and the histogram of per-IO\n"
	  "ratios) and each device's iocost state.\n\n"
	  "  -j, --json           one JSON object (schema in iocostctl(8))\n"
	  "      --format FORMAT  text (the default), json (as --json) or\n"
	  "                       openmetrics: OpenMetrics 1.0 text, for a scrape\n"
	  "                       or node_exporter's textfile collector\n" },
	{ "top", cmd_top, "[DEV] [--count N] [--json]", "live per-period view",
	  "Follow the iocost_ioc_tick trace event: one line per controller period\n"
	  "and device (a table refreshed in place on a terminal).  DEV (a name,\n"
	  "MAJ:MIN or /dev path) limits it to one device.\n\n"
	  "  -c, --count N  stop after N ticks\n"
	  "  -j, --json     one JSON object per tick\n" },
};

#define NR_COMMANDS ARRAY_SIZE(commands)

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int command_help(const char *name)
{
	const struct command *c = find_command(name);

	printf("Usage: iocostctl %s %s\n\n%s", c->name, c->args, c->help);
	return 0;
}

/* the option getopt_long() just refused */
static const char *bad_option(char **argv, char *buf, size_t size)
{
	const char *arg = argv[optind - 1];

	if (!strncmp(arg, "--", 2))
		snprintf(buf, size, "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(buf, size, "-%c", optopt);
	return buf;
}

/* the format option @c, --json or --format @arg, as the user wrote it */
static const char *format_opt(int c, const char *arg, char *buf, size_t size)
{
	if (c == 'j')
		snprintf(buf, size, "--json");
	else
		snprintf(buf, size, "--format %s", arg);
	return buf;
}

int command_options(const char *cmd, int argc, char **argv, bool *json,
		    long *count, const char **name, bool *all, bool *dry_run,
		    enum ctl_mode *mode, enum ctl_format *format)
{
	static const struct option known[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "mode", required_argument, NULL, 'M' },
		{ "shadow", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[10];
	char short_opts[16] = ":h", opt[64], fmt_opt[64];
	const char *mode_opt = NULL;	/* the option that set *@mode */
	bool fmt_set = false;		/* fmt_opt names the one that set *@format */
	enum ctl_format f;
	enum ctl_mode m;
	int n = 0, c;

	opts[n++] = known[0];
	if (json) {
		opts[n++] = known[1];
		strcat(short_opts, "j");
	}
	if (count) {
		opts[n++] = known[2];
		strcat(short_opts, "c:");
	}
	if (name) {
		opts[n++] = known[3];
		strcat(short_opts, "n:");
	}
	if (all) {
		opts[n++] = known[4];
		strcat(short_opts, "a");
	}
	if (dry_run)
		opts[n++] = known[5];	/* no short option: -n is load's --name */
	if (mode) {
		opts[n++] = known[6];	/* long only, as --shadow */
		opts[n++] = known[7];
	}
	if (format)
		opts[n++] = known[8];	/* long only, as --mode */
	opts[n] = known[9];
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'h':
			return command_help(cmd);
		case 'j':
		case 'F':
			if (c == 'j')
				f = CTL_FORMAT_JSON;
			else if (ctl_parse_format(optarg, &f))
				return usage_error(cmd,
						   "--format: unknown format '%s': expected text, json or openmetrics",
						   optarg);
			if (!format) {
				*json = true;
				break;
			}
			if (fmt_set && f != *format)
				return usage_error(cmd, "%s and %s contradict each other",
						   fmt_opt,
						   format_opt(c, optarg, opt, sizeof(opt)));
			*format = f;
			fmt_set = true;
			format_opt(c, optarg, fmt_opt, sizeof(fmt_opt));
			break;
		case 'c':
			errno = 0;
			*count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || *count <= 0)
				return usage_error(cmd, "--count: '%s' is not a positive number",
						   optarg);
			break;
		case 'n':
			*name = optarg;
			break;
		case 'a':
			*all = true;
			break;
		case 'D':
			*dry_run = true;
			break;
		case 'M':
		case 'S':
			if (c == 'S')
				m = CTL_MODE_SHADOW;
			else if (ctl_parse_mode(optarg, &m))
				return usage_error(cmd,
						   "--mode: unknown mode '%s': expected enforce or shadow",
						   optarg);
			if (mode_opt && m != *mode)
				return usage_error(cmd, "%s and %s%s contradict each other",
						   mode_opt, c == 'S' ? "--shadow" : "--mode ",
						   c == 'S' ? "" : optarg);
			*mode = m;
			mode_opt = c == 'S' ? "--shadow" : m == CTL_MODE_SHADOW ?
				   "--mode shadow" : "--mode enforce";
			break;
		case ':':
			return usage_error(cmd, "option '%s' needs an argument",
					   bad_option(argv, opt, sizeof(opt)));
		default:
			return usage_error(cmd, "unknown option '%s'",
					   bad_option(argv, opt, sizeof(opt)));
		}
	}
	return -1;
}

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: iocostctl [-d] COMMAND [ARGS]\n"
		"       iocostctl {-h | --help | -V | --version}\n\n"
		"Load, bind and watch iocost_bpf cost models.\n\nCommands:\n");
	for (i = 0; i < NR_COMMANDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", commands[i].name,
			 commands[i].args);
		fprintf(f, "  %-39s  %s\n", head, commands[i].summary);
	}
	fprintf(f, "\nOptions:\n"
		"  -d, --debug    show libbpf's debug messages\n"
		"  -h, --help     this text; 'iocostctl COMMAND --help' for a command\n"
		"  -V, --version  the version\n\n"
		"Exit status: 0 success, 1 failure, 2 usage error.  See iocostctl(8).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "debug", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	char opt[64];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hVd", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_usage(stdout);
			return 0;
		case 'V':
			printf("iocostctl %s (libbpf %s)\n", IOCOSTCTL_VERSION,
			       libbpf_version_string());
			return 0;
		case 'd':
			debug = true;
			break;
		default:
			return usage_error(NULL, "unknown option '%s'",
					   bad_option(argv, opt, sizeof(opt)));
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return 2;
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[optind]);
	return cmd->fn(argc - optind, argv + optind);
}
