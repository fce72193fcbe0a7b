/*
 * The supervisor's only blocking call: epoll over the signalfd, timerfds
 * and perf ring fds.  Handlers are embedded in their owners' structs.
 */
#ifndef CT_EVLOOP_H
# define CT_EVLOOP_H

# include <stdint.h>

struct ev_handler {
	void (*fn)(struct ev_handler *, uint32_t events);
};

struct evloop;

struct evloop *evloop_new(void);
void evloop_free(struct evloop *);
void evloop_add(struct evloop *, int fd, uint32_t events, struct ev_handler *);
void evloop_del(struct evloop *, int fd);
/* Wait up to timeout_ms (-1: forever) and run the handlers of ready fds. */
void evloop_run_once(struct evloop *, int timeout_ms);

/*
 * Now on the loop's clock, base/clock.h's (what its timers count): for
 * tui/, which sees base/ through this header only (tests/layering.test).
 */
uint64_t evloop_now_ns(void);

/* A periodic or one-shot CLOCK_MONOTONIC timer; returns its fd. */
int evloop_timer_new(void);
void evloop_timer_arm(int fd, uint64_t first_ns, uint64_t interval_ns);
/* Consume the expiration count so the fd stops polling readable. */
uint64_t evloop_timer_ack(int fd);

#endif
