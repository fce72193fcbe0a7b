/*
 * `causaltop report [FILE...]`: profiles pooled, their curves recomputed,
 * written as the ranked table, JSON, HTML or Coz's format.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/cmd.h"
#include "base/error_prints.h"
#include "profile/causal_out.h"
#include "profile/html.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "profile/report.h"

/* tests/options-man.test checks these options against man/causaltop.1. */
static const char report_usage[] =
"Usage: causaltop report [OPTIONS] [FILE...]\n"
"\n"
"Read causal profiles (profile.coz written by causaltop or Coz, Coz's JSON\n"
"lines, causaltop's --json), pool their experiments as runs of one program,\n"
"recompute the curves and print the ranked table.  Without FILE, read\n"
"profile.coz; - is standard input.\n"
"\n"
"      --json[=FILE]         write the pooled profile as JSON (to standard output\n"
"                            instead of the table without FILE)\n"
"      --html=FILE           write a self-contained HTML page with every curve\n"
"  -o, --output=FILE         write the pooled experiments in Coz's format\n"
"      --top=N               rows per progress point (default 20; 0: all)\n"
"  -h, --help                show this help and exit\n";

enum { OPT_JSON = 0x100, OPT_HTML, OPT_TOP };

static const struct option report_options[] = {
	{ "json",	optional_argument, NULL, OPT_JSON },
	{ "html",	required_argument, NULL, OPT_HTML },
	{ "output",	required_argument, NULL, 'o' },
	{ "top",	required_argument, NULL, OPT_TOP },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct report {
	struct profile *p;
	unsigned top;
};

static int
write_json(FILE *f, void *ctx)
{
	struct profile *p = ((struct report *) ctx)->p;

	return causal_write_json(f, &p->meta, p->stats, p->lines, p->progress);
}

static int
write_coz(FILE *f, void *ctx)
{
	struct profile *p = ((struct report *) ctx)->p;

	return causal_write_coz(f, &p->meta, p->stats, p->lines, p->progress);
}

static int
write_html(FILE *f, void *ctx)
{
	struct report *r = ctx;

	return html_write(f, r->p, r->top);
}

/* Which files, in which formats: one line. */
static void
print_sources(FILE *f, const struct profile *p)
{
	fprintf(f, "Pooled %zu run%s:", p->nruns, p->nruns == 1 ? "" : "s");
	for (size_t i = 0; i < p->nruns;) {
		size_t k = i;

		while (k < p->nruns && !strcmp(p->runs[k].file, p->runs[i].file))
			k++;
		fprintf(f, "%s %s (%s", i ? "," : "", p->runs[i].file, p->runs[i].format);
		if (k - i > 1)
			fprintf(f, ", %zu runs", k - i);
		fputc(')', f);
		i = k;
	}
	fputs("\n\n", f);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
report_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s report: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'causaltop report --help' for more information.\n", stderr);
	exit(CT_EXIT_USAGE);
}

int
cmd_report(int argc, char **argv)
{
	const char *json = NULL, *html = NULL, *coz = NULL;
	static char *default_files[] = { "profile.coz" };
	struct report r = { .top = 20 };
	char **files;
	size_t nfiles;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", report_options, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case OPT_JSON:
			json = optarg ? optarg : "-";
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case 'o':
			coz = optarg;
			break;
		case OPT_TOP:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 1000000)
				report_usage_error("invalid --top '%s'", optarg);
			r.top = (unsigned) v;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			fputs("Try 'causaltop report --help' for more information.\n", stderr);
			return CT_EXIT_USAGE;
		}
	}
	files = optind < argc ? argv + optind : default_files;
	nfiles = optind < argc ? (size_t) (argc - optind) : 1;
	if ((rc = cmd_load(&r.p, files, nfiles)))
		return rc;
	if (coz && (rc = output_write(coz, write_coz, &r)))
		goto out;
	if (html && (rc = output_write(html, write_html, &r)))
		goto out;
	if (json && (rc = output_write(json, write_json, &r)))
		goto out;
	if (!json || strcmp(json, "-")) {
		print_sources(stdout, r.p);
		causal_print_table(stdout, &r.p->meta, r.p->stats, r.p->lines, r.p->progress,
				   r.top);
		report_pooled_answer(stdout, r.p->stats, r.p->lines, r.p->progress);
		if (fflush(stdout)) {
			perror_msg("writing standard output");
			rc = CT_EXIT_IO;
		}
	}
out:
	profile_free(r.p);
	return rc;
}
