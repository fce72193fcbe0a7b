#include "config.h"
#include "calc/delay.h"

/*
 * Record a change of delta at time t.  Events reach us a few ms late and
 * not in time order (a sample drained after a pause that began later):
 * the history stays sorted by time, and a change raises every value
 * stamped after it as well.
 */
static void
stamp(struct delay_thread *d, uint64_t t, uint64_t delta)
{
	unsigned i = d->hist_n;

	while (i > 0 && d->hist_t[i - 1] > t) {
		d->hist_v[i - 1] += delta;
		i--;
	}
	if (d->hist_n == DELAY_HISTORY) {
		/* Forget the oldest; if the new one is older still, drop it. */
		if (i == 0)
			return;
		for (unsigned k = 1; k < DELAY_HISTORY; k++) {
			d->hist_t[k - 1] = d->hist_t[k];
			d->hist_v[k - 1] = d->hist_v[k];
		}
		d->hist_n--;
		i--;
	}
	for (unsigned k = d->hist_n; k > i; k--) {
		d->hist_t[k] = d->hist_t[k - 1];
		d->hist_v[k] = d->hist_v[k - 1];
	}
	d->hist_t[i] = t;
	d->hist_v[i] = (i ? d->hist_v[i - 1] : d->local - delta) + delta;
	d->hist_n++;
}

void
delay_thread_init(struct delay_thread *d, const struct delay_global *g, uint64_t now)
{
	*d = (struct delay_thread) { .local = g->global };
	stamp(d, now, 0);
}

void
delay_thread_inherit_parent(struct delay_thread *child, const struct delay_thread *parent,
			    uint64_t now)
{
	*child = (struct delay_thread) { .local = parent->local };
	stamp(child, now, 0);
}

static void
stamp_global(struct delay_global *g, uint64_t t)
{
	unsigned last = (g->hist_head + DELAY_G_HISTORY - 1) % DELAY_G_HISTORY;

	/* Hits arrive a little out of order: a rise is stamped no earlier
	   than the last one, which keeps the ring sorted. */
	if (g->hist_n && g->hist_t[last] > t)
		t = g->hist_t[last];
	g->hist_t[g->hist_head] = t;
	g->hist_v[g->hist_head] = g->global;
	g->hist_head = (g->hist_head + 1) % DELAY_G_HISTORY;
	if (g->hist_n < DELAY_G_HISTORY)
		g->hist_n++;
}

uint64_t
delay_global_at(const struct delay_global *g, uint64_t t)
{
	unsigned lo = 0, hi = g->hist_n;

	if (!g->hist_n)
		return g->global;
	/* Binary search over the ring, oldest first: last stamp <= t. */
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		unsigned i = (g->hist_head + DELAY_G_HISTORY - g->hist_n + mid) % DELAY_G_HISTORY;

		if (g->hist_t[i] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		unsigned oldest = (g->hist_head + DELAY_G_HISTORY - g->hist_n) % DELAY_G_HISTORY;

		/* Before the first rise G was 0; past a wrapped ring, unknown:
		   the oldest value (crediting too little rather than too much). */
		return g->hist_n < DELAY_G_HISTORY ? 0 : g->hist_v[oldest];
	}
	return g->hist_v[(g->hist_head + DELAY_G_HISTORY - g->hist_n + lo - 1) % DELAY_G_HISTORY];
}

static void
raise_by(struct delay_global *g, struct delay_thread *d, uint64_t t, uint64_t dl)
{
	/*
	 * G rises by the hit, from where the thread stands, but not by
	 * what it paid beyond G: that is its own credit (delay_paid).
	 * Passed on to G, every other thread would pay the overshoot, and
	 * pass its own on in turn: gt-crowd (threads waiting for a CPU
	 * after each pause, held longer than owed) predicted 0.52 for 0.30.
	 */
	uint64_t from = d->local < g->global ? d->local : g->global;

	d->local += dl;
	if (from + dl > g->global) {
		g->global = from + dl;
		stamp_global(g, t);
	}
	stamp(d, t, dl);
}

void
delay_hit(struct delay_global *g, struct delay_thread *d, uint64_t t, uint64_t dl)
{
	d->hits++;
	raise_by(g, d, t, dl);
}

void
delay_lost_to_exp(struct delay_global *g, struct delay_thread *d, uint64_t t, uint64_t ns)
{
	raise_by(g, d, t, ns);
}

void
delay_paid(struct delay_global *g, struct delay_thread *d, uint64_t t, uint64_t ns)
{
	d->local += ns;
	d->paid_ns += ns;
	d->paid_pending += ns;
	stamp(d, t, ns);
}

uint64_t
delay_lost(const struct delay_global *g, struct delay_thread *d, uint64_t t, uint64_t ns)
{
	uint64_t owed = delay_owed(g, d);

	/* Beyond its debt the time was the machine's, as any other load's. */
	if (ns > owed)
		ns = owed;
	if (!ns)
		return 0;
	d->local += ns;
	stamp(d, t, ns);
	return ns;
}

void
delay_revoke(struct delay_thread *d, uint64_t t, uint64_t ns)
{
	if (ns > d->local)
		ns = d->local;
	d->local -= ns;
	/* Unsigned wrap-around adds -ns to every later stamp. */
	stamp(d, t, (uint64_t) 0 - ns);
}

uint64_t
delay_local_at(const struct delay_thread *d, uint64_t t)
{
	/* The last change at or before t; older than the history: the oldest. */
	for (unsigned i = d->hist_n; i > 0; i--)
		if (d->hist_t[i - 1] <= t)
			return d->hist_v[i - 1];
	return d->hist_n ? d->hist_v[0] : d->local;
}

uint64_t
delay_wake(const struct delay_global *g, struct delay_thread *d, uint64_t t,
	   uint64_t waker_local, uint64_t blocked, uint64_t circular)
{
	return delay_wake_part(g, d, t, waker_local, blocked, circular, 1000);
}

uint64_t
delay_wake_part(const struct delay_global *g, struct delay_thread *d, uint64_t t,
		uint64_t waker_local, uint64_t blocked, uint64_t circular, unsigned permille)
{
	uint64_t to = waker_local < g->global ? waker_local : g->global;
	uint64_t at_block = delay_global_at(g, blocked);
	uint64_t credit, debt, slept, grown;

	if (to <= d->local)
		return 0;
	/* What was inserted while it slept, as far as its waker absorbed it. */
	credit = to > at_block ? to - at_block : 0;
	/*
	 * And what it owed when it blocked, up to the time it slept: paid
	 * first, that debt would have made it block later, to be woken at
	 * the same moment by the same waker.  But a pause is not a sleep:
	 * what was inserted meanwhile (a hitter still running) it would have
	 * owed again.  Credited in full, a stage upstream of a bottleneck
	 * that blocks on a full queue never paid: wl-compress's seal at
	 * 100% predicted 0.76-0.82 for a real 0.68 (now 0.66-0.69).
	 */
	debt = at_block > d->local ? at_block - d->local : 0;
	slept = t > blocked ? t - blocked : 0;
	if (debt > slept)
		debt = slept;
	debt -= debt < circular ? debt : circular;
	grown = delay_global_at(g, blocked + debt);
	grown = grown > at_block ? grown - at_block : 0;
	credit += debt > grown ? debt - grown : 0;
	if (credit > to - d->local)
		credit = to - d->local;
	if (permille < 1000)
		credit = credit * permille / 1000;
	if (!credit)
		return 0;
	d->local += credit;
	d->credited_ns += credit;
	stamp(d, t, credit);
	return credit;
}

uint64_t
delay_owed(const struct delay_global *g, const struct delay_thread *d)
{
	return g->global > d->local ? g->global - d->local : 0;
}

void
delay_forgive(const struct delay_global *g, struct delay_thread *d, uint64_t now)
{
	uint64_t delta = g->global - d->local;

	if (d->local >= g->global)
		return;
	d->local = g->global;
	stamp(d, now, delta);
}
