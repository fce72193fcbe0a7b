/*
 * From samples to counts: walk the callchain to the innermost in-scope
 * frame (return addresses minus one, as Coz does) and charge its line,
 * function and thread.  Later the experiment engine hooks in here.
 */
#ifndef CT_COLLECT_H
# define CT_COLLECT_H

# include "perf/sampler.h"

struct session;

/* The sampler callbacks, with the session as their context. */
extern const struct sampler_ops collect_ops;

#endif
