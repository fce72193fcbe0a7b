/*
 * The virtual-speedup accounting (src/calc/delay.c): hits raise G to the
 * largest local (not past G by a thread's overshoot), owed is G - local, wake-ups pass on the waker's local as
 * it was at the wake-up even when events arrive out of order, pauses and
 * forgiveness behave.
 */
#include "config.h"
#include "calc/delay.h"
#include "unit.h"

#define MS 1000000ULL

static void
test_hits_and_owed(void)
{
	struct delay_global g = { 0 };
	struct delay_thread a, b;

	delay_thread_init(&a, &g, 0);
	delay_thread_init(&b, &g, 0);
	delay_hit(&g, &a, 1 * MS, MS / 2);
	delay_hit(&g, &a, 2 * MS, MS / 2);
	CHECK(g.global == MS, "G %llu after two half-ms hits", (unsigned long long) g.global);
	CHECK(delay_owed(&g, &a) == 0, "the hitter owes nothing");
	CHECK(delay_owed(&g, &b) == MS, "the other owes 1 ms");
	/* Two hitters in parallel: G is the largest, not the sum. */
	delay_hit(&g, &b, 3 * MS, MS / 2);
	CHECK(g.global == MS, "a parallel hit behind G does not raise it");
	CHECK(delay_owed(&g, &b) == MS / 2, "b owes the rest");
	delay_paid(&g, &b, 4 * MS, MS / 2);
	CHECK(delay_owed(&g, &b) == 0, "paid");
	/* Overshoot: ahead of G, owes nothing, G does not move. */
	delay_paid(&g, &b, 5 * MS, MS / 4);
	CHECK(g.global == MS && delay_owed(&g, &b) == 0, "overshoot leaves G alone");
	delay_hit(&g, &a, 6 * MS, MS / 2);
	CHECK(delay_owed(&g, &b) == MS / 4, "overshoot counts against the next debt");
	/*
	 * A hit by a thread ahead of G raises G by the hit, from G, not to
	 * its local: others do not pay its overshoot.
	 */
	delay_paid(&g, &b, 7 * MS, MS);		/* b: 3/4 ms ahead of G */
	delay_hit(&g, &b, 8 * MS, MS / 2);
	CHECK(g.global == 2 * MS, "hit from ahead: G %llu, want 2 ms",
	      (unsigned long long) g.global);
	CHECK(delay_owed(&g, &a) == MS / 2, "the other owes the hit only");
	CHECK(delay_owed(&g, &b) == 0 && b.local == 2 * MS + 3 * MS / 4,
	      "the hitter keeps its lead: local %llu", (unsigned long long) b.local);
}

/*
 * Time a thread lost to the experiment itself counts as a hit of that
 * length (G rises from where it stands, the others owe it) but is not a
 * hit: the hits' count, which weighs samples, stays.
 */
static void
test_lost_to_exp(void)
{
	struct delay_global g = { 0 };
	struct delay_thread a, b;

	delay_thread_init(&a, &g, 0);
	delay_thread_init(&b, &g, 0);
	delay_hit(&g, &a, 1 * MS, MS);			/* b owes 1 ms */
	delay_lost_to_exp(&g, &b, 2 * MS, MS / 10);
	CHECK(g.global == MS, "from behind G it does not rise: %llu", (unsigned long long) g.global);
	CHECK(delay_owed(&g, &b) == 9 * MS / 10 && b.hits == 0, "b owes %llu, %llu hits",
	      (unsigned long long) delay_owed(&g, &b), (unsigned long long) b.hits);
	delay_lost_to_exp(&g, &a, 3 * MS, MS / 10);
	CHECK(g.global == 11 * MS / 10 && delay_owed(&g, &a) == 0 && a.hits == 1,
	      "from G: G %llu, a's hits %llu", (unsigned long long) g.global,
	      (unsigned long long) a.hits);
	CHECK(delay_owed(&g, &b) == MS && delay_global_at(&g, 3 * MS) == 11 * MS / 10 &&
	      delay_global_at(&g, 2 * MS) == MS, "b owes %llu; stamped at 3 ms",
	      (unsigned long long) delay_owed(&g, &b));
	CHECK(delay_local_at(&a, 3 * MS) == 11 * MS / 10 && delay_local_at(&a, 2 * MS) == MS,
	      "a's local stamped at 3 ms");
}

/*
 * Time the supervisor took from a thread pays what the thread owes, as a
 * pause would, and no more: G stays, so no other thread owes it.
 */
static void
test_lost(void)
{
	struct delay_global g = { 0 };
	struct delay_thread a, b, c;

	delay_thread_init(&a, &g, 0);
	delay_thread_init(&b, &g, 0);
	delay_thread_init(&c, &g, 0);
	delay_hit(&g, &a, 1 * MS, MS);		/* b and c owe 1 ms */
	delay_paid(&g, &c, 2 * MS, 2 * MS);	/* c 1 ms ahead */
	CHECK(delay_lost(&g, &b, 3 * MS, MS / 4) == MS / 4, "owing: all of it counts");
	CHECK(g.global == MS, "G stays: %llu", (unsigned long long) g.global);
	CHECK(delay_owed(&g, &b) == 3 * MS / 4, "paid down: %llu",
	      (unsigned long long) delay_owed(&g, &b));
	CHECK(delay_owed(&g, &a) == 0, "the others owe nothing more");
	CHECK(delay_local_at(&b, 3 * MS) == MS / 4 && delay_local_at(&b, 2 * MS) == 0,
	      "stamped at the give-back");
	/* Beyond the debt: only the debt counts. */
	CHECK(delay_lost(&g, &b, 4 * MS, MS) == 3 * MS / 4 && b.local == MS,
	      "up to the debt: local %llu", (unsigned long long) b.local);
	/* Ahead of G: nothing counts, nothing moves. */
	CHECK(delay_lost(&g, &c, 5 * MS, MS / 4) == 0 && c.local == 2 * MS && g.global == MS,
	      "from ahead: local %llu, G %llu", (unsigned long long) c.local,
	      (unsigned long long) g.global);
}

static void
test_history(void)
{
	struct delay_global g = { 0 };
	struct delay_thread a;

	delay_thread_init(&a, &g, 10 * MS);
	delay_hit(&g, &a, 11 * MS, 100);
	delay_paid(&g, &a, 20 * MS, 1000);
	/* A hit drained late, older than the pause: every later value rises. */
	delay_hit(&g, &a, 15 * MS, 100);
	CHECK(a.local == 1200, "local %llu", (unsigned long long) a.local);
	CHECK(delay_local_at(&a, 10 * MS) == 0, "at creation");
	CHECK(delay_local_at(&a, 12 * MS) == 100, "after the first hit");
	CHECK(delay_local_at(&a, 16 * MS) == 200, "after the late hit: %llu",
	      (unsigned long long) delay_local_at(&a, 16 * MS));
	CHECK(delay_local_at(&a, 21 * MS) == 1200, "after the pause");
	/* Older than the history: the oldest value known. */
	for (unsigned i = 0; i < 2 * DELAY_HISTORY; i++)
		delay_hit(&g, &a, (30 + i) * MS, 1);
	CHECK(delay_local_at(&a, 0) <= a.local, "bounded");
	CHECK(delay_local_at(&a, 100 * MS) == a.local, "the present");
}

/*
 * The debt owed at the block is hidden by the sleep only as far as paying
 * it would not have been owed again: a hitter still running while it
 * would have paid inserts delay that a pause, unlike a sleep, does not
 * absorb.
 */
static void
test_wake_paying(void)
{
	struct delay_global g = { 0 };
	struct delay_thread hitter, x = { 0 }, y = { 0 }, z = { 0 };

	delay_thread_init(&hitter, &g, 0);
	delay_hit(&g, &hitter, 1 * MS, MS);		/* G 1 ms from 1 ms */
	delay_hit(&g, &hitter, 2 * MS + MS / 2, MS / 2);	/* 1.5 ms from 2.5 ms */
	delay_hit(&g, &hitter, 4 * MS, MS / 2);		/* 2 ms from 4 ms */
	/*
	 * Blocked at 2 ms owing 1 ms, woken at 6 ms by the hitter (G 2 ms):
	 * the 1 ms inserted while it slept, and of its debt, the half not
	 * inserted again in [2, 3] ms.
	 */
	CHECK(delay_wake(&g, &x, 6 * MS, 2 * MS, 2 * MS, 0) == MS + MS / 2,
	      "debt hidden less what paying it would have owed again");
	CHECK(delay_owed(&g, &x) == MS / 2, "that much stays owed");
	/* Blocked at 3 ms owing 1.5 ms: [3, 4.5] ms saw 0.5 ms more inserted. */
	CHECK(delay_wake(&g, &y, 6 * MS, 2 * MS, 3 * MS, 0) == MS / 2 + MS,
	      "owed again only what fell in the payment's window");
	/* Blocked at 4.5 ms owing 2 ms, woken at 6 ms: 1.5 ms slept, nothing inserted since. */
	CHECK(delay_wake(&g, &z, 6 * MS, 2 * MS, 4 * MS + MS / 2, 0) == MS + MS / 2,
	      "a quiet sleep hides its length of debt");
}

static void
test_wake(void)
{
	struct delay_global g = { 0 };
	struct delay_thread hitter, sleeper, joiner;

	delay_thread_init(&hitter, &g, 0);
	delay_thread_init(&sleeper, &g, 0);
	delay_thread_init(&joiner, &g, 0);
	delay_hit(&g, &hitter, 1 * MS, MS);
	delay_hit(&g, &hitter, 5 * MS, MS);
	/* Woken at 3 ms by the hitter: gets what it had then, not later hits. */
	CHECK(delay_wake(&g, &joiner, 3 * MS, delay_local_at(&hitter, 3 * MS), 0, 0) == MS,
	      "credit of the waker's local at the wake-up");
	CHECK(delay_owed(&g, &joiner) == MS, "still owes the later hit");
	/* Never backwards, never beyond G. */
	CHECK(delay_wake(&g, &joiner, 6 * MS, 0, 0, 0) == 0, "a waker behind gives nothing");
	CHECK(delay_wake(&g, &joiner, 6 * MS, 10 * MS, 0, 0) == MS, "capped at G");
	CHECK(delay_owed(&g, &joiner) == 0, "caught up");
	/*
	 * Debt from before it blocked is credited up to the time it slept:
	 * paying it first would only have moved the block later.
	 */
	{
		struct delay_thread w = { 0 }, v = { 0 }, u = { 0 };	/* local 0, G is 2 ms */

		CHECK(delay_global_at(&g, 2 * MS) == MS && delay_global_at(&g, 6 * MS) == 2 * MS,
		      "G's history");
		/* Blocked at 2 ms (G 1 ms) owing 1 ms, woken at 6 ms by a thread at G. */
		CHECK(delay_wake(&g, &w, 6 * MS, 2 * MS, 2 * MS, 0) == 2 * MS,
		      "the sleep and the debt it hid");
		CHECK(delay_owed(&g, &w) == 0, "caught up");
		/* Asleep for half of its debt (woken by a thread at G then, 1 ms): half stays owed. */
		CHECK(delay_wake(&g, &v, 2 * MS + MS / 2, MS, 2 * MS, 0) == MS / 2,
		      "debt hidden only as long as the sleep");
		CHECK(delay_owed(&g, &v) == MS + MS / 2, "the rest stays");
		/* A waker behind gives no more than its own local. */
		CHECK(delay_wake(&g, &u, 6 * MS, MS / 4, 2 * MS, 0) == MS / 4, "capped by the waker");
	}
	/*
	 * Woken by a thread that runs because this one woke it, owing: the
	 * wait does not hide the debt that thread inherited from this one
	 * and has not paid since (circular, engine/account.c).
	 */
	{
		struct delay_thread w = { 0 }, v = { 0 }, x = { 0 };

		CHECK(delay_wake(&g, &w, 6 * MS, 2 * MS, 2 * MS, UINT64_MAX) == MS,
		      "no debt hidden behind a wait for its own wakee");
		CHECK(delay_owed(&g, &w) == MS, "the debt stays owed");
		CHECK(delay_wake(&g, &v, 6 * MS, 2 * MS, 2 * MS, 3 * MS / 4) == MS + MS / 4,
		      "as much as the wakee did not inherit");
		CHECK(delay_wake(&g, &x, 6 * MS, 2 * MS, 2 * MS, 0) == 2 * MS,
		      "a wakee that inherited nothing hides it all");
	}
	test_wake_paying();
	/* The sleeper was woken by no one of ours: it owes everything. */
	CHECK(delay_owed(&g, &sleeper) == 2 * MS, "outside wake-ups owe");
	delay_forgive(&g, &sleeper, 7 * MS);
	CHECK(delay_owed(&g, &sleeper) == 0, "forgiven");
	/* A child starts where its parent is. */
	{
		struct delay_thread child;

		delay_thread_inherit_parent(&child, &sleeper, 8 * MS);
		CHECK(child.local == sleeper.local, "child inherits");
	}
}

int
main(void)
{
	test_hits_and_owed();
	test_lost();
	test_lost_to_exp();
	test_history();
	test_wake();
	return failures ? 1 : 0;
}
