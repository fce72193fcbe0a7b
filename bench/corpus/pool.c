/*
 * pool: an image-tile renderer built as a thread pool behind a bounded
 * queue, with a monitor thread that keeps an eye on the queue, as
 * servers with a health or metrics thread do.
 *
 * A producer thread cuts the scene into tiles and prepares each one's
 * job (line "prepare": 0.1 unit per tile, -u, default 100 us), then
 * pushes it to a queue of QCAP jobs (a mutex, and two condition
 * variables for not empty and not full).  WORKERS pool threads pop the
 * jobs and render them (line "process": one unit per tile), then
 * account the tile in the shared frame statistics under their own mutex
 * (line "account": 0.02 units).  Each item is a tile rendered.
 *
 * A monitor thread loops: it takes the queue's mutex, walks the queued
 * jobs to measure the backlog and the age of the oldest job (one unit
 * with a full queue, under the lock), releases it, then folds the sample
 * into its local histogram (line "monitor": 4 units).  It never sleeps.
 *
 * The five threads share the two CPUs, unpinned (-p: the producer and
 * worker 0 on CPU 0, workers 1 and 2 on CPU 1, the monitor on CPU 0).
 * The workers are the bottleneck; the producer keeps the queue full.
 * While the monitor walks the queue, every worker that finishes its tile
 * blocks on the lock, and soon all have: one CPU runs the walk, the other
 * idles.  The faster the monitor's local work, the more often it walks,
 * the larger the part of the time the pool stands still.  So
 *
 *	speeding process by s:	clearly positive
 *	speeding prepare:	about 0
 *	speeding account:	about 0
 *	speeding monitor:	negative
 *
 * See tests/gt.h and workload.h for the options and the output; at exit
 * it also prints "pool: tiles N pixels P scans S max_backlog B" on stderr.
 */
#include "workload.h"

#define WORKERS		3
#define QCAP		16
#define TILE		32		/* tile side, in pixels */
#define FRAME_TILES	1024		/* tiles per frame */
#define HIST		(QCAP + 1)	/* backlogs 0 to QCAP */

enum { PREPARE, PROCESS, ACCOUNT, MONITOR };

static const struct gt_line pool_lines[] = {
	[PREPARE] = { "prepare", 0.1 },
	[PROCESS] = { "process", 1 },
	[ACCOUNT] = { "account", 0.02 },
	[MONITOR] = { "monitor", 4 },
	{ NULL, 0 },
};

#define SCAN_UNITS	1.0		/* the monitor's walk of a full queue */

/* A tile to render; seq -1: the worker is to stop. */
struct job {
	long seq;
	int tx, ty;
	unsigned long seed;
	double queued;			/* when pushed */
};

static struct job queue[QCAP];
static unsigned q_head, q_count;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_nonfull = PTHREAD_COND_INITIALIZER;

/* The frame statistics, shared by the workers. */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long tiles, pixels, frame_digest;
static unsigned long tile_digest[FRAME_TILES];

static int producing = 1;		/* the monitor stops when 0 */
static unsigned long scans, max_backlog;

static void
queue_put(const struct job *j)
{
	pthread_mutex_lock(&q_lock);
	while (q_count == QCAP)
		pthread_cond_wait(&q_nonfull, &q_lock);
	queue[(q_head + q_count++) % QCAP] = *j;
	pthread_cond_signal(&q_nonempty);
	pthread_mutex_unlock(&q_lock);
}

static void
queue_get(struct job *j)
{
	pthread_mutex_lock(&q_lock);
	while (q_count == 0)
		pthread_cond_wait(&q_nonempty, &q_lock);
	*j = queue[q_head];
	q_head = (q_head + 1) % QCAP;
	q_count--;
	pthread_cond_signal(&q_nonfull);
	pthread_mutex_unlock(&q_lock);
}

/* The job of tile seq: its place, and its seed from the scene. */
static void
prepare(long seq, struct job *j)
{
	unsigned long x = (unsigned long)seq, n = gt_n(PREPARE);

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, i);	/* GT:prepare */
	j->seq = seq;
	j->tx = (int)(seq % FRAME_TILES % 32);
	j->ty = (int)(seq % FRAME_TILES / 32);
	j->seed = x;
}

static void *
producer(void *arg GT_UNUSED)
{
	struct job j;

	for (long seq = 0; gt_claim(); seq++) {
		prepare(seq, &j);
		j.queued = gt_now();
		queue_put(&j);
	}
	j.seq = -1;
	for (int i = 0; i < WORKERS; i++)
		queue_put(&j);
	__atomic_store_n(&producing, 0, __ATOMIC_RELAXED);
	return NULL;
}

/* Render a tile: the shading rounds, then its pixels' sum. */
static unsigned long
render(const struct job *j, unsigned long *lit)
{
	unsigned long x = j->seed, n = gt_n(PROCESS), sum = 0;

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, (unsigned long)j->tx << 8 | j->ty);	/* GT:process */
	for (int p = 0; p < TILE * TILE; p++) {
		unsigned long v = (x >> (p & 63)) & 1;

		sum += v;
		x = BENCH_MIX(x, v);
	}
	*lit = sum;
	return x;
}

/* Account a tile in the frame statistics. */
static void
account(const struct job *j, unsigned long digest, unsigned long lit)
{
	unsigned long x, n;

	pthread_mutex_lock(&stats_lock);
	x = frame_digest ^ digest;
	n = gt_n(ACCOUNT);
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, lit + i);	/* GT:account */
	frame_digest = x;
	tile_digest[j->seq % FRAME_TILES] = digest;
	tiles++;
	pixels += lit;
	pthread_mutex_unlock(&stats_lock);
}

static void *
worker(void *arg GT_UNUSED)
{
	unsigned long digest, lit;
	struct job j;

	for (;;) {
		queue_get(&j);
		if (j.seq < 0)
			return NULL;
		digest = render(&j, &lit);
		account(&j, digest, lit);
		gt_progress();
	}
}

/* The monitor: sample the queue under its lock, then fold the sample. */
static void *
monitor(void *arg GT_UNUSED)
{
	unsigned long hist[HIST] = { 0 }, scan = (unsigned long)(SCAN_UNITS * gt.unit_us * gt.loops_per_us);
	unsigned long x = 0, n, backlog;
	double oldest, now;

	while (__atomic_load_n(&producing, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&q_lock);
		backlog = q_count;
		oldest = q_count ? queue[q_head].queued : 0;
		/* Walk the jobs: per job its share of the scan's cost. */
		for (unsigned q = 0; q < q_count; q++)
			for (unsigned long i = 0; i < scan / QCAP; i++)
				x = BENCH_MIX(x, queue[(q_head + q) % QCAP].seed);
		pthread_mutex_unlock(&q_lock);

		now = gt_now();
		x ^= (unsigned long)((now - oldest) * 1e6);
		n = gt_n(MONITOR);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, hist[i & (HIST - 2)]);	/* GT:monitor */
		hist[backlog]++;
		if (backlog > max_backlog)
			max_backlog = backlog;
		scans++;
	}
	gt_sink = x;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t prod, mon, t[WORKERS];
	int i;

	gt.prog = "pool";
	gt.n = 15000;
	gt.unit_us = 100;
	gt.pin = 0;
	gt.lines = pool_lines;
	gt_init(argc, argv);

	gt_thread(&prod, 0, producer, NULL);
	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i ? 1 : 0, worker, NULL);
	gt_thread(&mon, 0, monitor, NULL);
	pthread_join(prod, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	pthread_join(mon, NULL);
	gt_report();
	fprintf(stderr, "pool: tiles %lu pixels %lu scans %lu max_backlog %lu\n",
		tiles, pixels, scans, max_backlog);
	return 0;
}
