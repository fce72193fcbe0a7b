/*
 * libcausaltop-coz.so: lets programs instrumented for Coz (coz.h's
 * COZ_PROGRESS, COZ_PROGRESS_NAMED, COZ_BEGIN, COZ_END) count on
 * causaltop's progress page.  Preload it, or link it in:
 *
 *	LD_PRELOAD=/usr/lib/causaltop/libcausaltop-coz.so ./prog
 *
 * coz.h looks up _coz_get_counter with dlsym(RTLD_DEFAULT) once, then asks
 * it once per call site for a coz_counter_t *, which it increments with a
 * relaxed atomic add.  A causaltop slot starts with the same two words as
 * a coz_counter_t, so a slot pointer is the counter.  The page, its
 * creation and the slot claims are causaltop.h's own: a program that also
 * uses causaltop.h's macros shares the page with this library wherever
 * the dynamic linker binds both to one causaltop_state_v1_.
 *
 * coz.h increments without looking at page->enabled, so these slots count
 * whether or not causaltop is profiling; the supervisor takes differences.
 * coz.h (every version to date) refers to nothing else of Coz's runtime,
 * so nothing else is exported.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "causaltop.h"

/* Coz's layout, from coz.h, which need not be installed to build this. */
typedef struct {
	size_t count;
	size_t backoff;
} coz_counter_t;

/*
 * Where size_t is 64 bits the layouts are the same.  On a 32-bit
 * little-endian target Coz's add lands in the low half of count, which
 * is right modulo 2^32.
 */
typedef char coz_count_first_ok[
	offsetof(coz_counter_t, count) == offsetof(struct causaltop_slot, count) ? 1 : -1];

coz_counter_t *_coz_get_counter(int type, const char *name)
	__attribute__((visibility("default")));

coz_counter_t *
_coz_get_counter(int type, const char *name)
{
	struct causaltop_page *page;
	struct causaltop_slot *slot;

	if (type < CAUSALTOP_KIND_THROUGHPUT || type > CAUSALTOP_KIND_END ||
	    name == NULL)
		return NULL;
	/*
	 * coz.h caches whatever we return for good, NULL included: that a
	 * thread arriving while another makes the page waits for it (in
	 * causaltop_page_get_) matters here too.
	 */
	page = causaltop_page_get_();
	if (page == NULL || page == &causaltop_state_v1_.nopage)
		return NULL;
	slot = causaltop_slot_claim_(page);
	if (slot == NULL)
		return NULL;
	/* Marked, so that reports can tell Coz's points from causaltop.h's. */
	causaltop_slot_publish_(slot, (uint32_t)type | CAUSALTOP_KIND_FROM_COZ, name);
	/* A slot begins with count and backoff, as a coz_counter_t does. */
	return (coz_counter_t *)(void *)slot;
}
