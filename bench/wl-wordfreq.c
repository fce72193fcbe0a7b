/*
 * wl-wordfreq: word frequencies of a generated corpus, counted by two
 * worker threads into one hash table under one lock.
 *
 * The corpus is text made of pseudo-words drawn from a vocabulary with a
 * Zipf-like law, cut in chunks of WORDS words.  Each item is one chunk:
 * a worker splits it into words (lower-cased), line "normalize" folds
 * each word into a signature (half a unit per chunk, -u, default 1000 us,
 * outside the lock), then, under the table's lock, line "hash" computes
 * each word's bucket with a keyed, stretched hash (one unit per chunk)
 * and the word is found or inserted and counted.  Hashing under the lock
 * is the bug: the lock bounds the rate at one chunk per unit while the
 * two CPUs could do one per 0.75 unit.
 *
 *	speeding hash by s:	about s up to s = 0.5, then less
 *	speeding normalize:	about 0
 *
 * Workers are pinned to CPUs 0 and 1 (-P: not), one each, so that both
 * always have a CPU of their own.  See tests/gt.h and workload.h for the
 * options and the output; at exit it also prints "wordfreq: words W
 * distinct D top WORD COUNT" on stderr.
 */
#include "workload.h"
#include <ctype.h>
#include <math.h>

#define WORKERS		2
#define WORDS		256		/* words per chunk */
#define CHUNKS		512		/* distinct chunks, cycled through */
#define VOCAB		8192
#define BUCKETS		16384
#define MAXWORD		32

enum { NORMALIZE, HASH };

static const struct gt_line wordfreq_lines[] = {
	[NORMALIZE] = { "normalize", 0.5 },
	[HASH] = { "hash", 1 },
	{ NULL, 0 },
};

struct entry {
	struct entry *next;
	unsigned long sig;
	unsigned long count;
	char word[MAXWORD];
};

static char *corpus;
static size_t chunk_start[CHUNKS + 1];
static unsigned long next_chunk;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table[BUCKETS];
static unsigned long distinct, counted;

/* A vocabulary of pronounceable pseudo-words, some capitalized. */
static void
make_vocab(char vocab[][MAXWORD])
{
	static const char cons[] = "bcdfghjklmnprstvwz", vow[] = "aeiou";
	unsigned long s = 0x5eed;

	for (int i = 0; i < VOCAB; i++) {
		int syll = 1 + bench_rand(&s) % 4, k = 0;

		for (int j = 0; j < syll; j++) {
			vocab[i][k++] = cons[bench_rand(&s) % (sizeof(cons) - 1)];
			vocab[i][k++] = vow[bench_rand(&s) % (sizeof(vow) - 1)];
			if (bench_rand(&s) % 3 == 0)
				vocab[i][k++] = cons[bench_rand(&s) % (sizeof(cons) - 1)];
		}
		if (bench_rand(&s) % 8 == 0)
			vocab[i][0] = toupper((unsigned char)vocab[i][0]);
		vocab[i][k] = '\0';
	}
}

/* CHUNKS chunks of WORDS words; word ranks are log-uniform (Zipf-like). */
static void
make_corpus(void)
{
	static char vocab[VOCAB][MAXWORD];
	size_t cap = (size_t)CHUNKS * WORDS * (MAXWORD + 2), len = 0;
	unsigned long s = 0xc0ffee;

	make_vocab(vocab);
	corpus = malloc(cap);
	if (!corpus)
		gt_die("out of memory");
	for (int c = 0; c < CHUNKS; c++) {
		chunk_start[c] = len;
		for (int w = 0; w < WORDS; w++) {
			double u = (bench_rand(&s) >> 11) * 0x1p-53;
			int rank = (int)exp(u * log(VOCAB)) - 1;
			const char *p = vocab[rank];
			unsigned long r = bench_rand(&s) % 16;

			len += sprintf(corpus + len, "%s%s", p,
				       r == 0 ? ".\n" : r == 1 ? ", " : " ");
		}
	}
	chunk_start[CHUNKS] = len;
}

/* Split a chunk into lower-cased words; returns their number. */
static int
tokenize(const char *p, const char *end, char words[][MAXWORD])
{
	int n = 0;

	while (p < end && n < WORDS) {
		int k = 0;

		while (p < end && !isalpha((unsigned char)*p))
			p++;
		while (p < end && isalpha((unsigned char)*p)) {
			if (k < MAXWORD - 1)
				words[n][k++] = tolower((unsigned char)*p);
			p++;
		}
		if (k) {
			words[n][k] = '\0';
			n++;
		}
	}
	return n;
}

/* FNV-1a of a word: the seed of its signature and of its hash. */
static unsigned long
fold(const char *w)
{
	unsigned long h = 0xcbf29ce484222325UL;

	while (*w)
		h = (h ^ (unsigned char)*w++) * 0x100000001b3UL;
	return h;
}

static void
count_chunk(long c)
{
	char words[WORDS][MAXWORD];
	unsigned long key[WORDS], sig[WORDS], rounds, x;
	int n = tokenize(corpus + chunk_start[c], corpus + chunk_start[c + 1], words);

	rounds = bench_share(gt_n(NORMALIZE), n);
	for (int w = 0; w < n; w++) {
		key[w] = x = fold(words[w]);
		for (unsigned long r = 0; r < rounds; r++) x = BENCH_MIX(x, r);	/* GT:normalize */
		sig[w] = x;
	}

	pthread_mutex_lock(&table_lock);
	rounds = bench_share(gt_n(HASH), n);
	for (int w = 0; w < n; w++) {
		struct entry *e;
		unsigned long h = key[w];

		for (unsigned long r = 0; r < rounds; r++) h = BENCH_MIX(h, key[w] ^ r);	/* GT:hash */
		for (e = table[h % BUCKETS]; e; e = e->next)
			if (!strcmp(e->word, words[w]))
				break;
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				gt_die("out of memory");
			strcpy(e->word, words[w]);
			e->sig = sig[w];
			e->next = table[h % BUCKETS];
			table[h % BUCKETS] = e;
			distinct++;
		}
		e->count++;
		counted++;
	}
	pthread_mutex_unlock(&table_lock);
}

static void *
worker(void *arg GT_UNUSED)
{
	while (gt_claim()) {
		long c = __atomic_fetch_add(&next_chunk, 1, __ATOMIC_RELAXED) % CHUNKS;

		count_chunk(c);
		gt_progress();
	}
	return NULL;
}

static void
report_top(void)
{
	const struct entry *top = NULL;

	for (int b = 0; b < BUCKETS; b++)
		for (const struct entry *e = table[b]; e; e = e->next)
			if (!top || e->count > top->count)
				top = e;
	fprintf(stderr, "wordfreq: words %lu distinct %lu top %s %lu\n",
		counted, distinct, top ? top->word : "-", top ? top->count : 0);
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	int i;

	gt.prog = "wl-wordfreq";
	gt.n = 2000;
	gt.unit_us = 1000;
	gt.pin = 1;
	gt.lines = wordfreq_lines;
	gt_init(argc, argv);
	make_corpus();

	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i, worker, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	gt_report();
	report_top();
	return 0;
}
