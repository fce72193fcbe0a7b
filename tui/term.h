/*
 * The terminal: curses as the canvas's second backend, the keyboard, and
 * a relay that keeps a slow terminal from ever blocking the supervisor.
 *
 * curses writes into a pipe, not into the terminal; the event loop copies
 * the pipe to a non-blocking descriptor of the terminal as fast as the
 * terminal takes it, and no frame is drawn while the last one is still
 * on its way.  So a terminal that stops reading (a stalled ssh, a paused
 * tmux pane) delays the picture, never a paused thread's restart.  Input
 * is read from a non-blocking descriptor of the terminal, in the mode set
 * here (no echo, no line editing, signals from ^C kept, ^Z off).
 */
#ifndef CT_TUI_TERM_H
# define CT_TUI_TERM_H

# include <stdbool.h>
# include <stddef.h>
# include <sys/types.h>

struct canvas;
struct evloop;
struct term;

struct term_config {
	bool no_color;		/* --no-color, NO_COLOR */
};

/* NULL (and *why) when stdin or stdout is no usable terminal. */
struct term *term_open(struct evloop *, const struct term_config *, const char **why);
/* Restore the terminal; the last frame is flushed (waiting at most a second). */
void term_close(struct term *);
/* From a die hook: restore the terminal, whatever state it is in. */
void term_emergency(void);

void term_size(const struct term *, int *rows, int *cols);
/* Read the size again (SIGWINCH): true if it changed. */
bool term_resize(struct term *);
bool term_unicode(const struct term *);
bool term_color(const struct term *);
/* The last frame has not reached the terminal yet (after passing on what it takes): draw no other. */
bool term_busy(struct term *);
/* Show the canvas (all of it again when full). */
void term_present(struct term *, const struct canvas *, bool full);
/* The keyboard's descriptor (non-blocking), and reading it. */
int term_input_fd(const struct term *);
ssize_t term_read(struct term *, void *buf, size_t size);

#endif
