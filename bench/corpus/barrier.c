/*
 * barrier: an iterative relaxation solver whose worker threads meet after
 * every sweep at a spin-then-block barrier written by hand, the way the
 * OpenMP and PARSEC runtimes build theirs.
 *
 * The grid (CELLS cells of a 1-D rod) is cut in WORKERS slabs of unequal
 * cost: the slab nearest the heat source needs the most relaxation
 * rounds.  Each sweep, worker w relaxes its slab (line "chunk": 1.0, 0.9,
 * 0.8 and 0.7 units for workers 0 to 3, -u, default 1000 us), then
 * arrives at the barrier.  An early arrival spins on the barrier's
 * generation counter for up to SPIN_STEPS steps (line "spin": a pause
 * loop of 0.006 units, then a look at the generation), and only then
 * sleeps on a condition variable.  The last arrival closes the sweep
 * (the progress point: one item per sweep), bumps the generation and
 * broadcasts.  Worker 3, the lightest, also writes the log record of the
 * previous sweep (line "log": 0.02 units) before it arrives.
 *
 * The four workers share the two CPUs, unpinned (-p: workers 0 and 1 on
 * CPU 0, 2 and 3 on CPU 1).  A spinner holds a CPU that a worker still
 * relaxing its slab could use: the sooner it gives up and sleeps, the
 * sooner the sweep ends.  So
 *
 *	speeding spin by s:	clearly positive (the spin bound is reached
 *				sooner; the CPU goes to the slabs)
 *	speeding chunk:		positive
 *	speeding log:		about 0 (a small share, off the last
 *				arrival's path)
 *
 * See tests/gt.h and workload.h for the options and the output; at exit
 * it also prints "barrier: sweeps N slept S spun P checksum C" on stderr.
 */
#include "workload.h"

#define WORKERS		4
#define CELLS		4096
#define SLAB		(CELLS / WORKERS)
#define SPIN_STEPS	150		/* spin steps before sleeping: 0.9 units */

enum { CHUNK, SPIN, LOG };

static const struct gt_line barrier_lines[] = {
	[CHUNK] = { "chunk", 1 },
	[SPIN] = { "spin", 0.006 },
	[LOG] = { "log", 0.02 },
	{ NULL, 0 },
};

/* Each slab's share of a chunk's relaxation rounds. */
static const double slab_cost[WORKERS] = { 1.0, 0.9, 0.8, 0.7 };

/*
 * The barrier: arrivals counted atomically, the generation bumped by the
 * last one; sleepers wait on cond for the generation to change.
 */
struct spin_barrier {
	unsigned arrived;
	unsigned gen;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long slept, spun;	/* under lock / atomic */
};

static struct spin_barrier bar = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* The rod, double-buffered: sweep k reads grid[k & 1], writes the other. */
static unsigned long grid[2][CELLS];
static unsigned long slab_sum[WORKERS];
static int more = 1;			/* another sweep: set by the last arrival */
static long sweeps;
static unsigned long checksum;
static char log_buf[4096];
static size_t log_len;

static void
grid_init(void)
{
	unsigned long s = 0x6a09e667;

	for (int i = 0; i < CELLS; i++)
		grid[0][i] = bench_rand(&s) >> 40;
	grid[0][0] = 1UL << 24;		/* the heat source */
}

/* Relax slab w from grid[from] into the other buffer. */
static void
relax_slab(int w, int from)
{
	const unsigned long *cur = grid[from];
	unsigned long *next = grid[from ^ 1], x, n, sum = 0;
	int lo = w * SLAB, hi = lo + SLAB;

	x = cur[lo] ^ (unsigned long)w;
	n = (unsigned long)(gt_n(CHUNK) * slab_cost[w] + 0.5);
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, cur[lo + (i & (SLAB - 1))]);	/* GT:chunk */
	for (int i = lo; i < hi; i++) {
		unsigned long l = cur[i > 0 ? i - 1 : i], r = cur[i < CELLS - 1 ? i + 1 : i];

		next[i] = (l + 2 * cur[i] + r) / 4;
		sum += next[i];
	}
	next[lo] ^= x & 1;		/* the rounds' parity: keeps them live */
	slab_sum[w] = sum;
}

/* What the last arrival does before releasing the others. */
static void
close_sweep(void)
{
	unsigned long total = 0;

	for (int w = 0; w < WORKERS; w++)
		total += slab_sum[w];
	checksum = checksum * 31 + total;
	sweeps++;
	gt_progress();
	__atomic_store_n(&more, gt_claim(), __ATOMIC_RELAXED);
}

static void
barrier_wait(struct spin_barrier *b)
{
	unsigned gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE), n;

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == WORKERS) {
		b->arrived = 0;
		close_sweep();
		pthread_mutex_lock(&b->lock);
		__atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->lock);
		return;
	}
	/* Spin a while: the others may be about to arrive. */
	for (int s = 0; s < SPIN_STEPS; s++) {
		if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != gen)
			return;
		n = gt_n(SPIN);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:spin */
		__atomic_add_fetch(&b->spun, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&b->lock);
	if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
		b->slept++;
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
		pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

/*
 * The log record of the sweep before k: a digest of its checksum (set
 * before the barrier released this sweep, so stable now), and the line.
 */
static void
log_sweep(long k)
{
	unsigned long c = checksum, x = (unsigned long)k, n = gt_n(LOG);
	char rec[128];
	int len;

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, c ^ i);	/* GT:log */
	len = snprintf(rec, sizeof(rec), "sweep %ld digest %016lx\n", k - 1, x);
	if (log_len + len >= sizeof(log_buf))
		log_len = 0;		/* a ring: only the recent records matter */
	memcpy(log_buf + log_len, rec, len);
	log_len += len;
}

static void *
worker(void *arg)
{
	int w = (int)(long)arg;

	for (long k = 0; __atomic_load_n(&more, __ATOMIC_ACQUIRE); k++) {
		relax_slab(w, k & 1);
		if (w == WORKERS - 1)
			log_sweep(k);
		barrier_wait(&bar);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	int i;

	gt.prog = "barrier";
	gt.n = 500;
	gt.unit_us = 1000;
	gt.pin = 0;
	gt.lines = barrier_lines;
	gt_init(argc, argv);
	grid_init();

	more = gt_claim();
	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i / 2, worker, (void *)(long)i);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	gt_report();
	fprintf(stderr, "barrier: sweeps %ld slept %lu spun %lu checksum %016lx\n",
		sweeps, bar.slept, bar.spun, checksum);
	return 0;
}
