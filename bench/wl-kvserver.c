/*
 * wl-kvserver: a key-value server with a thread pool, driven over
 * loopback TCP by a client thread of the same process.
 *
 * Server: an I/O thread accepts the connections and waits on them with
 * epoll; it reads requests ("G id key" or "S id key value", one per
 * line), checks each (line "parse": a tenth of a unit per request, -u,
 * default 100 us) and queues it for the pool.  Two pool workers run the
 * requests against a hash table with striped locks and render each
 * reply with its entity tag (line "encode": one unit per request), then
 * write it to the connection.  Client: CONNS connections with WINDOW
 * requests in flight on each, 90% gets and 10% sets on KEYS keys drawn
 * with a Zipf-like law.  Each item is a reply received by the client.
 *
 * The workers' rendering is where the time goes: the two CPUs are shared
 * by the four threads, and
 *
 *	speeding encode by s:	most of s (the rest of the CPU time goes
 *				to the system calls and parsing)
 *	speeding parse:		a few percent at most
 *
 * Threads are pinned (-P: not): the client and worker 0 on CPU 0, the I/O
 * thread and worker 1 on CPU 1.  See tests/gt.h and workload.h for the
 * options and the output; at exit it also prints "kvserver: gets G hits H
 * sets S" on stderr.
 */
#include "workload.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define WORKERS		2
#define CONNS		4
#define WINDOW		16
#define KEYS		10000
#define STRIPES		64
#define BUCKETS		16384
#define QCAP		(CONNS * WINDOW)
#define LINE_MAX_	512
#define MAXVAL		200

enum { PARSE, ENCODE };

static const struct gt_line kv_lines[] = {
	[PARSE] = { "parse", 0.1 },
	[ENCODE] = { "encode", 1 },
	{ NULL, 0 },
};

/* The store: chained buckets, a lock per stripe of buckets. */
struct kv {
	struct kv *next;
	char key[24];
	size_t len;
	char val[MAXVAL + 1];
};

static struct kv *buckets[BUCKETS];
static pthread_mutex_t stripe[STRIPES];
static unsigned long n_gets, n_hits, n_sets;	/* under stats_lock */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

/* A server-side connection. */
struct conn {
	int fd;
	pthread_mutex_t wlock;	/* one reply written at a time */
	char in[2 * LINE_MAX_];
	size_t in_len;
};

/* A request queued for the pool; NULL conn: the worker is to stop. */
struct job {
	struct conn *c;
	char op;
	unsigned long id;
	char key[24];
	char val[MAXVAL + 1];
	unsigned long check;
};

static struct job queue[QCAP];
static unsigned q_head, q_count;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_nonfull = PTHREAD_COND_INITIALIZER;

static struct conn *conns[CONNS];
static int listen_fd;
static struct sockaddr_in server_addr;

static unsigned long
hash_key(const char *k)
{
	unsigned long h = 0xcbf29ce484222325UL;

	while (*k)
		h = (h ^ (unsigned char)*k++) * 0x100000001b3UL;
	return h;
}

static void
fill_value(char *v, size_t len, unsigned long *s)
{
	for (size_t i = 0; i < len; i++)
		v[i] = 'a' + bench_rand(s) % 26;
	v[len] = '\0';
}

static void
store_init(void)
{
	unsigned long s = 0x5707e;

	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripe[i], NULL);
	for (int i = 0; i < KEYS; i++) {
		struct kv *e = calloc(1, sizeof(*e));
		unsigned long h;

		if (!e)
			gt_die("out of memory");
		snprintf(e->key, sizeof(e->key), "key%d", i);
		e->len = 16 + bench_rand(&s) % (MAXVAL - 16);
		fill_value(e->val, e->len, &s);
		h = hash_key(e->key) % BUCKETS;
		e->next = buckets[h];
		buckets[h] = e;
	}
}

static void
write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, -1);
			continue;
		}
		if (k < 0)
			gt_die("write: %s", strerror(errno));
		p += k;
		len -= k;
	}
}

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

/* Run one request and write its reply. */
static void
serve(const struct job *j)
{
	unsigned long h = hash_key(j->key), etag, n;
	char val[256] = "", reply[LINE_MAX_];
	size_t len = 0;
	int found = 0, k;
	struct kv *e;

	pthread_mutex_lock(&stripe[h % STRIPES]);
	for (e = buckets[h % BUCKETS]; e; e = e->next)
		if (!strcmp(e->key, j->key))
			break;
	if (j->op == 'S') {
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				gt_die("out of memory");
			snprintf(e->key, sizeof(e->key), "%s", j->key);
			e->next = buckets[h % BUCKETS];
			buckets[h % BUCKETS] = e;
		}
		e->len = strlen(j->val);
		memcpy(e->val, j->val, e->len + 1);
	}
	if (e) {
		found = 1;
		len = e->len;
		memcpy(val, e->val, len + 1);
	}
	pthread_mutex_unlock(&stripe[h % STRIPES]);

	etag = h ^ j->check;
	n = gt_n(ENCODE);
	for (unsigned long i = 0; i < n; i++) etag = BENCH_MIX(etag, val[i & 255]);	/* GT:encode */
	if (j->op == 'S')
		k = snprintf(reply, sizeof(reply), "K %lu %016lx\n", j->id, etag);
	else if (found)
		k = snprintf(reply, sizeof(reply), "V %lu %016lx %zu %s\n", j->id, etag, len, val);
	else
		k = snprintf(reply, sizeof(reply), "N %lu\n", j->id);

	pthread_mutex_lock(&j->c->wlock);
	write_all(j->c->fd, reply, k);
	pthread_mutex_unlock(&j->c->wlock);

	pthread_mutex_lock(&stats_lock);
	n_sets += j->op == 'S';
	n_gets += j->op == 'G';
	n_hits += j->op == 'G' && found;
	pthread_mutex_unlock(&stats_lock);
}

static void *
worker(void *arg GT_UNUSED)
{
	struct job j;

	for (;;) {
		queue_get(&j);
		if (!j.c)
			return NULL;
		serve(&j);
	}
}

/* Parse one request line into a job; 0 if malformed. */
static int
parse_request(struct conn *c, const char *line, struct job *j)
{
	unsigned long n, x;

	memset(j, 0, sizeof(*j));
	j->c = c;
	if (sscanf(line, "%c %lu %23s %200s", &j->op, &j->id, j->key, j->val) < 3 ||
	    (j->op != 'G' && j->op != 'S'))
		return 0;
	x = j->id;
	n = gt_n(PARSE);
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, j->key[i & 3]);	/* GT:parse */
	j->check = x;
	return 1;
}

/* Read what a connection has, queue its whole lines; 0 at its end. */
static int
conn_readable(struct conn *c)
{
	for (;;) {
		ssize_t k = read(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len);
		char *p, *nl;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return 1;
		if (k <= 0)
			return 0;
		c->in_len += k;
		c->in[c->in_len] = '\0';
		for (p = c->in; (nl = strchr(p, '\n')); p = nl + 1) {
			struct job j;

			*nl = '\0';
			if (!parse_request(c, p, &j))
				gt_die("bad request '%s'", p);
			queue_put(&j);
		}
		c->in_len -= p - c->in;
		memmove(c->in, p, c->in_len);
	}
}

static void
set_nonblock(int fd)
{
	int one = 1;

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		gt_die("fcntl: %s", strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void *
io_thread(void *arg GT_UNUSED)
{
	struct epoll_event ev, evs[CONNS + 1];
	int ep = epoll_create1(EPOLL_CLOEXEC), accepted = 0, open_conns = 0;
	struct job stop = { .c = NULL };

	if (ep < 0)
		gt_die("epoll_create1: %s", strerror(errno));
	ev = (struct epoll_event) { .events = EPOLLIN, .data.ptr = NULL };
	epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ev);
	while (accepted < CONNS || open_conns > 0) {
		int n = epoll_wait(ep, evs, CONNS + 1, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			gt_die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (!c) {
				int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

				if (fd < 0)
					continue;
				c = calloc(1, sizeof(*c));
				if (!c)
					gt_die("out of memory");
				c->fd = fd;
				pthread_mutex_init(&c->wlock, NULL);
				set_nonblock(fd);
				conns[accepted++] = c;
				open_conns++;
				ev = (struct epoll_event) { .events = EPOLLIN, .data.ptr = c };
				epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
			} else if (!conn_readable(c)) {
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				open_conns--;
			}
		}
	}
	/* Every request is served before the connections are closed. */
	for (int i = 0; i < WORKERS; i++)
		queue_put(&stop);
	close(ep);
	return NULL;
}

/* The client's side of a connection. */
struct cconn {
	int fd;
	int inflight;
	char in[4 * LINE_MAX_];
	size_t in_len;
};

static void
client_send(struct cconn *cc, unsigned long *id, unsigned long *s)
{
	char req[LINE_MAX_], val[MAXVAL + 1];
	double u = (bench_rand(s) >> 11) * 0x1p-53;
	int key = (int)exp(u * log(KEYS)) - 1, k;

	if (bench_rand(s) % 10 == 0) {
		fill_value(val, 16 + bench_rand(s) % (MAXVAL - 16), s);
		k = snprintf(req, sizeof(req), "S %lu key%d %s\n", (*id)++, key, val);
	} else {
		k = snprintf(req, sizeof(req), "G %lu key%d\n", (*id)++, key);
	}
	write_all(cc->fd, req, k);
	cc->inflight++;
}

/* Count the whole replies a connection has; -1 at its end. */
static int
client_readable(struct cconn *cc)
{
	int replies = 0;

	for (;;) {
		ssize_t k = read(cc->fd, cc->in + cc->in_len, sizeof(cc->in) - 1 - cc->in_len);
		char *p, *nl;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return replies;
		if (k <= 0)
			gt_die("server closed a connection");
		cc->in_len += k;
		cc->in[cc->in_len] = '\0';
		for (p = cc->in; (nl = strchr(p, '\n')); p = nl + 1) {
			replies++;
			cc->inflight--;
			gt_progress();
		}
		cc->in_len -= p - cc->in;
		memmove(cc->in, p, cc->in_len);
	}
}

static void *
client(void *arg GT_UNUSED)
{
	struct cconn cc[CONNS];
	struct epoll_event ev, evs[CONNS];
	unsigned long id = 0, s = 0xc11e47;
	int ep = epoll_create1(EPOLL_CLOEXEC), more = 1, inflight = 0;

	if (ep < 0)
		gt_die("epoll_create1: %s", strerror(errno));
	for (int i = 0; i < CONNS; i++) {
		memset(&cc[i], 0, sizeof(cc[i]));
		cc[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cc[i].fd < 0 ||
		    connect(cc[i].fd, (struct sockaddr *)&server_addr, sizeof(server_addr)))
			gt_die("connect: %s", strerror(errno));
		set_nonblock(cc[i].fd);
		ev = (struct epoll_event) { .events = EPOLLIN, .data.ptr = &cc[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, cc[i].fd, &ev);
	}
	for (int i = 0; i < CONNS && more; i++)
		while (cc[i].inflight < WINDOW && (more = gt_claim())) {
			client_send(&cc[i], &id, &s);
			inflight++;
		}
	while (inflight > 0) {
		int n = epoll_wait(ep, evs, CONNS, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			gt_die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			struct cconn *c = evs[i].data.ptr;

			inflight -= client_readable(c);
			while (more && c->inflight < WINDOW && (more = gt_claim())) {
				client_send(c, &id, &s);
				inflight++;
			}
		}
	}
	for (int i = 0; i < CONNS; i++)
		close(cc[i].fd);
	close(ep);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t io, cl, w[WORKERS];
	socklen_t alen = sizeof(server_addr);
	int i;

	gt.prog = "wl-kvserver";
	gt.n = 20000;
	gt.unit_us = 100;
	gt.pin = 1;
	gt.lines = kv_lines;
	gt_init(argc, argv);
	store_init();

	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	server_addr = (struct sockaddr_in) {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	if (listen_fd < 0 ||
	    bind(listen_fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) ||
	    listen(listen_fd, CONNS) ||
	    getsockname(listen_fd, (struct sockaddr *)&server_addr, &alen))
		gt_die("listen on loopback: %s", strerror(errno));

	gt_thread(&io, 1, io_thread, NULL);
	for (i = 0; i < WORKERS; i++)
		gt_thread(&w[i], i, worker, NULL);
	gt_thread(&cl, 0, client, NULL);
	pthread_join(cl, NULL);
	pthread_join(io, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	for (i = 0; i < CONNS; i++) {
		close(conns[i]->fd);
		free(conns[i]);
	}
	gt_report();
	fprintf(stderr, "kvserver: gets %lu hits %lu sets %lu\n", n_gets, n_hits, n_sets);
	return 0;
}
