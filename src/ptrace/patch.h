/*
 * Progress points counted inside the target, as gdb's fast tracepoints
 * run: the first instructions at the probe's address are replaced by a
 * jump to a pad that increments the point's counter (lock inc), runs the
 * displaced instructions (relocated: sym/relocate.h) and jumps back.  A
 * hit costs a few nanoseconds instead of a debug exception.
 *
 * Pads and counters live in a region of two pages (pads r-x, counters
 * rw-) that a stopped thread of the target maps on causaltop's behalf
 * (ptrace/inject.h) within reach of a rel32 jump from the code; text and
 * pads are written through /proc/PID/mem, only while every thread of the
 * process is stopped (patch_freeze) and none is inside the bytes
 * replaced.  Counts are read with process_vm_readv: no stop.
 *
 * What stays with the program: the region, for good.  At detach the
 * original bytes are put back (every thread stopped); a thread inside a
 * pad then finishes through it and returns to the original code.  If
 * causaltop dies, patches and pads stay valid and keep counting.  A
 * fork's copy has them too (with -f its counts are the child's, from
 * its fork on); an exec drops them with the image.
 *
 * The probe set (perf/probe.h) asks through struct probe_patch_ops,
 * installed by app/main.c with the session as its context.
 */
#ifndef CT_PATCH_H
# define CT_PATCH_H

# include <stdbool.h>
# include <stdint.h>
# include "perf/probe.h"

struct session;
struct ctproc;

extern const struct probe_patch_ops patch_probe_ops;

/*
 * Stop every thread of p that runs (PTRACE_INTERRUPT, and the stops
 * handled by trace.c, which holds p's threads while p->frozen).  False
 * when some would not stop within a second: p is thawed again.
 */
bool patch_freeze(struct session *s, struct ctproc *p);
/* Restart the threads patch_freeze stopped, as they were stopped. */
void patch_thaw(struct session *s, struct ctproc *p);

/* A followed fork: child starts with parent's patches, counted from now. */
void patch_fork(struct ctproc *parent, struct ctproc *child);
/*
 * Put the original bytes back in every process patched, each frozen for
 * it; before the detach.  A process that cannot be frozen keeps its
 * patches (they stay valid), with a warning.
 */
void patch_unpatch_all(struct session *s);
/* Free p's state (its regions stay in the target). */
void patch_proc_free(struct ctproc *p);

#endif
