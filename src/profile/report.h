/* The batch report: a flat sampled profile, "where the time goes". */
#ifndef CT_REPORT_H
# define CT_REPORT_H

# include <stdio.h>

struct session;

void report_flat(const struct session *, FILE *);
/*
 * Where threads wait (ptrace/waitsite.h): the sites, most stacks first,
 * and those behind each line with a "contention" verdict.  Nothing when
 * no stack was taken.
 */
void report_waits(const struct session *, FILE *);

#endif
