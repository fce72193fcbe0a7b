/*
 * workload.h: what the realistic bench workloads (bench/wl-*.c) share.
 *
 * They are built on tests/gt.h, the ground-truth workloads' frame: the
 * same options (-n items, -u unit, -k NAME=PCT knobs, -c/-C calibration,
 * -p/-P pinning, -a alternation, -v), the same "gt: items N wall S
 * per_item_us X" report, and lines marked GT:NAME whose work a knob
 * really scales.  What differs is the progress point: here it is Coz's
 * COZ_PROGRESS_NAMED("item") from coz.h, which Coz counts through its
 * libcoz and causaltop through libcausaltop-coz.so (preloaded into the
 * commands it launches), so that both tools read the very same point.
 * Unprofiled, the macro finds no _coz_get_counter and counts nothing.
 *
 * A marked line's work is a chain of dependent multiply-adds, like
 * gt.h's loops (so gt.h's calibration holds for it), that feeds a value
 * the program really uses: a hash, a seal, a tag.  BENCH_MIX is that step.
 */
#ifndef CT_BENCH_WORKLOAD_H
# define CT_BENCH_WORKLOAD_H

# ifndef _GNU_SOURCE
#  define _GNU_SOURCE
# endif

# if defined(__has_include)
#  if __has_include(<coz.h>)
#   include <coz.h>
#   define BENCH_HAVE_COZ_H 1
#  endif
# endif
# ifndef BENCH_HAVE_COZ_H
/* What coz.h's COZ_PROGRESS_NAMED boils down to, for builds without it. */
#  include <dlfcn.h>
#  include <stddef.h>
typedef struct {
	size_t count;
	size_t backoff;
} coz_counter_t;
#  define COZ_PROGRESS_NAMED(name) do { \
		static int coz_init_; \
		static coz_counter_t *coz_counter_; \
		if (!coz_init_) { \
			coz_counter_t *(*get_)(int, const char *); \
			void *p_ = dlsym(RTLD_DEFAULT, "_coz_get_counter"); \
			*(void **)&get_ = p_; \
			coz_counter_ = get_ ? get_(1, (name)) : NULL; \
			coz_init_ = 1; \
		} \
		if (coz_counter_) \
			__atomic_add_fetch(&coz_counter_->count, 1, __ATOMIC_RELAXED); \
	} while (0)
# endif

# define GT_PROGRESS_POINT() COZ_PROGRESS_NAMED("item")
# include "gt.h"

/* One step of a marked line's work: x absorbs v. */
# define BENCH_MIX(x, v)	((x) * GT_MUL + (v))

/* A work loop's count split over `parts` pieces (at least 1 each, if any). */
static inline unsigned long
bench_share(unsigned long n, unsigned long parts)
{
	unsigned long k = parts ? n / parts : n;

	return n && !k ? 1 : k;
}

/* Deterministic pseudo-random numbers (xorshift64*), one state per user. */
static inline unsigned long
bench_rand(unsigned long *s)
{
	unsigned long x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dUL;
}

#endif
