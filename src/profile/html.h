/* `causaltop report --html`: a self-contained page of a profile. */
#ifndef CT_HTML_H
# define CT_HTML_H

# include <stdio.h>

struct profile;

/* The page; top: rows per progress point (0: all).  0, or -1 on a write error. */
int html_write(FILE *, struct profile *, unsigned top);

#endif
