#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "base/evloop.h"
#include "base/xmalloc.h"
#include "canvas.h"
#include "draw.h"
#include "keys.h"
#include "model/model.h"
#include "model/steer.h"
#include "term.h"
#include "tui.h"
#include "view.h"

#define FRAME_NS	(1000000000ULL / TUI_FPS)
#define MODEL_NS	250000000ULL	/* model rebuilt this often */
#define ESC_NS		50000000ULL	/* an incomplete sequence this old is keys */

struct fd_handler {
	struct ev_handler h;
	struct tui *t;
	int fd;
};

struct tui {
	struct session *s;
	struct evloop *ev;
	struct term *term;
	struct canvas cv;
	struct model *m;
	struct view v;
	struct keydec kd;
	struct fd_handler input, frame, winch;
	uint64_t model_ns, input_ns;
	bool want_model, dirty, full, quit;
	sigset_t winch_old;
};

static void
rebuild(struct tui *t, uint64_t now)
{
	const struct model_row *r = view_row(&t->v, t->m);
	struct model_query q = {
		.point = t->v.point,
		.threads = t->v.screen == SCR_THREADS,
		.detail = t->v.screen == SCR_CURVE && r,
		.detail_target = r ? r->target : 0,
		.detail_is_func = r ? r->is_func : false,
	};

	model_update(t->m, t->s, &q, now);
	view_arrange(&t->v, t->m);
	/* The detail follows the selection: a new row wants its own next time. */
	r = view_row(&t->v, t->m);
	if (q.detail && r && (r->target != q.detail_target || r->is_func != q.detail_is_func))
		t->want_model = true;
	else
		t->want_model = false;
	t->model_ns = now;
	t->dirty = true;
}

static void
draw(struct tui *t, uint64_t now)
{
	if (term_busy(t->term))
		return;
	draw_frame(&t->cv, t->m, &t->v, now);
	term_present(t->term, &t->cv, t->full);
	t->full = false;
	t->dirty = false;
}

static void
run_cmd(struct tui *t, const struct view_cmd *c, uint64_t now)
{
	char msg[160] = "";
	bool ok = true;

	switch (c->kind) {
	case CMD_NONE:
		return;
	case CMD_QUIT:
		t->quit = true;
		steer_quit(t->s);
		return;
	case CMD_PIN:
		ok = steer_pin(t->s, c->target, c->is_func, msg, sizeof(msg));
		break;
	case CMD_EXCLUDE:
		ok = steer_exclude(t->s, c->target, c->is_func, msg, sizeof(msg));
		break;
	case CMD_EXCLUDE_FILE:
		ok = steer_exclude_file(t->s, c->target, msg, sizeof(msg));
		break;
	case CMD_LEVELS:
		ok = steer_levels(t->s, c->lo, c->hi, msg, sizeof(msg));
		break;
	case CMD_PAUSE:
		ok = steer_pause(t->s, c->on, msg, sizeof(msg));
		break;
	case CMD_RESET:
		ok = steer_reset(t->s, c->target, c->is_func, msg, sizeof(msg));
		break;
	case CMD_GRANULARITY:
		ok = steer_granularity(t->s, c->on, msg, sizeof(msg));
		break;
	case CMD_SAVE:
		ok = steer_save(t->s, msg, sizeof(msg));
		break;
	}
	view_status(&t->v, !ok, now, "%s", msg);
	t->want_model = true;
}

static void
keys(struct tui *t, bool timeout, uint64_t now)
{
	struct key k;

	while (keys_next(&t->kd, &k, timeout)) {
		struct view_cmd c;

		t->v.now = now;
		view_key(&t->v, t->m, &k, &c);
		run_cmd(t, &c, now);
		if (t->v.redraw) {
			t->v.redraw = false;
			t->full = true;
		}
		t->dirty = true;
	}
}

static void
on_input(struct ev_handler *h, uint32_t events)
{
	struct tui *t = ((struct fd_handler *) h)->t;
	unsigned char buf[1024];
	uint64_t now = evloop_now_ns();
	ssize_t n;

	/* At most a buffer per wake-up: a key storm cannot hold the loop. */
	n = term_read(t->term, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The terminal hung up (SIGHUP ends the session): stop reading it. */
		evloop_del(t->ev, t->input.fd);
		t->input.fd = -1;
		return;
	}
	keys_push(&t->kd, buf, (size_t) n);
	t->input_ns = now;
	keys(t, false, now);
}

static void
on_frame(struct ev_handler *h, uint32_t events)
{
	struct tui *t = ((struct fd_handler *) h)->t;
	uint64_t now = evloop_now_ns();

	evloop_timer_ack(t->frame.fd);
	if (keys_pending(&t->kd) && now - t->input_ns >= ESC_NS)
		keys(t, true, now);
	if (t->want_model || now - t->model_ns >= MODEL_NS)
		rebuild(t, now);
	if (t->dirty || t->full)
		draw(t, now);
}

static void
on_winch(struct ev_handler *h, uint32_t events)
{
	struct tui *t = ((struct fd_handler *) h)->t;
	struct signalfd_siginfo si;
	int rows, cols;

	while (read(t->winch.fd, &si, sizeof(si)) == sizeof(si))
		;
	term_resize(t->term);
	term_size(t->term, &rows, &cols);
	canvas_free(&t->cv);
	canvas_init(&t->cv, rows, cols, term_unicode(t->term));
	t->full = true;
	t->dirty = true;
}

struct tui *
tui_open(struct session *s, struct evloop *ev, const struct tui_config *cfg, const char **why)
{
	struct term_config tc = { .no_color = cfg->no_color };
	struct tui *t;
	sigset_t set;
	int rows, cols;

	t = xcalloc(1, sizeof(*t));
	if (!(t->term = term_open(ev, &tc, why))) {
		free(t);
		return NULL;
	}
	t->s = s;
	t->ev = ev;
	t->m = model_new();
	view_init(&t->v);
	term_size(t->term, &rows, &cols);
	canvas_init(&t->cv, rows, cols, term_unicode(t->term));
	t->input = (struct fd_handler) { .h.fn = on_input, .t = t, .fd = term_input_fd(t->term) };
	evloop_add(ev, t->input.fd, EPOLLIN, &t->input.h);
	t->frame = (struct fd_handler) { .h.fn = on_frame, .t = t, .fd = evloop_timer_new() };
	evloop_add(ev, t->frame.fd, EPOLLIN, &t->frame.h);
	evloop_timer_arm(t->frame.fd, FRAME_NS, FRAME_NS);
	/* Resizes come as SIGWINCH, read from a signalfd like the loop's other signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	sigprocmask(SIG_BLOCK, &set, &t->winch_old);
	t->winch = (struct fd_handler) { .h.fn = on_winch, .t = t,
					 .fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC) };
	if (t->winch.fd >= 0)
		evloop_add(ev, t->winch.fd, EPOLLIN, &t->winch.h);
	t->want_model = true;
	t->full = true;
	return t;
}

void
tui_session_over(struct tui *t, const char *message)
{
	uint64_t now = evloop_now_ns();

	snprintf(t->v.banner, sizeof(t->v.banner), "%s", message);
	rebuild(t, now);
	draw(t, now);
}

bool
tui_quit_requested(const struct tui *t)
{
	return t->quit;
}

void
tui_close(struct tui *t)
{
	if (!t)
		return;
	if (t->input.fd >= 0)
		evloop_del(t->ev, t->input.fd);
	evloop_del(t->ev, t->frame.fd);
	close(t->frame.fd);
	if (t->winch.fd >= 0) {
		evloop_del(t->ev, t->winch.fd);
		close(t->winch.fd);
	}
	term_close(t->term);
	sigprocmask(SIG_SETMASK, &t->winch_old, NULL);
	canvas_free(&t->cv);
	model_free(t->m);
	view_free(&t->v);
	free(t);
}

void
tui_emergency(void)
{
	term_emergency();
}
