/*
 * pzip: a parallel block compressor built as pigz is: a reader cuts the
 * input into blocks, a pool of compressors deflates them in any order,
 * and a writer puts them out in order, folding each block's check value
 * into the stream's.
 *
 * The reader thread makes each block (line "read": 0.15 unit per block,
 * -u, default 100 us) and queues it on a ring of QCAP blocks (a mutex,
 * two condition variables).  WORKERS compressor threads take the blocks
 * in order and deflate them (line "deflate": one unit per block on
 * average, 2/3 to 4/3 by the block's content), then hand each result
 * to the writer through a reorder window of WINDOW slots under the
 * writer's mutex: a compressor whose block is WINDOW or more ahead of
 * the writer waits for room (pigz bounds its memory so), and a long
 * block holds the others back.  The writer waits for the next block in order, checks it
 * (line "check": 0.3 unit per block, its check value combined into the
 * stream's) and writes it.  Each item is a block written.  A status
 * thread wakes every STATUS_MS milliseconds and formats the progress
 * line (line "status": 3 units), as pigz -v does.
 *
 * Six threads on two CPUs, unpinned (-p: the reader, the writer and
 * compressor 0 on CPU 0, compressors 1 and 2 and the status thread on
 * CPU 1).  The compressors are most of the CPU time; the writer's serial
 * part is less than the time a block takes.  So
 *
 *	speeding deflate by s:	clearly positive
 *	speeding check:		positive, smaller
 *	speeding read:		small positive
 *	speeding status:	about 0
 *
 * Written, and put in the validation set, before causaltop profiled it
 * (2026-12-01).  See tests/gt.h and workload.h for the options and the
 * output; at exit it also prints "pzip: blocks N bytes B held H check C"
 * on stderr (H: how often a compressor waited for room in the window).
 */
#include "workload.h"

#define WORKERS		3
#define QCAP		8		/* blocks read ahead */
#define WINDOW		8		/* blocks compressed ahead of the writer */
#define BLOCK		4096		/* bytes of output per block, nominally */
#define STATUS_MS	10

enum { READ, DEFLATE, CHECK, STATUS };

static const struct gt_line pzip_lines[] = {
	[READ] = { "read", 0.15 },
	[DEFLATE] = { "deflate", 1 },
	[CHECK] = { "check", 0.3 },
	[STATUS] = { "status", 3 },
	{ NULL, 0 },
};

/* A block; seq -1: the compressor is to stop. */
struct block {
	long seq;
	unsigned long data;		/* its content, as a seed */
	unsigned long out;		/* its compressed form, as a digest */
	unsigned len;			/* compressed bytes */
};

static struct block ring[QCAP];
static unsigned r_head, r_count;
static pthread_mutex_t r_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t r_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t r_nonfull = PTHREAD_COND_INITIALIZER;

/* The reorder window: slot seq % WINDOW holds block seq once compressed. */
static struct block window[WINDOW];
static int w_full[WINDOW];
static long w_next;			/* the block the writer wants next */
static long w_total = -1;		/* blocks in all, once the reader knows */
static unsigned long w_held;		/* compressors that waited for room */
static pthread_mutex_t w_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t w_room = PTHREAD_COND_INITIALIZER;

/* The output stream, the writer's own; the status thread reads it. */
static unsigned long out_blocks, out_bytes, out_check;
static int writing = 1;

static void
ring_put(const struct block *b)
{
	pthread_mutex_lock(&r_lock);
	while (r_count == QCAP)
		pthread_cond_wait(&r_nonfull, &r_lock);
	ring[(r_head + r_count++) % QCAP] = *b;
	pthread_cond_signal(&r_nonempty);
	pthread_mutex_unlock(&r_lock);
}

static void
ring_get(struct block *b)
{
	pthread_mutex_lock(&r_lock);
	while (r_count == 0)
		pthread_cond_wait(&r_nonempty, &r_lock);
	*b = ring[r_head];
	r_head = (r_head + 1) % QCAP;
	r_count--;
	pthread_cond_signal(&r_nonfull);
	pthread_mutex_unlock(&r_lock);
}

/* Read block seq of the input: here, make its content. */
static void
read_block(long seq, struct block *b)
{
	unsigned long x = (unsigned long)seq * 0x100000001b3UL, n = gt_n(READ);

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, i);	/* GT:read */
	b->seq = seq;
	b->data = x;
}

static void *
reader(void *arg GT_UNUSED)
{
	struct block b = { 0 };
	long seq;

	for (seq = 0; gt_claim(); seq++) {
		read_block(seq, &b);
		ring_put(&b);
	}
	pthread_mutex_lock(&w_lock);
	w_total = seq;
	pthread_cond_broadcast(&w_ready);
	pthread_mutex_unlock(&w_lock);
	b.seq = -1;
	for (int i = 0; i < WORKERS; i++)
		ring_put(&b);
	return NULL;
}

/*
 * Deflate a block: its cost follows its content (2/3 to 4/3 of the
 * line's work, by the content's top bits), as compressible and random
 * data differ.
 */
static void
deflate_block(struct block *b)
{
	unsigned long r = b->data, x = b->data;
	unsigned long n = gt_n(DEFLATE) * (64 + (bench_rand(&r) >> 58)) / 96;

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, b->data ^ i);	/* GT:deflate */
	b->out = x;
	b->len = BLOCK / 2 + (unsigned)(x % (BLOCK / 2));
}

/* Hand a compressed block to the writer, waiting for room in the window. */
static void
window_put(const struct block *b)
{
	pthread_mutex_lock(&w_lock);
	if (b->seq >= w_next + WINDOW)
		w_held++;
	while (b->seq >= w_next + WINDOW)
		pthread_cond_wait(&w_room, &w_lock);
	window[b->seq % WINDOW] = *b;
	w_full[b->seq % WINDOW] = 1;
	if (b->seq == w_next)
		pthread_cond_signal(&w_ready);
	pthread_mutex_unlock(&w_lock);
}

static void *
compressor(void *arg GT_UNUSED)
{
	struct block b;

	for (;;) {
		ring_get(&b);
		if (b.seq < 0)
			return NULL;
		deflate_block(&b);
		window_put(&b);
	}
}

/* The next block in order, or 0 once all are written. */
static int
window_get(struct block *b)
{
	int slot;

	pthread_mutex_lock(&w_lock);
	slot = (int)(w_next % WINDOW);
	while (!w_full[slot] && w_next != w_total)
		pthread_cond_wait(&w_ready, &w_lock);
	if (!w_full[slot]) {
		pthread_mutex_unlock(&w_lock);
		return 0;
	}
	*b = window[slot];
	w_full[slot] = 0;
	w_next++;
	pthread_cond_broadcast(&w_room);
	pthread_mutex_unlock(&w_lock);
	return 1;
}

/* Check a block and combine its check value into the stream's. */
static void
check_block(const struct block *b)
{
	unsigned long x = b->out, n = gt_n(CHECK);

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, b->len + i);	/* GT:check */
	__atomic_store_n(&out_check, out_check ^ x, __ATOMIC_RELAXED);
	__atomic_store_n(&out_bytes, out_bytes + b->len, __ATOMIC_RELAXED);
	__atomic_store_n(&out_blocks, out_blocks + 1, __ATOMIC_RELAXED);
}

static void *
writer(void *arg GT_UNUSED)
{
	struct block b;

	while (window_get(&b)) {
		check_block(&b);
		gt_progress();
	}
	__atomic_store_n(&writing, 0, __ATOMIC_RELAXED);
	return NULL;
}

/* The progress line: blocks, bytes and rate since the last one. */
static void *
status(void *arg GT_UNUSED)
{
	struct timespec nap = { 0, STATUS_MS * 1000000L };
	unsigned long blocks, bytes, last = 0, x = 0, n;
	char line[96];
	double t0 = gt_now(), now;

	while (__atomic_load_n(&writing, __ATOMIC_RELAXED)) {
		nanosleep(&nap, NULL);
		blocks = __atomic_load_n(&out_blocks, __ATOMIC_RELAXED);
		bytes = __atomic_load_n(&out_bytes, __ATOMIC_RELAXED);
		now = gt_now();
		n = gt_n(STATUS);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, bytes + i);	/* GT:status */
		snprintf(line, sizeof(line), "%lu blocks %lu bytes %.0f blocks/s %02lx",
			 blocks, bytes, (blocks - last) / (now - t0), x & 0xff);
		last = blocks;
		t0 = now;
	}
	gt_sink = x + line[0];
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t rd, wr, st, t[WORKERS];
	int i;

	gt.prog = "pzip";
	gt.n = 15000;
	gt.unit_us = 100;
	gt.pin = 0;
	gt.lines = pzip_lines;
	gt_init(argc, argv);

	gt_thread(&rd, 0, reader, NULL);
	gt_thread(&wr, 0, writer, NULL);
	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i ? 1 : 0, compressor, NULL);
	gt_thread(&st, 1, status, NULL);
	pthread_join(rd, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	pthread_join(wr, NULL);
	pthread_join(st, NULL);
	gt_report();
	fprintf(stderr, "pzip: blocks %lu bytes %lu held %lu check %016lx\n",
		out_blocks, out_bytes, w_held, out_check);
	return 0;
}
