#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/cmd.h"
#include "base/error_prints.h"
#include "profile/profile.h"

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
