/*
 * evloop: an epoll event-loop server, as nginx's workers run (here as
 * threads), driven over loopback TCP by a client process it forks.
 *
 * Server: a listener thread accepts CONNS connections and deals them out
 * to LOOPS event-loop threads, each with an epoll instance of its own.
 * A loop reads the requests ("GET /obj/ID SEQ", one a line), parses each
 * (line "parse": a tenth of a unit per request, -u, default 50 us),
 * computes its response, the object's version tag (line "handle": one
 * unit) and writes it back.  A stats thread wakes every STATS_MS ms and
 * folds the loops' counters into its report (line "stats": two units per
 * wake).  Each item is a request answered by the server; once -n have
 * been claimed, the loops hang up on the next requests.
 *
 * Client: a child process forked at start (-x threads: a thread of the
 * server's process), with CONNS connections in a closed loop: each sends
 * its next request when the reply to the last has come.  It stops when
 * the server has hung up on all, and the server reaps it (killing it if
 * it lingers; it also dies with the server).
 *
 * The loops and the client share the two CPUs; handling is most of it:
 *
 *	speeding handle by s:	most of s (the rest is the system calls)
 *	speeding parse:		a few percent
 *	speeding stats:		about 0 (it runs 1% of the time)
 *
 * Threads are not pinned (-p: loop i on CPU i, the other threads on CPU
 * 0; a client process is never pinned).  See tests/gt.h and workload.h
 * for the options and the output; at exit it also prints "evloop:
 * requests R0 R1 closed C stats WAKES REPORT" on stderr.
 */
#include "workload.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define LOOPS		2
#define CONNS		12
#define OBJECTS		4096
#define STATS_MS	10
#define REQ_MAX		128
#define REPLY_MAX	256

enum { PARSE, HANDLE, STATS };

static const struct gt_line evloop_lines[] = {
	[PARSE] = { "parse", 0.1 },
	[HANDLE] = { "handle", 1 },
	[STATS] = { "stats", 2 },
	{ NULL, 0 },
};

/* A connection's end: its socket and what has come of the next line. */
struct conn {
	int fd;
	size_t len;
	char in[2 * REPLY_MAX];
	struct loop *loop;		/* the server's loop owning it */
	unsigned long seq, *rand;	/* the client's request count and PRNG */
};

/* An event loop: its epoll instance and counters (read by stats). */
struct loop {
	pthread_t thread;
	int ep, closed;
	unsigned long requests, bytes_out;
};

static struct loop loops[LOOPS];
static struct conn server_conns[CONNS];
static unsigned long object_version[OBJECTS];	/* read-only once set up */
static int listen_fd;
static struct sockaddr_in server_addr;
static int server_done;
static unsigned long stats_wakes, stats_report;

/* Watch a connection's socket: it blocks on writes (they are small). */
static void
conn_watch(int ep, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	int one = 1;

	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev))
		gt_die("epoll_ctl: %s", strerror(errno));
}

static void
write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			gt_die("write: %s", strerror(errno));
		p += k;
		len -= k;
	}
}

/* Hand each whole line come on c to fn; 0 once c is to be closed. */
static int
read_lines(struct conn *c, int (*fn)(struct conn *c, char *line))
{
	for (;;) {
		ssize_t k = recv(c->fd, c->in + c->len, sizeof(c->in) - 1 - c->len, MSG_DONTWAIT);
		char *p, *nl;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return 1;
		if (k <= 0)
			return 0;
		c->len += k;
		c->in[c->len] = '\0';
		for (p = c->in; (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			if (!fn(c, p))
				return 0;
		}
		c->len -= p - c->in;
		memmove(c->in, p, c->len);
	}
}

/* Parse "GET /obj/ID SEQ"; the request's check value, or 0 if malformed. */
static unsigned long
parse_request(const char *line, unsigned long *id, unsigned long *seq)
{
	unsigned long n, x;
	int len;

	if (sscanf(line, "GET /obj/%lu %lu%n", id, seq, &len) != 2 ||
	    *id >= OBJECTS || line[len])
		return 0;
	x = *id ^ *seq << 12;
	n = gt_n(PARSE);
	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, line[i & 7]);	/* GT:parse */
	return x | 1;
}

/* Compute the reply to a request into buf; its length. */
static int
handle_request(unsigned long id, unsigned long seq, unsigned long check, char *buf)
{
	unsigned long n, tag = object_version[id] ^ check;

	n = gt_n(HANDLE);
	for (unsigned long i = 0; i < n; i++) tag = BENCH_MIX(tag, i + id);	/* GT:handle */
	return snprintf(buf, REPLY_MAX, "200 %lu %lu %016lx len=%lu\n",
			id, seq, tag, 64 + tag % 512);
}

/* Answer one request; 0 once -n have been claimed: hang up then. */
static int
serve_line(struct conn *c, char *line)
{
	unsigned long id, seq, check;
	char reply[REPLY_MAX];
	int len;

	if (!gt_claim())
		return 0;
	if (!(check = parse_request(line, &id, &seq)))
		gt_die("bad request '%s'", line);
	len = handle_request(id, seq, check, reply);
	write_all(c->fd, reply, len);
	__atomic_add_fetch(&c->loop->requests, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->loop->bytes_out, len, __ATOMIC_RELAXED);
	gt_progress();
	return 1;
}

/* Serve the connections of epoll set ep with fn, until count have closed. */
static void
event_loop(int ep, int count, int (*fn)(struct conn *c, char *line), int *closed)
{
	struct epoll_event evs[CONNS];

	while (*closed < count) {
		int n = epoll_wait(ep, evs, CONNS, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			gt_die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (read_lines(c, fn))
				continue;
			epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
			close(c->fd);
			(*closed)++;
		}
	}
}

static void *
loop_thread(void *arg)
{
	struct loop *lp = arg;

	event_loop(lp->ep, CONNS / LOOPS, serve_line, &lp->closed);
	return NULL;
}

/* Accept CONNS connections, dealing them out to the loops in turn. */
static void *
listener_thread(void *arg GT_UNUSED)
{
	for (int i = 0; i < CONNS; i++) {
		struct conn *c = &server_conns[i];

		c->loop = &loops[i % LOOPS];
		c->fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (c->fd < 0)
			gt_die("accept: %s", strerror(errno));
		conn_watch(c->loop->ep, c);
	}
	return NULL;
}

/* Every STATS_MS: the request rate and output, folded into a report. */
static void *
stats_thread(void *arg GT_UNUSED)
{
	const struct timespec tick = { 0, STATS_MS * 1000000L };
	unsigned long last = 0, report = 0;	/* printed at exit */

	while (!__atomic_load_n(&server_done, __ATOMIC_ACQUIRE)) {
		unsigned long reqs = 0, bytes = 0, n;

		nanosleep(&tick, NULL);
		for (int i = 0; i < LOOPS; i++) {
			reqs += __atomic_load_n(&loops[i].requests, __ATOMIC_RELAXED);
			bytes += __atomic_load_n(&loops[i].bytes_out, __ATOMIC_RELAXED);
		}
		report ^= (reqs - last) ^ bytes << 20;
		n = gt_n(STATS);
		for (unsigned long i = 0; i < n; i++) report = BENCH_MIX(report, reqs - i);	/* GT:stats */
		last = reqs;
		stats_wakes++;
	}
	stats_report = report;
	return NULL;
}

/* The client's next request on a connection. */
static void
client_send(struct conn *c)
{
	char req[REQ_MAX];
	int k = snprintf(req, sizeof(req), "GET /obj/%lu %lu\n",
			 bench_rand(c->rand) % OBJECTS, ++c->seq);

	write_all(c->fd, req, k);
}

/* A reply has come: send the next request (a closed loop). */
static int
client_line(struct conn *c, char *line)
{
	if (strncmp(line, "200 ", 4))
		gt_die("bad reply '%s'", line);
	client_send(c);
	return 1;
}

static void *
client(void *arg GT_UNUSED)
{
	struct conn cc[CONNS];
	unsigned long s = 0xc11e47;
	int ep = epoll_create1(EPOLL_CLOEXEC), closed = 0;

	if (ep < 0)
		gt_die("epoll_create1: %s", strerror(errno));
	for (int i = 0; i < CONNS; i++) {
		cc[i] = (struct conn) { .rand = &s };
		cc[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cc[i].fd < 0 ||
		    connect(cc[i].fd, (struct sockaddr *)&server_addr, sizeof(server_addr)))
			gt_die("connect: %s", strerror(errno));
		conn_watch(ep, &cc[i]);
		client_send(&cc[i]);
	}
	event_loop(ep, CONNS, client_line, &closed);
	close(ep);
	return NULL;
}

/* The client as a child process: it dies with the server. */
static pid_t
client_process(void)
{
	pid_t pid = fork();

	if (pid < 0)
		gt_die("fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	close(listen_fd);
	client(NULL);
	_exit(0);
}

/* Reap the client process, killing it if it has not left within a second. */
static void
client_reap(pid_t pid)
{
	int status, i;

	for (i = 0; i < 100 && waitpid(pid, &status, WNOHANG) != pid; i++)
		usleep(10000);
	if (i == 100) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		gt_die("client process failed or lingered (status %#x)", status);
}

int
main(int argc, char **argv)
{
	pthread_t lt, st, ct;
	socklen_t alen = sizeof(server_addr);
	unsigned long s = 0x0b1ec7;
	pid_t child = 0;
	int i;

	gt.prog = "evloop";
	gt.n = 40000;
	gt.unit_us = 50;
	gt.pin = 0;
	gt.lines = evloop_lines;
	gt.modes[0] = "process";
	gt.modes[1] = "threads";
	gt_init(argc, argv);
	for (i = 0; i < OBJECTS; i++)
		object_version[i] = bench_rand(&s);

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

	/* Fork before any thread exists: the child copies one thread only. */
	if (gt_mode_is("process"))
		child = client_process();

	for (i = 0; i < LOOPS; i++) {
		loops[i].ep = epoll_create1(EPOLL_CLOEXEC);
		if (loops[i].ep < 0)
			gt_die("epoll_create1: %s", strerror(errno));
		gt_thread(&loops[i].thread, i, loop_thread, &loops[i]);
	}
	gt_thread(&lt, 0, listener_thread, NULL);
	gt_thread(&st, 0, stats_thread, NULL);
	if (!child)
		gt_thread(&ct, 0, client, NULL);

	pthread_join(lt, NULL);
	for (i = 0; i < LOOPS; i++) {
		pthread_join(loops[i].thread, NULL);
		close(loops[i].ep);
	}
	__atomic_store_n(&server_done, 1, __ATOMIC_RELEASE);
	pthread_join(st, NULL);
	if (child)
		client_reap(child);
	else
		pthread_join(ct, NULL);
	close(listen_fd);
	gt_report();
	fprintf(stderr, "evloop: requests %lu %lu closed %d stats %lu %04lx\n",
		loops[0].requests, loops[1].requests,
		loops[0].closed + loops[1].closed, stats_wakes, stats_report & 0xffff);
	return 0;
}
