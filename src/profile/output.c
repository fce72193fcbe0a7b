#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "profile/output.h"

static char *
temp_name(const char *path)
{
	return xasprintf("%s.tmp%d", path, (int) getpid());
}

/* Renamed over, /dev/null would become a regular file (as root). */
static bool
written_into(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode);
}

/*
 * Why path's temporary neighbour cannot be made, in the user's words:
 * the folder is missing, or a file cannot be made there.
 */
static void
say_cannot_create(const char *path, int err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat st;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = 0;		/* "/" */
	else
		*slash = 0;
	if (stat(dir, &st))
		error_msg("cannot write %s: folder %s: %s", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		error_msg("cannot write %s: %s is not a folder", path, dir);
	else
		error_msg("cannot write %s: no file can be made in %s: %s", path, dir,
			  strerror(err));
	free(dir);
}

int
output_check(const char *path)
{
	struct stat st;
	char *tmp;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	if (!*path) {
		error_msg("%s", "cannot write a file with an empty name");
		return CT_EXIT_IO;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		error_msg("cannot write %s: it is a folder", path);
		return CT_EXIT_IO;
	}
	if (written_into(path)) {
		if (access(path, W_OK)) {
			perror_msg("cannot write %s", path);
			return CT_EXIT_IO;
		}
		return 0;
	}
	/* What output_write will do: a new file beside it, renamed over it. */
	tmp = temp_name(path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		say_cannot_create(path, errno);
		free(tmp);
		return CT_EXIT_IO;
	}
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int
output_write(const char *path, int (*fn)(FILE *, void *), void *ctx)
{
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
	if (!written_into(path))
		tmp = temp_name(path);
	if (!(f = fopen(tmp ? tmp : path, "we"))) {
		if (tmp)
			say_cannot_create(path, errno);
		else
			perror_msg("cannot write %s", path);
		free(tmp);
		return CT_EXIT_IO;
	}
	err = fn(f, ctx);
	if (fclose(f) || err < 0 || (tmp && rename(tmp, path) < 0)) {
		perror_msg("cannot write %s", path);
		if (tmp)
			unlink(tmp);
		free(tmp);
		return CT_EXIT_IO;
	}
	free(tmp);
	return 0;
}
