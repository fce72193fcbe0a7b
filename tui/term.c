#include "config.h"
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include "base/evloop.h"
#include "base/xmalloc.h"
#include "canvas.h"
#include "term.h"

/* Mouse reports: button presses (1000) in SGR form (1006), for wide terminals too. */
#define MOUSE_ON	"\033[?1000h\033[?1006h"
#define MOUSE_OFF	"\033[?1006l\033[?1000l"
#define RELAY_BUF	65536
#define PIPE_SIZE	(1 << 20)

struct term {
	struct ev_handler h;		/* the terminal became writable */
	struct evloop *ev;
	int in_fd;			/* the keyboard, non-blocking */
	bool in_owned;			/* opened here (else stdin) */
	int out_fd;			/* the terminal, non-blocking */
	int pipe_r;			/* curses' output, for the relay */
	FILE *curses_out;		/* the pipe's write end */
	FILE *curses_in;
	SCREEN *scr;
	struct termios saved;
	bool saved_ok;
	bool unicode, color, mouse_on, out_watched;
	int rows, cols;
	char buf[RELAY_BUF];		/* read from the pipe, not yet written */
	size_t off, len;
	attr_t attr[R_COUNT];
	short pair[R_COUNT];
};

static struct term *the_term;

/*
 * A crash must not leave the terminal raw, on the alternate screen,
 * reporting the mouse: the handler puts it back with async-signal-safe
 * calls only, restores the previous handler (a sanitizer's, say) and
 * returns, so that the fault happens again and is handled as it would
 * have been without the TUI.
 */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NCRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))
static struct sigaction crash_old[NCRASH];
static struct termios crash_tio;
static volatile sig_atomic_t crash_fd = -1, crash_tio_ok;
/* Mouse off, normal screen, cursor shown, attributes reset. */
#define CRASH_RESET MOUSE_OFF "\033[?1049l\033[?25h\033[0m\r\n"

/* The roles as colours: htop's scheme (the selection and bars in cyan). */
static const struct {
	short fg, bg;
	attr_t attr;
} color_roles[R_COUNT] = {
	[R_NORMAL] = { -1, -1, A_NORMAL },
	[R_DIM] = { -1, -1, A_DIM },
	[R_TITLE] = { COLOR_CYAN, -1, A_NORMAL },
	[R_VALUE] = { -1, -1, A_BOLD },
	[R_HEADER] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL },
	[R_SORTED] = { COLOR_BLACK, COLOR_CYAN, A_BOLD },
	[R_SELECTED] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
	[R_FKEY] = { -1, -1, A_BOLD },
	[R_FLABEL] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL },
	[R_POSITIVE] = { COLOR_GREEN, -1, A_BOLD },
	[R_NEGATIVE] = { COLOR_RED, -1, A_BOLD },
	[R_NEUTRAL] = { -1, -1, A_NORMAL },
	[R_UNKNOWN] = { -1, -1, A_DIM },
	[R_WARN] = { COLOR_YELLOW, -1, A_BOLD },
	[R_MARK] = { COLOR_MAGENTA, -1, A_BOLD },
	[R_EXCLUDED] = { -1, -1, A_DIM },
	[R_AXIS] = { COLOR_BLUE, -1, A_BOLD },
	[R_PROMPT] = { COLOR_BLACK, COLOR_YELLOW, A_NORMAL },
	[R_HOT] = { COLOR_RED, -1, A_NORMAL },
};

/* Without colours, attributes alone (htop's monochrome scheme). */
static const attr_t mono_roles[R_COUNT] = {
	[R_NORMAL] = A_NORMAL,
	[R_DIM] = A_DIM,
	[R_TITLE] = A_BOLD,
	[R_VALUE] = A_BOLD,
	[R_HEADER] = A_REVERSE,
	[R_SORTED] = A_REVERSE | A_BOLD,
	[R_SELECTED] = A_REVERSE,
	[R_FKEY] = A_NORMAL,
	[R_FLABEL] = A_REVERSE,
	[R_POSITIVE] = A_BOLD,
	[R_NEGATIVE] = A_BOLD | A_UNDERLINE,
	[R_NEUTRAL] = A_NORMAL,
	[R_UNKNOWN] = A_DIM,
	[R_WARN] = A_BOLD,
	[R_MARK] = A_BOLD,
	[R_EXCLUDED] = A_DIM,
	[R_AXIS] = A_NORMAL,
	[R_PROMPT] = A_REVERSE | A_BOLD,
	[R_HOT] = A_BOLD,
};

static void
write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t) w;
	}
}

/* Copy what curses wrote to the terminal, as much as it takes now. */
static void
relay(struct term *t)
{
	for (;;) {
		ssize_t n;

		if (t->off == t->len) {
			t->off = t->len = 0;
			n = read(t->pipe_r, t->buf, sizeof(t->buf));
			if (n <= 0)
				break;
			t->len = (size_t) n;
		}
		n = write(t->out_fd, t->buf + t->off, t->len - t->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			/* The terminal is gone (EIO after a hangup): drop the output. */
			t->off = t->len;
			continue;
		}
		if (n <= 0)
			break;
		t->off += (size_t) n;
	}
	/* Be woken when the terminal takes more, only while something waits. */
	if (t->off < t->len && !t->out_watched) {
		evloop_add(t->ev, t->out_fd, EPOLLOUT, &t->h);
		t->out_watched = true;
	} else if (t->off == t->len && t->out_watched) {
		evloop_del(t->ev, t->out_fd);
		t->out_watched = false;
	}
}

static void
on_writable(struct ev_handler *h, uint32_t events)
{
	relay((struct term *) h);
}

bool
term_busy(struct term *t)
{
	int queued = 0;

	relay(t);
	if (t->off < t->len)
		return true;
	return ioctl(t->pipe_r, FIONREAD, &queued) == 0 && queued > 0;
}

/* The terminal's own descriptor, opened again: O_NONBLOCK on it is ours alone. */
static int
reopen(int fd, int flags)
{
	char path[64];
	const char *name = ttyname(fd);
	int r;

	if (name && (r = open(name, flags | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) >= 0)
		return r;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

static void
on_crash(int sig)
{
	int saved = errno;

	if (crash_fd >= 0) {
		ssize_t n = write(crash_fd, CRASH_RESET, sizeof(CRASH_RESET) - 1);

		(void) n;
	}
	if (crash_tio_ok)
		tcsetattr(STDIN_FILENO, TCSANOW, &crash_tio);
	for (size_t i = 0; i < NCRASH; i++)
		if (crash_signals[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	errno = saved;
}

static void
crash_handlers(struct term *t, bool on)
{
	struct sigaction sa = { .sa_handler = on_crash };

	if (on) {
		crash_tio = t->saved;
		crash_tio_ok = t->saved_ok;
		crash_fd = t->out_fd;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < NCRASH; i++)
			sigaction(crash_signals[i], &sa, &crash_old[i]);
	} else {
		crash_fd = -1;
		for (size_t i = 0; i < NCRASH; i++)
			sigaction(crash_signals[i], &crash_old[i], NULL);
	}
}

static void
read_size(struct term *t)
{
	struct winsize ws;

	if (ioctl(t->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	} else {
		t->rows = 24;
		t->cols = 80;
	}
}

static void
raw_mode(struct term *t)
{
	struct termios tio;

	if (tcgetattr(STDIN_FILENO, &t->saved) < 0)
		return;
	t->saved_ok = true;
	tio = t->saved;
	tio.c_lflag &= ~(ICANON | ECHO | IEXTEN);
	tio.c_iflag &= ~(IXON | ICRNL | INLCR | IGNCR);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	/* ^C still interrupts (SIGINT ends the session); ^Z would stop the supervisor. */
	tio.c_cc[VSUSP] = _POSIX_VDISABLE;
	tcsetattr(STDIN_FILENO, TCSANOW, &tio);
}

/* curses sizes itself from LINES and COLUMNS when its output is no terminal. */
static SCREEN *
new_screen(struct term *t)
{
	char *old_l = getenv("LINES"), *old_c = getenv("COLUMNS"), num[16];
	char *sl = old_l ? xstrdup(old_l) : NULL, *sc = old_c ? xstrdup(old_c) : NULL;
	SCREEN *scr;

	snprintf(num, sizeof(num), "%d", t->rows);
	setenv("LINES", num, 1);
	snprintf(num, sizeof(num), "%d", t->cols);
	setenv("COLUMNS", num, 1);
	scr = newterm(NULL, t->curses_out, t->curses_in);
	if (sl)
		setenv("LINES", sl, 1);
	else
		unsetenv("LINES");
	if (sc)
		setenv("COLUMNS", sc, 1);
	else
		unsetenv("COLUMNS");
	free(sl);
	free(sc);
	return scr;
}

static void
setup_roles(struct term *t, bool no_color)
{
	t->color = !no_color && has_colors();
	if (t->color) {
		start_color();
		use_default_colors();
	}
	for (int r = 0; r < R_COUNT; r++) {
		t->pair[r] = 0;
		if (!t->color) {
			t->attr[r] = mono_roles[r];
			continue;
		}
		t->attr[r] = color_roles[r].attr;
		if (color_roles[r].fg != -1 || color_roles[r].bg != -1) {
			t->pair[r] = (short) (r + 1);
			init_pair(t->pair[r], color_roles[r].fg, color_roles[r].bg);
		}
	}
}

struct term *
term_open(struct evloop *ev, const struct term_config *cfg, const char **why)
{
	struct term *t;
	int p[2];
	const char *cs;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*why = "stdin or stdout is not a terminal";
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->ev = ev;
	t->h.fn = on_writable;
	t->in_fd = t->out_fd = t->pipe_r = -1;
	if ((t->out_fd = reopen(STDOUT_FILENO, O_WRONLY)) < 0) {
		*why = "cannot open the terminal";
		goto fail;
	}
	if ((t->in_fd = reopen(STDIN_FILENO, O_RDONLY)) >= 0)
		t->in_owned = true;
	else
		t->in_fd = STDIN_FILENO;
	if (pipe2(p, O_CLOEXEC) < 0) {
		*why = "cannot make a pipe";
		goto fail;
	}
	/* A big pipe: a full frame never fills it (it is empty when one is drawn). */
	fcntl(p[1], F_SETPIPE_SZ, PIPE_SIZE);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	t->pipe_r = p[0];
	t->curses_out = fdopen(p[1], "w");
	t->curses_in = fopen("/dev/null", "re");
	if (!t->curses_out || !t->curses_in) {
		if (!t->curses_out)
			close(p[1]);
		*why = "cannot open curses' streams";
		goto fail;
	}
	read_size(t);
	cs = nl_langinfo(CODESET);
	t->unicode = cs && !strcmp(cs, "UTF-8");
	if (!(t->scr = new_screen(t))) {
		*why = "curses does not know this terminal (TERM)";
		goto fail;
	}
	set_term(t->scr);
	/* A terminal that cannot move its cursor (TERM=dumb) cannot show a screen. */
	{
		char *cup = tigetstr("cup");

		if (!cup || cup == (char *) -1) {
			endwin();
			delscreen(t->scr);
			t->scr = NULL;
			/* What endwin wrote is no use to a terminal like that. */
			while (read(t->pipe_r, t->buf, sizeof(t->buf)) > 0)
				;
			*why = "this terminal (TERM) cannot address the cursor";
			goto fail;
		}
	}
	raw_mode(t);
	noecho();
	nonl();
	curs_set(0);
	leaveok(stdscr, TRUE);
	scrollok(stdscr, FALSE);
	typeahead(-1);
	setup_roles(t, cfg->no_color);
	the_term = t;
	crash_handlers(t, true);
	return t;
fail:
	if (t->curses_out)
		fclose(t->curses_out);
	if (t->curses_in)
		fclose(t->curses_in);
	if (t->pipe_r >= 0)
		close(t->pipe_r);
	if (t->out_fd >= 0)
		close(t->out_fd);
	if (t->in_owned)
		close(t->in_fd);
	free(t);
	return NULL;
}

/* Everything still queued, straight to the terminal: at most a second. */
static void
flush_blocking(struct term *t)
{
	uint64_t start = evloop_now_ns();

	for (;;) {
		struct pollfd pf = { .fd = t->out_fd, .events = POLLOUT };

		if (!term_busy(t))
			return;
		if ((evloop_now_ns() - start) / 1000000 > 1000)
			return;
		poll(&pf, 1, 100);
	}
}

static void
restore(struct term *t)
{
	if (t->mouse_on) {
		fflush(t->curses_out);
		write_all(fileno(t->curses_out), MOUSE_OFF, sizeof(MOUSE_OFF) - 1);
		t->mouse_on = false;
	}
	endwin();
	fflush(t->curses_out);
	flush_blocking(t);
	if (t->saved_ok)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &t->saved);
}

void
term_close(struct term *t)
{
	if (!t)
		return;
	restore(t);
	crash_handlers(t, false);
	if (t->out_watched)
		evloop_del(t->ev, t->out_fd);
	the_term = NULL;
	delscreen(t->scr);
	fclose(t->curses_out);
	fclose(t->curses_in);
	close(t->pipe_r);
	close(t->out_fd);
	if (t->in_owned)
		close(t->in_fd);
	free(t);
}

void
term_emergency(void)
{
	struct term *t = the_term;

	/* Once: a die during the restore must not come back here. */
	the_term = NULL;
	if (t)
		restore(t);
}

void
term_size(const struct term *t, int *rows, int *cols)
{
	*rows = t->rows;
	*cols = t->cols;
}

bool
term_resize(struct term *t)
{
	int r = t->rows, c = t->cols;

	read_size(t);
	if (r == t->rows && c == t->cols)
		return false;
	resizeterm(t->rows, t->cols);
	return true;
}

bool
term_unicode(const struct term *t)
{
	return t->unicode;
}

bool
term_color(const struct term *t)
{
	return t->color;
}

void
term_present(struct term *t, const struct canvas *cv, bool full)
{
	int rows = cv->rows < LINES ? cv->rows : LINES;
	int cols = cv->cols < COLS ? cv->cols : COLS;

	for (int y = 0; y < rows; y++)
		for (int x = 0; x < cols; x++) {
			const struct cell *c = &cv->cells[y * cv->cols + x];
			wchar_t w[2] = { (wchar_t) c->ch, 0 };
			cchar_t cc;

			if (!c->ch)
				continue;	/* the right half of a wide character */
			if (!t->unicode && c->ch >= 0x80)
				w[0] = '?';
			setcchar(&cc, w, t->attr[c->role], t->pair[c->role], NULL);
			mvadd_wch(y, x, &cc);
		}
	if (full)
		clearok(curscr, TRUE);
	wnoutrefresh(stdscr);
	doupdate();
	fflush(t->curses_out);
	if (!t->mouse_on) {
		write_all(fileno(t->curses_out), MOUSE_ON, sizeof(MOUSE_ON) - 1);
		t->mouse_on = true;
	}
	relay(t);
}

int
term_input_fd(const struct term *t)
{
	return t->in_fd;
}

ssize_t
term_read(struct term *t, void *buf, size_t size)
{
	struct pollfd pf = { .fd = t->in_fd, .events = POLLIN };

	/* stdin itself may be blocking: read only what is there. */
	if (!t->in_owned && poll(&pf, 1, 0) <= 0) {
		errno = EAGAIN;
		return -1;
	}
	return read(t->in_fd, buf, size);
}
