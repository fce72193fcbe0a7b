/*
 * oversub: a log analyzer that runs more busy threads than there are
 * CPUs, as programs sized by a fixed thread count rather than by the
 * machine's CPUs often do.
 *
 * The log is LINES generated access-log records.  WORKERS threads take
 * records from a shared atomic cursor; each one is parsed into fields
 * (line "parse": 0.3 unit per record, -u, default 1000 us), scored
 * against the anomaly rules (line "score": 0.7 unit), and the result is
 * merged into the shared per-path table under its mutex (line "merge":
 * 0.02 units).  Each item is a record merged.  A background thread at
 * nice 10 (setpriority on its thread id) compacts the table's statistics
 * in a loop: it snapshots the counters under the mutex, then folds the
 * snapshot into decayed rates (line "compact": 0.05 units, outside the
 * lock).  It makes no progress of its own.
 *
 * The six workers and the compactor share the two CPUs, unpinned (-p:
 * workers alternately on CPUs 0 and 1, the compactor on CPU 1).  The
 * workers always have work; the compactor gets the few percent of a CPU
 * that its nice value leaves it, whatever its speed.  So
 *
 *	speeding score by s:	about s * 0.7 / 1.02
 *	speeding parse by s:	about s * 0.3 / 1.02
 *	speeding merge:		about 0
 *	speeding compact:	about 0, or a little negative (it takes the
 *				table's mutex more often)
 *
 * See tests/gt.h and workload.h for the options and the output; at exit
 * it also prints "oversub: records N flagged F paths P compactions C" on
 * stderr.
 */
#include "workload.h"
#include <sys/resource.h>
#include <sys/syscall.h>

#define WORKERS		6
#define PATHS		256
#define RECORDS		4096		/* distinct records, cycled through */
#define COMPACT_NICE	10

enum { PARSE, SCORE, MERGE, COMPACT };

static const struct gt_line oversub_lines[] = {
	[PARSE] = { "parse", 0.3 },
	[SCORE] = { "score", 0.7 },
	[MERGE] = { "merge", 0.02 },
	[COMPACT] = { "compact", 0.05 },
	{ NULL, 0 },
};

/* A log record, and what parsing it gives. */
struct record {
	char text[96];
};

struct fields {
	unsigned path;
	unsigned status;
	unsigned long bytes;
	unsigned long key;
};

struct path_stat {
	unsigned long hits, bytes, errors, flagged;
	unsigned long score_sum;
};

static struct record *records;
static unsigned long cursor;		/* the next record to take */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct path_stat table[PATHS];
static unsigned long table_digest;
static int running = 1;			/* the compactor stops when 0 */
static unsigned long compactions;
static double rate[PATHS];		/* the compactor's decayed hit rates */

static void
make_records(void)
{
	static const char *const verbs[] = { "GET", "GET", "GET", "POST", "PUT", "DELETE" };
	static const unsigned statuses[] = { 200, 200, 200, 200, 304, 404, 500 };
	unsigned long s = 0x3c6ef372;

	records = calloc(RECORDS, sizeof(*records));
	if (!records)
		gt_die("out of memory");
	for (int i = 0; i < RECORDS; i++)
		snprintf(records[i].text, sizeof(records[i].text),
			 "10.0.%lu.%lu %s /api/v1/item%lu %u %lu",
			 bench_rand(&s) % 256, bench_rand(&s) % 256,
			 verbs[bench_rand(&s) % 6], bench_rand(&s) % PATHS,
			 statuses[bench_rand(&s) % 7], bench_rand(&s) % 65536);
}

/* Split a record into its fields; the key digests the whole text. */
static void
parse(const struct record *r, struct fields *f)
{
	unsigned long x = 0, n = gt_n(PARSE);
	char verb[8];

	if (sscanf(r->text, "%*s %7s /api/v1/item%u %u %lu", verb, &f->path,
		   &f->status, &f->bytes) != 4)
		gt_die("bad record '%s'", r->text);
	f->path %= PATHS;
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, (unsigned char)r->text[i & 63]);	/* GT:parse */
	f->key = x;
}

/* The anomaly score of a record: 0 to 99, flagged from 90 up. */
static unsigned
score(const struct fields *f)
{
	unsigned long x = f->key, n = gt_n(SCORE);

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, f->bytes + i);	/* GT:score */
	return (unsigned)(x >> 32) % 100 / (f->status >= 500 ? 1 : 2) + (f->status >= 500) * 50;
}

static void
merge(const struct fields *f, unsigned sc)
{
	struct path_stat *p = &table[f->path];
	unsigned long x, n;

	pthread_mutex_lock(&table_lock);
	p->hits++;
	p->bytes += f->bytes;
	p->errors += f->status >= 400;
	p->flagged += sc >= 90;
	p->score_sum += sc;
	x = table_digest ^ f->key;
	n = gt_n(MERGE);
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, p->hits + i);	/* GT:merge */
	table_digest = x;
	pthread_mutex_unlock(&table_lock);
}

static void *
worker(void *arg GT_UNUSED)
{
	struct fields f;

	while (gt_claim()) {
		unsigned long k = __atomic_fetch_add(&cursor, 1, __ATOMIC_RELAXED);

		parse(&records[k % RECORDS], &f);
		merge(&f, score(&f));
		gt_progress();
	}
	return NULL;
}

/* The compactor: decayed per-path rates from snapshots of the counters. */
static void *
compactor(void *arg GT_UNUSED)
{
	static unsigned long hits[PATHS], last[PATHS];
	unsigned long x = 0, n;

	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), COMPACT_NICE))
		gt_die("setpriority: %s", strerror(errno));
	while (__atomic_load_n(&running, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&table_lock);
		for (int i = 0; i < PATHS; i++)
			hits[i] = table[i].hits;
		pthread_mutex_unlock(&table_lock);

		n = gt_n(COMPACT);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, hits[i % PATHS]);	/* GT:compact */
		for (int i = 0; i < PATHS; i++) {
			rate[i] = rate[i] * 0.9 + (double)(hits[i] - last[i]) * 0.1;
			last[i] = hits[i];
		}
		compactions++;
	}
	gt_sink = x;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS], bg;
	unsigned long flagged = 0, seen = 0, merged = 0;
	int i;

	gt.prog = "oversub";
	gt.n = 3000;
	gt.unit_us = 1000;
	gt.pin = 0;
	gt.lines = oversub_lines;
	gt_init(argc, argv);
	make_records();

	gt_thread(&bg, 1, compactor, NULL);
	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i % 2, worker, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	__atomic_store_n(&running, 0, __ATOMIC_RELAXED);
	pthread_join(bg, NULL);
	gt_report();
	for (i = 0; i < PATHS; i++) {
		merged += table[i].hits;
		flagged += table[i].flagged;
		seen += table[i].hits > 0;
	}
	fprintf(stderr, "oversub: records %lu flagged %lu paths %lu compactions %lu\n",
		merged, flagged, seen, compactions);
	return 0;
}
