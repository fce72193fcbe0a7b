/*
 * The TUI's commands: the narrow interface through which the view
 * changes what the profiler does (the experiment engine's steering, see
 * experiment.h), saves the profile or ends the session.  Targets are the
 * model's row targets (model.h).  Each writes a one-line answer for the
 * status bar into msg and returns false when it could not be done.
 */
#ifndef CT_STEER_H
# define CT_STEER_H

# include <stdbool.h>
# include <stddef.h>

struct session;

/* Experiments on this target only; again on a pinned target: release. */
bool steer_pin(struct session *, unsigned target, bool is_func, char *msg, size_t size);
bool steer_unpin(struct session *, char *msg, size_t size);
/* Toggle: leave the target, or every line of its file, out of the experiments. */
bool steer_exclude(struct session *, unsigned target, bool is_func, char *msg, size_t size);
bool steer_exclude_file(struct session *, unsigned line_target, char *msg, size_t size);
/* Speedup levels drawn from [lo, hi] percent (0-100: all). */
bool steer_levels(struct session *, unsigned lo, unsigned hi, char *msg, size_t size);
/* Pause or resume experiments; sampling goes on. */
bool steer_pause(struct session *, bool paused, char *msg, size_t size);
/* Forget the target's experiments: its curve starts over. */
bool steer_reset(struct session *, unsigned target, bool is_func, char *msg, size_t size);
/* Experiment on whole functions, or on lines. */
bool steer_granularity(struct session *, bool by_function, char *msg, size_t size);
/* Write the profile now (save.h says where), profiling goes on. */
bool steer_save(struct session *, char *msg, size_t size);
/* End the session: detach (every thread runs on), write the profile. */
void steer_quit(struct session *);

#endif
