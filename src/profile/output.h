/*
 * Writing a file whole or not at all: the profiles (-o, --json, the
 * TUI's save now) and the reports and diffs of profiles read back.
 */
#ifndef CT_OUTPUT_H
# define CT_OUTPUT_H

# include <stdio.h>

/*
 * Can output_write write path?  Checked before a session starts, so that
 * a missing folder is not found after the whole run: a regular or new
 * file needs a file made beside it (made, then removed); anything else
 * must be writable.  0, or CT_EXIT_IO with the cause printed.
 */
int output_check(const char *path);

/*
 * Write path ("-": standard output) with fn(f, ctx), through a temporary
 * file renamed into place; a path that exists and is not a regular file
 * (/dev/null, a FIFO) is written into.  0, or CT_EXIT_IO with the cause
 * printed, naming path (never the temporary file).
 */
int output_write(const char *path, int (*fn)(FILE *, void *), void *ctx);

#endif
