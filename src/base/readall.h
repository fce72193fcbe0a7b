/* The whole of a file, read from an open descriptor. */
#ifndef CT_READALL_H
# define CT_READALL_H

# include <stddef.h>

/*
 * Read fd to its end into *data (malloc'd, *len bytes; NUL-terminated
 * beyond them).  0, or an errno value (*data then NULL).
 */
int read_all(int fd, char **data, size_t *len);

#endif
