/*
 * kvstore: an in-memory key-value store fed by client threads, with one
 * global lock, malloc'ed records and a janitor that expires old ones.
 *
 * Three client threads each generate records: a key drawn from KEYS keys
 * and a value of 32 to 480 bytes, sealed with a tag (line "build": a
 * quarter of a unit per record, -u, default 50 us, outside the lock).
 * Each record is copied into a node of its own size from malloc, then
 * inserted into a chained hash table under the store's one mutex, where
 * line "insert" (one unit per record) computes the record's checksum,
 * whose low bits pick the bucket; a record that overwrites its key
 * unlinks the old version, freed once the lock is dropped.  Each item is
 * a record inserted.  The store starts warm, with PRELOAD old records.
 *
 * A janitor thread loops: it tries the same lock, and if it gets it,
 * walks SCAN buckets (a quarter of the table: about two units), evicting
 * the records whose time to live has run out, checking that each other
 * sits in its checksum's bucket and folding it into an audit digest; it
 * drops the lock, frees what it evicted and digests it into its expiry
 * report (line "janitor": four units per try, no lock held).  It does
 * not queue for the lock behind the clients (only after MAX_MISSES
 * tries in a row), and never sleeps: the faster its own work, the more
 * often it tries the lock, and the more often it gets it.
 *
 * The lock is the bottleneck: while one client holds it, the others are
 * mostly asleep on it, and the janitor has the other CPU.  So
 *
 *	speeding insert by s:	most of s
 *	speeding build:		some (it is on the lock's path, and
 *				the lock is free less often for the janitor)
 *	speeding janitor:	a slowdown: its passes keep the clients out
 *				of the lock more often
 *
 * Threads are not pinned (-p: clients on CPUs 0, 1, 0, the janitor on
 * CPU 1).  See tests/gt.h and workload.h for the options and the output;
 * at exit it also prints "kvstore: inserts I overwrites O evictions E
 * live L passes P misses M digest D" on stderr.
 */
#include "workload.h"

#define CLIENTS		3
#define KEYS		32768
#define BUCKETS		4096
#define SCAN		1024		/* buckets per janitor pass */
#define MAX_MISSES	32		/* passes put off before it waits */
#define AUDIT		64		/* rounds per record checked */
#define TTL_MIN		2048		/* a record's life, in inserts */
#define TTL_SPAN	4096
#define PRELOAD		4096		/* records in the store at start */
#define VAL_MIN		32
#define VAL_SPAN	448
#define KEY_LEN		24

enum { BUILD, INSERT, JANITOR };

static const struct gt_line kvstore_lines[] = {
	[BUILD] = { "build", 0.25 },
	[INSERT] = { "insert", 1 },
	[JANITOR] = { "janitor", 4 },
	{ NULL, 0 },
};

struct node {
	struct node *next;
	unsigned long sum;		/* the key's checksum: picks the bucket */
	unsigned long tag;		/* the value's seal, from build */
	unsigned long expires;		/* store_clock value */
	size_t len;
	char key[KEY_LEN];
	char val[];
};

/* The store: everything below is under store_lock. */
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *table[BUCKETS];
static unsigned long store_clock, live, overwrites, evictions;

static int stopping;			/* the clients are done */
static unsigned long janitor_passes, janitor_misses, janitor_digest;

/* FNV-1a of a key: the seed of its checksum. */
static unsigned long
key_hash(const char *k)
{
	unsigned long h = 0xcbf29ce484222325UL;

	while (*k)
		h = (h ^ (unsigned char)*k++) * 0x100000001b3UL;
	return h;
}

/* A record as a client makes it: its key, value and seal, in a node. */
static struct node *
build_record(const char *prefix, unsigned long *s)
{
	char key[KEY_LEN], val[VAL_MIN + VAL_SPAN + 1];
	size_t len = VAL_MIN + bench_rand(s) % VAL_SPAN;
	unsigned long n, tag;
	struct node *e;

	snprintf(key, sizeof(key), "%s:%08lx", prefix, bench_rand(s) % KEYS);
	for (size_t i = 0; i < len; i++)
		val[i] = 'A' + bench_rand(s) % 58;
	val[len] = '\0';
	tag = len;
	n = gt_n(BUILD);
	for (unsigned long i = 0; i < n; i++) tag = BENCH_MIX(tag, val[i & 31]);	/* GT:build */

	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		gt_die("out of memory");
	memcpy(e->key, key, sizeof(key));
	memcpy(e->val, val, len + 1);
	e->len = len;
	e->tag = tag;
	e->expires = TTL_MIN + bench_rand(s) % TTL_SPAN;	/* relative, for now */
	return e;
}

/* Insert e, replacing its key's record if any; returns the old one. */
static struct node *
store_insert(struct node *e)
{
	struct node **pp, *old = NULL;
	unsigned long n, sum;

	pthread_mutex_lock(&store_lock);
	sum = key_hash(e->key);
	n = gt_n(INSERT);
	for (unsigned long i = 0; i < n; i++) sum = BENCH_MIX(sum, e->key[i & 15]);	/* GT:insert */
	e->sum = sum;
	e->expires += store_clock++;
	for (pp = &table[sum % BUCKETS]; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->key, e->key)) {
			old = *pp;
			*pp = old->next;
			overwrites++;
			live--;
			break;
		}
	e->next = table[sum % BUCKETS];
	table[sum % BUCKETS] = e;
	live++;
	pthread_mutex_unlock(&store_lock);
	return old;
}

static void *
client(void *arg)
{
	unsigned long s = 0xc1 + 0x9e37 * (unsigned long)arg;

	while (gt_claim()) {
		struct node *e = build_record("user", &s);

		free(store_insert(e));
		gt_progress();
	}
	return NULL;
}

/*
 * One pass over the next SCAN buckets: unlink the expired records onto
 * *dead, check that the others are in their checksum's bucket and fold
 * each into the audit digest (AUDIT rounds a record: the pass's cost
 * under the lock hardly depends on what the caches hold).  The janitor
 * does not queue behind the clients for the lock: if it is taken, the
 * pass is put off (-1), unless it has been MAX_MISSES times in a row.
 */
static long
janitor_scan(unsigned *cursor, struct node **dead, int *misses, unsigned long *audit)
{
	unsigned long a = *audit;
	long checked = 0;

	if (*misses < MAX_MISSES && pthread_mutex_trylock(&store_lock)) {
		(*misses)++;
		return -1;
	}
	if (*misses == MAX_MISSES)
		pthread_mutex_lock(&store_lock);
	*misses = 0;
	for (int b = 0; b < SCAN; b++, *cursor = (*cursor + 1) % BUCKETS) {
		struct node **pp = &table[*cursor];

		while (*pp) {
			struct node *e = *pp;

			if (e->expires <= store_clock) {
				*pp = e->next;
				e->next = *dead;
				*dead = e;
				evictions++;
				live--;
				continue;
			}
			if (e->sum % BUCKETS != *cursor || !e->key[0])
				gt_die("record %s in the wrong bucket", e->key);
			for (int r = 0; r < AUDIT; r++)
				a = BENCH_MIX(a, e->key[r & 15] ^ e->sum);
			checked++;
			pp = &e->next;
		}
	}
	pthread_mutex_unlock(&store_lock);
	*audit = a;
	return checked;
}

static void *
janitor(void *arg GT_UNUSED)
{
	unsigned cursor = 0;
	unsigned long digest = 0, audit = 0;
	int misses = 0;

	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		struct node *dead = NULL;
		long checked = janitor_scan(&cursor, &dead, &misses, &audit);
		unsigned long n, x = checked;

		/* The expiry report: a digest of what went, then free it. */
		while (dead) {
			struct node *next = dead->next;

			x = BENCH_MIX(x, dead->tag);
			free(dead);
			dead = next;
		}
		n = gt_n(JANITOR);
		for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, i ^ cursor);	/* GT:janitor */
		digest ^= x;
		janitor_passes += checked >= 0;
		janitor_misses += checked < 0;
	}
	janitor_digest = digest ^ audit;
	return NULL;
}

/*
 * Start warm, as a server reloading its sessions: PRELOAD records of
 * keys of their own, which expire in the first TTL_MIN + TTL_SPAN inserts.
 */
static void
store_preload(void)
{
	unsigned long s = 0x10ad;

	for (int i = 0; i < PRELOAD; i++) {
		struct node *e = build_record("boot", &s);

		e->sum = key_hash(e->key);
		e->expires = bench_rand(&s) % (TTL_MIN + TTL_SPAN);
		e->next = table[e->sum % BUCKETS];
		table[e->sum % BUCKETS] = e;
		live++;
	}
}

static void
store_free(void)
{
	for (int b = 0; b < BUCKETS; b++)
		while (table[b]) {
			struct node *e = table[b];

			table[b] = e->next;
			free(e);
		}
}

int
main(int argc, char **argv)
{
	pthread_t t[CLIENTS], jt;
	unsigned long inserts;
	int i;

	gt.prog = "kvstore";
	gt.n = 20000;
	gt.unit_us = 50;
	gt.pin = 0;
	gt.lines = kvstore_lines;
	gt_init(argc, argv);
	store_preload();

	gt_thread(&jt, 1, janitor, NULL);
	for (i = 0; i < CLIENTS; i++)
		gt_thread(&t[i], i % 2, client, (void *)(long)i);
	for (i = 0; i < CLIENTS; i++)
		pthread_join(t[i], NULL);
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	pthread_join(jt, NULL);
	inserts = store_clock;
	gt_report();
	fprintf(stderr, "kvstore: inserts %lu overwrites %lu evictions %lu "
		"live %lu passes %lu misses %lu digest %04lx\n", inserts,
		overwrites, evictions, live, janitor_passes, janitor_misses,
		janitor_digest & 0xffff);
	store_free();
	return 0;
}
