#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/evloop.h"
#include "base/xmalloc.h"
#include "model/logcap.h"

/* A longer line is cut: the ring holds lines, not files. */
#define LINE_MAX_LEN 1024

struct reader {
	struct ev_handler h;
	struct logcap *lc;
	int fd;			/* read end, -1 when none */
	enum model_log_kind kind;
	char buf[LINE_MAX_LEN];
	size_t len;
};

struct logcap {
	struct evloop *ev;
	struct reader err, out;
	int saved_stderr;	/* the real stderr, -1 once restored */
	int target_fd;		/* write end given to the command, -1 */
	struct logcap_line ring[LOGCAP_MAX];
	uint64_t total;
};

static void
push(struct logcap *lc, enum model_log_kind kind, const char *text, size_t len)
{
	struct logcap_line *l = &lc->ring[lc->total % LOGCAP_MAX];

	free(l->text);
	l->t_ns = clock_now_ns();
	l->kind = kind;
	l->text = xmalloc(len + 1);
	memcpy(l->text, text, len);
	l->text[len] = '\0';
	lc->total++;
}

/* Whole lines out of the buffer; a full buffer is a line of its own. */
static void
split(struct reader *r, bool flush)
{
	size_t start = 0;

	for (size_t i = 0; i < r->len; i++)
		if (r->buf[i] == '\n') {
			push(r->lc, r->kind, r->buf + start, i - start);
			start = i + 1;
		}
	if (start < r->len && (flush || (start == 0 && r->len == sizeof(r->buf)))) {
		push(r->lc, r->kind, r->buf + start, r->len - start);
		start = r->len;
	}
	memmove(r->buf, r->buf + start, r->len - start);
	r->len -= start;
}

/* Read what is there; false at end of file or on an error. */
static bool
drain(struct reader *r)
{
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);

		if (n > 0) {
			r->len += (size_t) n;
			split(r, false);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

static void
on_readable(struct ev_handler *h, uint32_t events)
{
	struct reader *r = (struct reader *) h;

	if (!drain(r)) {
		/* Every writer is gone: nothing more will come. */
		split(r, true);
		evloop_del(r->lc->ev, r->fd);
		close(r->fd);
		r->fd = -1;
	}
}

static int
reader_open(struct logcap *lc, struct reader *r, enum model_log_kind kind)
{
	int p[2];

	r->lc = lc;
	r->kind = kind;
	r->fd = -1;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	r->fd = p[0];
	r->h.fn = on_readable;
	evloop_add(lc->ev, r->fd, EPOLLIN, &r->h);
	return p[1];
}

struct logcap *
logcap_start(struct evloop *ev, bool target_output)
{
	struct logcap *lc = xcalloc(1, sizeof(*lc));
	int w;

	lc->ev = ev;
	lc->saved_stderr = -1;
	lc->target_fd = -1;
	lc->out.fd = -1;
	/* The supervisor never blocks on its own messages: the write end is non-blocking. */
	if ((w = reader_open(lc, &lc->err, MODEL_LOG_WARN)) < 0 ||
	    (lc->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(w, STDERR_FILENO) < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "cannot capture stderr");
	close(w);
	if (target_output) {
		/* The command blocks on a full pipe, as it would on a slow terminal. */
		if ((w = reader_open(lc, &lc->out, MODEL_LOG_TARGET)) < 0 ||
		    fcntl(w, F_SETFL, 0) < 0)
			perror_msg_and_die(CT_EXIT_INTERNAL, "cannot make a pipe for the command");
		lc->target_fd = w;
	}
	return lc;
}

int
logcap_target_fd(const struct logcap *lc)
{
	return lc->target_fd;
}

void
logcap_add(struct logcap *lc, enum model_log_kind kind, const char *fmt, ...)
{
	char buf[LINE_MAX_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	push(lc, kind, buf, strlen(buf));
}

const struct logcap_line *
logcap_get(const struct logcap *lc, uint64_t seq)
{
	if (seq >= lc->total || lc->total - seq > LOGCAP_MAX)
		return NULL;
	return &lc->ring[seq % LOGCAP_MAX];
}

uint64_t
logcap_total(const struct logcap *lc)
{
	return lc->total;
}

void
logcap_poll(struct logcap *lc)
{
	if (lc->err.fd >= 0)
		on_readable(&lc->err.h, EPOLLIN);
	if (lc->out.fd >= 0)
		on_readable(&lc->out.h, EPOLLIN);
}

static void
write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t) n;
	}
}

void
logcap_stop(struct logcap *lc)
{
	uint64_t first;

	if (!lc || lc->saved_stderr < 0)
		return;
	if (lc->err.fd >= 0) {
		drain(&lc->err);
		split(&lc->err, true);
	}
	if (lc->out.fd >= 0) {
		drain(&lc->out);
		split(&lc->out, true);
	}
	dup2(lc->saved_stderr, STDERR_FILENO);
	close(lc->saved_stderr);
	lc->saved_stderr = -1;
	if (lc->err.fd >= 0) {
		evloop_del(lc->ev, lc->err.fd);
		close(lc->err.fd);
		lc->err.fd = -1;
	}
	if (lc->out.fd >= 0)
		evloop_del(lc->ev, lc->out.fd);
	first = lc->total > LOGCAP_MAX ? lc->total - LOGCAP_MAX : 0;
	if (first)
		fprintf(stderr, "causaltop: (%llu earlier lines of the log were not kept)\n",
			(unsigned long long) first);
	for (uint64_t i = first; i < lc->total; i++) {
		const struct logcap_line *l = logcap_get(lc, i);

		if (l->kind == MODEL_LOG_INFO)
			continue;
		write_all(l->kind == MODEL_LOG_TARGET ? STDOUT_FILENO : STDERR_FILENO,
			  l->text, strlen(l->text));
		write_all(l->kind == MODEL_LOG_TARGET ? STDOUT_FILENO : STDERR_FILENO, "\n", 1);
	}
}

void
logcap_wait_child(struct logcap *lc, pid_t pid, int *status,
		  pid_t (*wait)(pid_t pid, int *status, int options))
{
	struct reader *r = &lc->out;
	char buf[4096];
	pid_t got = 0;

	if (lc->target_fd >= 0) {
		close(lc->target_fd);
		lc->target_fd = -1;
	}
	while (got == 0) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };

		if (r->fd >= 0 && poll(&p, 1, 100) > 0) {
			ssize_t n = read(r->fd, buf, sizeof(buf));

			if (n > 0)
				write_all(STDOUT_FILENO, buf, (size_t) n);
			else if (n == 0 || errno != EAGAIN) {
				close(r->fd);
				r->fd = -1;
			}
		} else if (r->fd < 0) {
			/* Nothing to pass on: just wait. */
			while ((got = wait(pid, status, 0)) < 0 && errno == EINTR)
				;
			break;
		}
		got = wait(pid, status, WNOHANG);
		if (got < 0 && errno == EINTR)
			got = 0;
	}
	/* What it wrote just before exiting. */
	while (r->fd >= 0) {
		ssize_t n = read(r->fd, buf, sizeof(buf));

		if (n <= 0) {
			close(r->fd);
			r->fd = -1;
		} else {
			write_all(STDOUT_FILENO, buf, (size_t) n);
		}
	}
}

void
logcap_free(struct logcap *lc)
{
	if (!lc)
		return;
	logcap_stop(lc);
	if (lc->out.fd >= 0)
		close(lc->out.fd);
	if (lc->target_fd >= 0)
		close(lc->target_fd);
	for (size_t i = 0; i < LOGCAP_MAX; i++)
		free(lc->ring[i].text);
	free(lc);
}
