/* The batch report: a flat sampled profile, "where the time goes". */
#ifndef CT_REPORT_H
# define CT_REPORT_H

# include <stdio.h>

struct session;

void report_flat(const struct session *, FILE *);

#endif
