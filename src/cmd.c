#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "cmd.h"
#include "profile.h"

int
cmd_dispatch(int *argc, char ***argv)
{
	char **av = *argv;

	if (*argc < 2)
		return -1;
	if (!strcmp(av[1], "report"))
		return cmd_report(*argc - 1, av + 1);
	if (!strcmp(av[1], "diff"))
		return cmd_diff(*argc - 1, av + 1);
	if (!strcmp(av[1], "record")) {
		/* The rest is parsed as if "record" was not there. */
		av[1] = av[0];
		--*argc;
		++*argv;
	}
	return -1;
}

int
cmd_load(struct profile **out, char *const *files, size_t nfiles)
{
	struct profile *p = profile_new();
	char err[512];

	for (size_t i = 0; i < nfiles; i++) {
		int rc = profile_read_file(p, files[i], err, sizeof(err));

		if (rc) {
			error_msg("%s", err);
			profile_free(p);
			return rc;
		}
	}
	profile_finish(p);
	*out = p;
	return 0;
}

int
cmd_output(const char *path, int (*fn)(FILE *, void *), void *ctx)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f;
	int err;

	if (!strcmp(path, "-")) {
		if (fn(stdout, ctx) < 0 || fflush(stdout)) {
			perror_msg("writing standard output");
			return CT_EXIT_IO;
		}
		return 0;
	}
	/*
	 * Not a regular file (/dev/null, a FIFO, /dev/stdout): written
	 * into.  Renamed over, /dev/null became a regular file (as root),
	 * and the temporary name was made beside it, in /dev.
	 */
	if (stat(path, &st) || S_ISREG(st.st_mode))
		tmp = xasprintf("%s.tmp%d", path, (int) getpid());
	if (!(f = fopen(tmp ? tmp : path, "we"))) {
		perror_msg("cannot write %s", tmp ? tmp : path);
		free(tmp);
		return CT_EXIT_IO;
	}
	err = fn(f, ctx);
	if (fclose(f) || err < 0 || (tmp && rename(tmp, path) < 0)) {
		perror_msg("writing %s", path);
		if (tmp)
			unlink(tmp);
		free(tmp);
		return CT_EXIT_IO;
	}
	free(tmp);
	return 0;
}
