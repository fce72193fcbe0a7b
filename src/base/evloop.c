#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/evloop.h"
#include "base/xmalloc.h"

struct evloop {
	int epfd;
};

struct evloop *
evloop_new(void)
{
	struct evloop *ev = xcalloc(1, sizeof(*ev));

	ev->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ev->epfd < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "epoll_create1");
	return ev;
}

void
evloop_free(struct evloop *ev)
{
	if (!ev)
		return;
	close(ev->epfd);
	free(ev);
}

void
evloop_add(struct evloop *ev, int fd, uint32_t events, struct ev_handler *h)
{
	struct epoll_event e = { .events = events, .data.ptr = h };

	if (epoll_ctl(ev->epfd, EPOLL_CTL_ADD, fd, &e) < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "epoll_ctl(ADD, %d)", fd);
}

void
evloop_del(struct evloop *ev, int fd)
{
	/* ENOENT/EBADF: already gone with its fd, which is fine. */
	epoll_ctl(ev->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void
evloop_run_once(struct evloop *ev, int timeout_ms)
{
	struct epoll_event evs[64];
	int n = epoll_wait(ev->epfd, evs, 64, timeout_ms);

	if (n < 0) {
		if (errno == EINTR)
			return;
		perror_msg_and_die(CT_EXIT_INTERNAL, "epoll_wait");
	}
	for (int i = 0; i < n; i++) {
		struct ev_handler *h = evs[i].data.ptr;

		h->fn(h, evs[i].events);
	}
}

uint64_t
evloop_now_ns(void)
{
	return clock_now_ns();
}

int
evloop_timer_new(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "timerfd_create");
	return fd;
}

void
evloop_timer_arm(int fd, uint64_t first_ns, uint64_t interval_ns)
{
	struct itimerspec its = {
		.it_value = { first_ns / 1000000000, first_ns % 1000000000 },
		.it_interval = { interval_ns / 1000000000, interval_ns % 1000000000 },
	};

	if (timerfd_settime(fd, 0, &its, NULL) < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "timerfd_settime");
}

uint64_t
evloop_timer_ack(int fd)
{
	uint64_t n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}
