/*
 * Subcommands beside profiling: `causaltop report` and `causaltop diff`
 * read profiles and write reports; `causaltop record` is the default,
 * profiling.  The helpers they share.
 */
#ifndef CT_CMD_H
# define CT_CMD_H

# include <stddef.h>
# include <stdio.h>

struct profile;

/*
 * Run the subcommand argv[1] names and return its exit status, or -1
 * when there is none (profiling); "record" is dropped from argv.
 */
int cmd_dispatch(int *argc, char ***argv);

int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* Read files into a new profile, or print why not and return the status. */
int cmd_load(struct profile **, char *const *files, size_t nfiles);

#endif
