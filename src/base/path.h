/* Small helpers on file paths, shared by every layer above. */
#ifndef CT_PATH_H
# define CT_PATH_H

# include <stdbool.h>

/*
 * The last component of path, into path ("a/b.c" -> "b.c"); path itself
 * when it has no slash or ends with one.
 */
const char *base_name(const char *path);
/*
 * A malloc'ed copy of path less the " (deleted)" the kernel appends to
 * the name of a mapped or linked file that was removed (or replaced, as
 * a rebuilt binary is); *deleted (may be NULL) says whether it was there.
 */
char *strip_deleted(const char *path, bool *deleted);

#endif
