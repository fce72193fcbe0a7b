/*
 * What the user is looking at, and what keys do: the screen shown, the
 * selection, sorting, search and filter, scrolling.  Pure: keys become
 * changes of the view and, for steering, a command (struct view_cmd)
 * that tui.c hands to steer.h.  The snapshot tests drive it directly.
 */
#ifndef CT_TUI_VIEW_H
# define CT_TUI_VIEW_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include "keys.h"

struct model;
struct model_row;

enum screen {
	SCR_LINES,		/* the main view: one row per line */
	SCR_CURVE,		/* the selected line's curve, source and code */
	SCR_POINTS,		/* progress points */
	SCR_THREADS,
	SCR_LOG,
	SCR_HELP,
	SCR_COUNT
};

enum sort_key {
	SORT_IMPACT,		/* the ranking: significant effects first */
	SORT_SAMPLES,
	SORT_EXPS,
	SORT_AT50,
	SORT_SLOPE,
	SORT_NAME,
	SORT_COUNT
};

enum prompt { PROMPT_NONE, PROMPT_SEARCH, PROMPT_FILTER };

enum cmd_kind {
	CMD_NONE,
	CMD_PIN,		/* toggle the pin on target */
	CMD_EXCLUDE,		/* toggle */
	CMD_EXCLUDE_FILE,	/* toggle, the target's file */
	CMD_LEVELS,		/* lo, hi */
	CMD_PAUSE,		/* on */
	CMD_RESET,
	CMD_GRANULARITY,	/* on: functions */
	CMD_SAVE,
	CMD_QUIT,
};

struct view_cmd {
	enum cmd_kind kind;
	unsigned target;
	bool is_func;
	bool on;
	unsigned lo, hi;
};

/* Speedup level focus presets, cycled by F7. */
struct levels_preset {
	const char *name;
	unsigned lo, hi;
};
extern const struct levels_preset levels_presets[];
extern const size_t n_levels_presets;

# define VIEW_TEXT 64

/* A clickable column of the lines view (recorded when drawn). */
struct view_col {
	int x, w;
	enum sort_key sort;	/* SORT_COUNT: not sortable */
};

struct view {
	enum screen screen;
	enum screen prev;		/* where Esc goes back to */
	enum sort_key sort;
	bool reverse;
	enum prompt prompt;
	char search[VIEW_TEXT], filter[VIEW_TEXT];
	unsigned point;			/* progress point of the curves */
	size_t levels_preset;

	/* The lines view: rows (model indices) filtered and sorted. */
	size_t *order;
	size_t norder, order_cap;
	size_t sel, top;		/* positions in order[] */
	bool follow;			/* the user chose a row: follow it when
					   the order changes (else keep the place) */
	bool have_sel;
	unsigned sel_target;		/* kept across updates */
	bool sel_is_func;

	/* The other screens' selection and scrolling. */
	size_t pt_sel, pt_top, th_sel, th_top;
	size_t log_back;		/* lines scrolled back from the end */
	size_t help_top;
	int src_scroll;			/* curve screen: source lines off centre */

	/* One line of feedback under the list; the banner stays when it goes. */
	char status[160];
	char banner[160];
	bool status_error;
	uint64_t status_ns;

	bool quit;
	bool redraw;			/* Ctrl-L: repaint everything */
	uint64_t now;			/* set by the caller: stamps messages */

	/* Layout of the last frame, for the mouse. */
	int rows, cols;
	int list_y, list_h;		/* rows of the list of the current screen */
	int colhdr_y;
	struct view_col colx[12];
	int ncols;
};

void view_init(struct view *);
void view_free(struct view *);
/* After a model update: filter, sort, keep the selection on its row. */
void view_arrange(struct view *, const struct model *);
/* One key; *cmd gets the steering command, if any. */
void view_key(struct view *, const struct model *, const struct key *, struct view_cmd *cmd);
/* The selected row, NULL when there is none. */
const struct model_row *view_row(const struct view *, const struct model *);
void view_status(struct view *, bool error, uint64_t now, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

const char *sort_name(enum sort_key);
/*
 * base/path.h's base_name(), which tui/ cannot include: the last
 * component of path (never NULL), or path when it ends with a slash.
 */
const char *view_base_name(const char *path);

#endif
