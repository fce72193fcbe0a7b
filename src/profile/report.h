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
/* Its part for the lines with a "contention" verdict, of npoints points. */
struct lines_table;
struct stats;
struct wait_site;
void report_waits_behind(FILE *, struct stats *, struct lines_table *, size_t npoints,
			 const struct wait_site *const *sites, size_t nsites);
/* --until-answer's outcome: the answer and when, or "undecided" and why. */
void report_answer(const struct session *, FILE *);
/*
 * The same outcome for experiments read back (causaltop report): "Answer"
 * or "Undecided from the pooled experiments", point by point; nothing when
 * no point has an estimate.
 */
struct progress_table;
void report_pooled_answer(FILE *, struct stats *, struct lines_table *,
			  struct progress_table *);

#endif
