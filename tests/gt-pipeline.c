/*
 * gt-pipeline: three stages, three threads, bounded queues of 8 between
 * them.  Stage 1 runs line "produce" (0.3 of a unit, -u, default
 * 1000 us), stage 2 line "transform" (2 units: the bottleneck), stage 3
 * line "consume" (0.3 of a unit) and counts the item.  The slowest stage
 * bounds the rate at one item per 2 units.  Speeding transform by s, an
 * item takes max(2 (1 - s), (0.6 + 2 (1 - s)) / 2) units on two CPUs:
 *
 *	speeding transform by s:	s for s <= 0.7, (0.7 + s) / 2 above
 *	speeding produce or consume:	0
 *
 * At s = 0.5 transform takes 1 unit while the other stages take 0.6 in
 * all: the CPUs are not saturated, so the real speedup does not hang on
 * the scheduler's every choice (with 0.5-unit stages, as before, 50% was
 * the corner where every stage and CPU is saturated, and the measured
 * speedup went from 0.29 to 0.51 from run to run).
 *
 * -x queue (default): the queues are rings under a mutex with condition
 * variables.  -x pipe: they are pipes holding 8 messages of PIPE_BUF
 * bytes, written and read whole with blocking write() and read(), so that
 * every wake-up goes through the kernel's pipe code.  -x tcp: they are
 * loopback TCP connections carrying the same messages (buffers of 8
 * messages); a reader is woken from the writer's softirq, which the
 * kernel marks as an interrupt's wake-up.
 *
 * Threads are not pinned by default: above s = 0.7 the analytic answer
 * needs the kernel to share both CPUs among the three stages.  Pipe and
 * TCP wake-ups are "sync" ones, which put the woken reader on the
 * writer's CPU: at times consume stays on transform's CPU and an item
 * takes 2.3 units, not 2 (watch base_us).  -p pins transform to CPU 0 and
 * the two others to CPU 1: stable in every mode, and the speedup of
 * transform is then min(s, 0.7).  See gt.h for the options and the
 * output.
 */
#include "gt.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <sys/socket.h>

#define QCAP	8
#define END	(-1L)		/* the item after the last */

enum { PRODUCE, TRANSFORM, CONSUME };

static const struct gt_line pipeline_lines[] = {
	[PRODUCE] = { "produce", 0.3 },
	[TRANSFORM] = { "transform", 2 },
	[CONSUME] = { "consume", 0.3 },
	{ NULL, 0 },
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	long ring[QCAP];
	unsigned head, count;
	int fd[2];		/* -x pipe, -x tcp: read end, write end */
};

/* A pipe message: whole PIPE_BUF bytes, so that each write() is atomic. */
struct message {
	long item;
	char pad[PIPE_BUF - sizeof(long)];
};

static struct queue q1, q2;

/* -x tcp: a loopback connection, each end's buffer about QCAP messages. */
static void
tcp_queue(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	int buf = QCAP * PIPE_BUF / 2;	/* the kernel doubles it */

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || fd[1] < 0 ||
	    setsockopt(fd[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)) ||
	    setsockopt(l, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) ||
	    connect(fd[1], (struct sockaddr *)&a, sizeof(a)) ||
	    (fd[0] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		gt_die("loopback TCP queue: %s", strerror(errno));
	setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

static void
queue_init(struct queue *q)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	if (gt_mode_is("tcp")) {
		tcp_queue(q->fd);
		return;
	}
	if (!gt_mode_is("pipe"))
		return;
	if (pipe(q->fd))
		gt_die("pipe: %s", strerror(errno));
	/* 8 pages: room for QCAP messages, each in a page of its own. */
	if (fcntl(q->fd[1], F_SETPIPE_SZ, QCAP * PIPE_BUF) < 0)
		gt_die("F_SETPIPE_SZ: %s", strerror(errno));
}

/*
 * A stream: a message may go in parts, and a read with MSG_WAITALL still
 * returns short when a signal or a ptrace stop interrupts the wait for
 * the rest (recv(2)), as a profiler's pause does.  So both go on until
 * the whole message has passed.
 */
static void
tcp_whole(int fd, void *buf, size_t n, bool out)
{
	for (size_t off = 0; off < n;) {
		ssize_t k = out ? write(fd, (char *)buf + off, n - off)
				: recv(fd, (char *)buf + off, n - off, MSG_WAITALL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			gt_die("tcp %s: %s", out ? "write" : "read",
			       k ? strerror(errno) : "end of stream");
		off += k;
	}
}

static void
queue_put(struct queue *q, long item)
{
	struct message m = { .item = item };

	if (gt_mode_is("pipe")) {
		if (write(q->fd[1], &m, sizeof(m)) != (ssize_t)sizeof(m))
			gt_die("pipe write: %s", strerror(errno));
		return;
	}
	if (gt_mode_is("tcp")) {
		tcp_whole(q->fd[1], &m, sizeof(m), true);
		return;
	}
	pthread_mutex_lock(&q->lock);
	while (q->count == QCAP)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->ring[(q->head + q->count++) % QCAP] = item;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

static long
queue_get(struct queue *q)
{
	struct message m;
	long item;

	if (gt_mode_is("pipe")) {
		/* A pipe never splits a message of PIPE_BUF bytes. */
		if (read(q->fd[0], &m, sizeof(m)) != (ssize_t)sizeof(m))
			gt_die("pipe read: %s", strerror(errno));
		return m.item;
	}
	if (gt_mode_is("tcp")) {
		tcp_whole(q->fd[0], &m, sizeof(m), false);
		return m.item;
	}
	pthread_mutex_lock(&q->lock);
	while (q->count == 0)
		pthread_cond_wait(&q->not_empty, &q->lock);
	item = q->ring[q->head];
	q->head = (q->head + 1) % QCAP;
	q->count--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return item;
}

static void *
stage_produce(void *arg GT_UNUSED)
{
	unsigned long n;
	long item;

	for (item = 0; gt_claim(); item++) {
		n = gt_n(PRODUCE);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:produce */
		queue_put(&q1, item);
	}
	queue_put(&q1, END);
	return NULL;
}

static void *
stage_transform(void *arg GT_UNUSED)
{
	unsigned long n;
	long item;

	while ((item = queue_get(&q1)) != END) {
		n = gt_n(TRANSFORM);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:transform */
		queue_put(&q2, item);
	}
	queue_put(&q2, END);
	return NULL;
}

static void *
stage_consume(void *arg GT_UNUSED)
{
	unsigned long n;

	while (queue_get(&q2) != END) {
		n = gt_n(CONSUME);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:consume */
		gt_progress();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[3];
	int i;

	gt.prog = "gt-pipeline";
	gt.n = 750;
	gt.unit_us = 1000;
	gt.pin = 0;
	gt.lines = pipeline_lines;
	gt.modes[0] = "queue";
	gt.modes[1] = "pipe";
	gt.modes[2] = "tcp";
	gt_init(argc, argv);
	queue_init(&q1);
	queue_init(&q2);

	gt_thread(&t[0], 1, stage_produce, NULL);
	gt_thread(&t[1], 0, stage_transform, NULL);
	gt_thread(&t[2], 1, stage_consume, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	gt_report();
	return 0;
}
