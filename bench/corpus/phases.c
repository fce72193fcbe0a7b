/*
 * phases: k-means clustering in phases, as data-parallel codes (k-means,
 * stencils, PARSEC's streamcluster) are built: a parallel phase, a
 * barrier, a serial phase, a barrier, again and again.
 *
 * POINTS points in the plane, K clusters.  Each iteration, WORKERS
 * threads assign their half of the points to the nearest centroid and
 * sum them per cluster (line "assign": one unit per worker, -u, default
 * 4000 us: the distance work of a higher-dimensional data set, whose
 * digest breaks ties), and meet at a pthread barrier.  Then worker 0
 * alone reduces the partial sums into the new centroids and checks for
 * convergence (line "reduce": 0.6 units), while the other worker waits
 * at the second barrier.  Meanwhile a checkpoint thread, which waited
 * at the first barrier too, copies the iteration's labels and digests
 * them (line "snapshot": 0.2 units), then joins the second barrier.
 * Each iteration is an item: progress comes in bursts, one every ~7 ms.
 *
 * The three threads share the two CPUs, unpinned (-p: the workers on
 * CPUs 0 and 1, the checkpoint thread on CPU 1).  The parallel phase
 * keeps both CPUs busy; the serial one only one, and the checkpoint
 * fits in the other's slack.  So
 *
 *	speeding assign by s:	about s * 4/7
 *	speeding reduce by s:	about s * 2.4/7 (Amdahl)
 *	speeding snapshot:	about 0 (it ends before the reduction does)
 *
 * See tests/gt.h and workload.h for the options and the output; at exit
 * it also prints "phases: iterations N moved M checkpoint C" on stderr.
 */
#include "workload.h"

#define WORKERS		2
#define POINTS		4096
#define PER_WORKER	(POINTS / WORKERS)
#define K		8

enum { ASSIGN, REDUCE, SNAPSHOT };

static const struct gt_line phases_lines[] = {
	[ASSIGN] = { "assign", 1 },
	[REDUCE] = { "reduce", 0.6 },
	[SNAPSHOT] = { "snapshot", 0.2 },
	{ NULL, 0 },
};

struct point {
	double x, y;
};

/* A worker's partial sums, on a cache line of their own. */
struct partial {
	double sx[K], sy[K];
	long count[K];
	long moved;
} __attribute__((aligned(64)));

static struct point points[POINTS];
static struct point centroid[K];
static unsigned long centroid_sig[K];
static int label[POINTS];
static int saved_label[POINTS];		/* the checkpoint */
static struct partial part[WORKERS];
static pthread_barrier_t phase_end, reduce_end;
static int more = 1;			/* another iteration: set by worker 0 */
static long iterations, total_moved;
static unsigned long checkpoint;

/* K blobs of points around random centers, and the first K as seeds. */
static void
make_points(void)
{
	unsigned long s = 0xbb67ae85;

	for (int i = 0; i < POINTS; i++) {
		int c = i % K;
		double u = (bench_rand(&s) >> 11) * 0x1p-53;
		double v = (bench_rand(&s) >> 11) * 0x1p-53;

		points[i].x = c * 10.0 + (u - 0.5) * 14;
		points[i].y = (c % 3) * 7.0 + (v - 0.5) * 14;
		label[i] = -1;
	}
	for (int c = 0; c < K; c++)
		centroid[c] = points[c * 97 % POINTS];
}

/* Assign worker w's points; their sums go to part[w]. */
static void
assign(int w)
{
	struct partial *p = &part[w];
	unsigned long rounds = bench_share(gt_n(ASSIGN), PER_WORKER), x;

	memset(p, 0, sizeof(*p));
	for (int i = w * PER_WORKER; i < (w + 1) * PER_WORKER; i++) {
		double best_d = 1e300;
		int best = 0;

		x = (unsigned long)i;
		for (unsigned long r = 0; r < rounds; r++) x = BENCH_MIX(x, centroid_sig[r & (K - 1)]);	/* GT:assign */
		for (int c = 0; c < K; c++) {
			double dx = points[i].x - centroid[c].x, dy = points[i].y - centroid[c].y;
			double d = dx * dx + dy * dy;

			/* Ties go one way or the other as the digest says. */
			if (d < best_d || (d == best_d && (x >> c & 1))) {
				best_d = d;
				best = c;
			}
		}
		p->moved += label[i] != best;
		label[i] = best;
		p->sx[best] += points[i].x;
		p->sy[best] += points[i].y;
		p->count[best]++;
	}
}

/* Worker 0, between the barriers: the new centroids from the sums. */
static void
reduce(void)
{
	unsigned long rounds = bench_share(gt_n(REDUCE), K), x;
	long moved = 0;

	for (int c = 0; c < K; c++) {
		double sx = 0, sy = 0;
		long n = 0;

		for (int w = 0; w < WORKERS; w++) {
			sx += part[w].sx[c];
			sy += part[w].sy[c];
			n += part[w].count[c];
		}
		if (n) {
			centroid[c].x = sx / n;
			centroid[c].y = sy / n;
		}
		x = (unsigned long)n ^ (unsigned long)c;
		for (unsigned long r = 0; r < rounds; r++) x = BENCH_MIX(x, (unsigned long)(sx * 1e3) + r);	/* GT:reduce */
		centroid_sig[c] = x;
	}
	for (int w = 0; w < WORKERS; w++)
		moved += part[w].moved;
	total_moved += moved;
	iterations++;
}

/* The checkpoint thread, between the barriers: save the labels. */
static void
snapshot(void)
{
	unsigned long rounds = bench_share(gt_n(SNAPSHOT), K), x = checkpoint;

	memcpy(saved_label, label, sizeof(label));
	for (int c = 0; c < K; c++)
		for (unsigned long r = 0; r < rounds; r++) x = BENCH_MIX(x, saved_label[(r * K + c) & (POINTS - 1)]);	/* GT:snapshot */
	checkpoint = x;
}

static void *
worker(void *arg)
{
	int w = (int)(long)arg;

	while (__atomic_load_n(&more, __ATOMIC_RELAXED)) {
		assign(w);
		pthread_barrier_wait(&phase_end);
		if (w == 0) {
			reduce();
			gt_progress();
			__atomic_store_n(&more, gt_claim(), __ATOMIC_RELAXED);
		}
		pthread_barrier_wait(&reduce_end);
	}
	return NULL;
}

static void *
checkpointer(void *arg GT_UNUSED)
{
	while (__atomic_load_n(&more, __ATOMIC_RELAXED)) {
		pthread_barrier_wait(&phase_end);
		snapshot();
		pthread_barrier_wait(&reduce_end);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS], ck;
	int i;

	gt.prog = "phases";
	gt.n = 250;
	gt.unit_us = 4000;
	gt.pin = 0;
	gt.lines = phases_lines;
	gt_init(argc, argv);
	make_points();
	pthread_barrier_init(&phase_end, NULL, WORKERS + 1);
	pthread_barrier_init(&reduce_end, NULL, WORKERS + 1);

	more = gt_claim();
	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i, worker, (void *)(long)i);
	gt_thread(&ck, 1, checkpointer, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	pthread_join(ck, NULL);
	gt_report();
	fprintf(stderr, "phases: iterations %ld moved %ld checkpoint %016lx\n",
		iterations, total_moved, checkpoint);
	return 0;
}
