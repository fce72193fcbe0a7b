/*
 * wl-compress: a parallel block compressor with zlib, in a reader /
 * workers / writer pipeline, as pigz or pbzip2 are built.
 *
 * The reader cuts the input (generated text) into blocks of BLOCK bytes
 * and fills buffers of a ring of NBUF (line "fill": a tenth of a unit
 * per block, -u, default 1000 us, for decoding the input format); two
 * workers deflate the filled blocks (zlib level 6, about 0.8 ms of CPU
 * per block here); the writer takes the compressed blocks in order,
 * seals each with a keyed digest of its CRC (line "seal": three units
 * per block) and writes it out, to /dev/null.  Each item is a block
 * written.
 *
 * Threads are pinned: the writer has CPU 1 to itself, the reader and the
 * workers share CPU 0.  The writer is then the bottleneck, at 3 units per
 * block against about one for everything else on CPU 0, and:
 *
 *	speeding seal by s:	s, until CPU 0's share (reading and
 *				deflating) bounds the rate: 0.25, 0.5 and
 *				about 0.65 for 25, 50 and 100%
 *	speeding fill:		0
 *
 * See tests/gt.h and workload.h for the options and the output; at exit
 * it also prints "compress: blocks N in BYTES out BYTES" on stderr.
 */
#include "workload.h"
#include <fcntl.h>
#include <zlib.h>

#define WORKERS		2
#define BLOCK		32768
#define NBUF		8
#define INPUT		(1 << 20)	/* generated input, cycled through */
#define LEVEL		6

enum { FILL, SEAL };

static const struct gt_line compress_lines[] = {
	[FILL] = { "fill", 0.1 },
	[SEAL] = { "seal", 3 },
	{ NULL, 0 },
};

enum slot_state { FREE, FILLED, BUSY, COMPRESSED };

struct slot {
	enum slot_state state;
	long seq;			/* block number */
	unsigned long tag;		/* the reader's decode digest */
	uLongf out_len;
	unsigned char in[BLOCK];
	unsigned char *out;
};

static unsigned char *input;
static struct slot ring[NBUF];
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_changed = PTHREAD_COND_INITIALIZER;
static long blocks = -1;		/* total, once the reader is done */
static int out_fd;
static unsigned long long bytes_in, bytes_out;

/* Text of words and numbers, about 4:1 compressible by deflate. */
static void
make_input(void)
{
	static const char *const words[] = {
		"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ",
		"dog ", "lorem ", "ipsum ", "causal ", "profile ", "zebra ",
		"quartz ", "block ", "stream ", "\n",
	};
	const size_t nw = sizeof(words) / sizeof(words[0]);
	unsigned long s = 0xb10c;
	size_t i = 0;

	input = malloc(INPUT);
	if (!input)
		gt_die("out of memory");
	while (i < INPUT) {
		const char *w = words[bench_rand(&s) % nw];

		while (*w && i < INPUT)
			input[i++] = *w++;
		if (bench_rand(&s) % 5 == 0 && i < INPUT)
			input[i++] = '0' + bench_rand(&s) % 10;
	}
}

static void
wait_ring(void)
{
	pthread_cond_wait(&ring_changed, &ring_lock);
}

static void
ring_signal(void)
{
	pthread_cond_broadcast(&ring_changed);
}

static void *
reader(void *arg GT_UNUSED)
{
	long seq;

	for (seq = 0; gt_claim(); seq++) {
		struct slot *sl = &ring[seq % NBUF];
		size_t off = (size_t)seq * BLOCK % INPUT;
		unsigned long n, x = 0;

		pthread_mutex_lock(&ring_lock);
		while (sl->state != FREE)
			wait_ring();
		pthread_mutex_unlock(&ring_lock);

		memcpy(sl->in, input + off, BLOCK);
		n = gt_n(FILL);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, sl->in[i % BLOCK]);	/* GT:fill */
		sl->tag = x;

		pthread_mutex_lock(&ring_lock);
		sl->seq = seq;
		sl->state = FILLED;
		ring_signal();
		pthread_mutex_unlock(&ring_lock);
	}
	pthread_mutex_lock(&ring_lock);
	blocks = seq;
	ring_signal();
	pthread_mutex_unlock(&ring_lock);
	return NULL;
}

/* The filled block with the lowest number, or NULL. */
static struct slot *
oldest_filled(void)
{
	struct slot *best = NULL;

	for (int i = 0; i < NBUF; i++)
		if (ring[i].state == FILLED && (!best || ring[i].seq < best->seq))
			best = &ring[i];
	return best;
}

static void *
worker(void *arg GT_UNUSED)
{
	struct slot *sl;

	for (;;) {
		pthread_mutex_lock(&ring_lock);
		while (!(sl = oldest_filled()) && blocks < 0)
			wait_ring();
		if (!sl) {
			pthread_mutex_unlock(&ring_lock);
			return NULL;
		}
		sl->state = BUSY;
		pthread_mutex_unlock(&ring_lock);

		sl->out_len = compressBound(BLOCK);
		if (compress2(sl->out, &sl->out_len, sl->in, BLOCK, LEVEL) != Z_OK)
			gt_die("compress2 failed");

		pthread_mutex_lock(&ring_lock);
		sl->state = COMPRESSED;
		ring_signal();
		pthread_mutex_unlock(&ring_lock);
	}
}

static void
write_all(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(out_fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			gt_die("write: %s", strerror(errno));
		p += k;
		len -= k;
	}
}

static void *
writer(void *arg GT_UNUSED)
{
	long seq;

	for (seq = 0;; seq++) {
		struct slot *sl = &ring[seq % NBUF];
		unsigned long hdr[3], n, x;
		int end = 0;

		pthread_mutex_lock(&ring_lock);
		while (!(sl->state == COMPRESSED && sl->seq == seq)) {
			if ((end = blocks >= 0 && seq >= blocks))
				break;
			wait_ring();
		}
		pthread_mutex_unlock(&ring_lock);
		if (end)
			return NULL;

		x = crc32(0, sl->out, sl->out_len) ^ sl->tag;
		n = gt_n(SEAL);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, i);	/* GT:seal */
		hdr[0] = seq;
		hdr[1] = sl->out_len;
		hdr[2] = x;
		write_all(hdr, sizeof(hdr));
		write_all(sl->out, sl->out_len);
		bytes_in += BLOCK;
		bytes_out += sizeof(hdr) + sl->out_len;

		pthread_mutex_lock(&ring_lock);
		sl->state = FREE;
		ring_signal();
		pthread_mutex_unlock(&ring_lock);
		gt_progress();
	}
}

int
main(int argc, char **argv)
{
	pthread_t r, w[WORKERS], wr;
	int i;

	gt.prog = "wl-compress";
	gt.n = 700;
	gt.unit_us = 1000;
	gt.pin = 1;
	gt.lines = compress_lines;
	gt_init(argc, argv);
	make_input();
	for (i = 0; i < NBUF; i++) {
		ring[i].out = malloc(compressBound(BLOCK));
		if (!ring[i].out)
			gt_die("out of memory");
	}
	out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd < 0)
		gt_die("/dev/null: %s", strerror(errno));

	gt_thread(&wr, 1, writer, NULL);
	for (i = 0; i < WORKERS; i++)
		gt_thread(&w[i], 0, worker, NULL);
	gt_thread(&r, 0, reader, NULL);
	pthread_join(r, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(wr, NULL);
	gt_report();
	fprintf(stderr, "compress: blocks %ld in %llu out %llu\n", blocks, bytes_in, bytes_out);
	return 0;
}
