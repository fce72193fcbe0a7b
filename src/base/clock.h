/*
 * The supervisor's one clock: CLOCK_MONOTONIC in nanoseconds.  Samples
 * carry the same clock (the sampler's use_clockid), the event loop's
 * timers count on it, and every time the session keeps (experiments,
 * pauses, thread histories) is on it, so that they can be compared.
 */
#ifndef CT_CLOCK_H
# define CT_CLOCK_H

# include <stdint.h>

uint64_t clock_now_ns(void);
/* CLOCK_REALTIME in nanoseconds: the date a profile says it started. */
uint64_t clock_realtime_ns(void);

#endif
