/*
 * The live TUI, pumped by the supervisor's event loop: keys are read
 * when the terminal has some, frames are drawn on a timer (at most
 * TUI_FPS a second, and never while the last frame is still on its way
 * to the terminal), the model is rebuilt four times a second or after a
 * command.  Nothing here waits: see term.h for the terminal's side.
 *
 * It sees the profiler through src/model/model.h (what to show) and
 * src/model/steer.h (what the keys ask for); the session is an opaque handle.
 */
#ifndef CT_TUI_TUI_H
# define CT_TUI_TUI_H

# include <stdbool.h>

struct evloop;
struct session;
struct tui;

# define TUI_FPS 10

struct tui_config {
	bool no_color;		/* --no-color or NO_COLOR */
};

/* NULL, with *why, when the terminal cannot be used. */
struct tui *tui_open(struct session *, struct evloop *, const struct tui_config *,
		     const char **why);
/* The session is over (detached): show its end, keep the results browsable. */
void tui_session_over(struct tui *, const char *message);
/* The user quit (q, F10). */
bool tui_quit_requested(const struct tui *);
void tui_close(struct tui *);
/* From a die hook: give the terminal back. */
void tui_emergency(void);

#endif
