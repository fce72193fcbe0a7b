#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "profile/output.h"

int
output_write(const char *path, int (*fn)(FILE *, void *), void *ctx)
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
