/*
 * gt-rpc: a request/response loop between two threads of one process, the
 * shape of a client and a server (or a thread pool and its I/O thread)
 * in one program.  Per item the client runs line "prepare" (one unit, -u,
 * default 1000 us), sends a request over a connection and waits for the
 * answer; the server thread waits for a request, runs line "serve" (one
 * unit) and answers.  The two never run at once, so an item takes
 * prepare + serve:
 *
 *	speeding prepare or serve by s:	s / 2
 *
 * The critical path crosses every wake-up: each thread is woken by the
 * other, which a causal profiler must see, or the woken thread pays the
 * delay of the other's speedup a second time (the prediction for either
 * line then falls to about 0).  -x tcp (default): a loopback TCP
 * connection, where the reader is woken from the writer's softirq, which
 * the kernel marks as an interrupt's wake-up.  -x unix: a unix socket
 * pair, woken by the writer itself.
 *
 * The client is pinned to CPU 0, the server to CPU 1 (-P: not), so that
 * each wake-up hands the work to a thread waiting on a CPU of its own.
 * On one CPU the two would also hand over by preemption and by "write
 * space" wake-ups that come before the data, which is another matter
 * (doc/design.md).  See gt.h for the options and the output.
 */
#include "gt.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

enum { PREPARE, SERVE };

static const struct gt_line rpc_lines[] = {
	[PREPARE] = { "prepare", 1 },
	[SERVE] = { "serve", 1 },
	{ NULL, 0 },
};

/* The client's end, the server's. */
static int fd[2];

static void
connect_tcp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || fd[0] < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) ||
	    connect(fd[0], (struct sockaddr *)&a, sizeof(a)) ||
	    (fd[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		gt_die("loopback TCP: %s", strerror(errno));
	setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

/* One byte each way: a stream cannot split it. */
static void
send_byte(int s, char c)
{
	while (write(s, &c, 1) != 1)
		if (errno != EINTR)
			gt_die("write: %s", strerror(errno));
}

/* 0 at the end of the stream. */
static int
recv_byte(int s, char *c)
{
	ssize_t k;

	while ((k = read(s, c, 1)) < 0)
		if (errno != EINTR)
			gt_die("read: %s", strerror(errno));
	return k == 1;
}

static void *
server(void *arg GT_UNUSED)
{
	unsigned long n;
	char c;

	while (recv_byte(fd[1], &c)) {
		n = gt_n(SERVE);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:serve */
		send_byte(fd[1], c);
	}
	return NULL;
}

static void *
client(void *arg GT_UNUSED)
{
	unsigned long n;
	char c = 'r';

	while (gt_claim()) {
		n = gt_n(PREPARE);
		for (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;	/* GT:prepare */
		send_byte(fd[0], c);
		if (!recv_byte(fd[0], &c))
			gt_die("the server went away");
		gt_progress();
	}
	shutdown(fd[0], SHUT_WR);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t c, s;

	gt.prog = "gt-rpc";
	gt.n = 750;
	gt.unit_us = 1000;
	gt.pin = 1;
	gt.lines = rpc_lines;
	gt.modes[0] = "tcp";
	gt.modes[1] = "unix";
	gt_init(argc, argv);
	if (gt_mode_is("tcp"))
		connect_tcp();
	else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd))
		gt_die("socketpair: %s", strerror(errno));

	gt_thread(&s, 1, server, NULL);
	gt_thread(&c, 0, client, NULL);
	pthread_join(c, NULL);
	pthread_join(s, NULL);
	gt_report();
	return 0;
}
