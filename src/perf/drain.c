#include "config.h"
#include <stddef.h>
#include "perf/drain.h"
#include "perf/sampler.h"
#include "perf/wake.h"

void
drain_rings(struct sampler *smp, struct wake *wk, struct sampler_ring *only, enum drain_why why)
{
	sampler_drain(smp, only);
	if (wk && (why == DRAIN_TICK || why == DRAIN_CATCH_UP))
		wake_drain(wk);
}
