/*
 * Snapshots of every TUI screen: a fixed model (a session of gt-unequal
 * with a contended mutex line, an unprofiled line, hostile file names,
 * two progress points, threads, a log, the curve screen's source and
 * code) drawn through the text canvas, no terminal involved.  Each
 * snapshot is written to OUTDIR/NAME.txt; tui-snapshot.test compares them
 * with tests/tui-snapshots/.  Keys are driven through view_key, so the
 * snapshots also show what search, filter, sort and steering keys do.
 *
 * Usage: unit-tui-snapshot OUTDIR
 */
#include "config.h"
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "canvas.h"
#include "draw.h"
#include "keys.h"
#include "model/model.h"
#include "unit.h"
#include "view.h"

#define S 1000000000ULL

static struct model_level lv_long[] = {
	{ 10, 3, true, 0.093, 0.061, 0.125 },
	{ 25, 4, true, 0.238, 0.201, 0.275 },
	{ 50, 5, true, 0.381, 0.334, 0.428 },
	{ 75, 2, true, 0.402, 0.322, 0.482 },
	{ 100, 3, true, 0.397, 0.351, 0.443 },
};
static struct model_level lv_short[] = {
	{ 10, 2, true, 0.004, -0.021, 0.029 },
	{ 25, 3, true, -0.008, -0.033, 0.017 },
	{ 50, 4, true, 0.011, -0.018, 0.040 },
	{ 100, 3, true, 0.006, -0.031, 0.043 },
};
static struct model_level lv_mutex[] = {
	{ 25, 3, true, -0.061, -0.090, -0.032 },
	{ 50, 3, true, -0.118, -0.160, -0.076 },
	{ 100, 2, true, -0.190, -0.262, -0.118 },
};
static struct model_level lv_claim[] = {
	{ 50, 1, false, 0.05, NAN, NAN },
	{ 100, 1, false, 0.2, NAN, NAN },
};

static struct model_row rows[] = {
	{
		.target = 3, .file = "/work/tests/gt-unequal.c", .line = 27,
		.func = "branch_long", .dso = "/work/tests/gt-unequal", .samples = 6120,
		.samples_pct = 61.2, .n_exp = 17, .rank = 1,
		.at50 = { 50, 5, true, 0.381, 0.334, 0.428 },
		.slope_valid = true, .slope = 0.93, .slope_lo = 0.81, .slope_hi = 1.05,
		.impact = 0.421, .impact_lo = 0.392, .impact_hi = 0.450,
		.verdict = MODEL_OPTIMIZE, .levels = lv_long, .nlevels = 5,
		.flags = MODEL_ROW_CURRENT,
	},
	{
		.target = 5, .file = "/work/tests/gt-unequal.c", .line = 36,
		.func = "branch_short", .dso = "/work/tests/gt-unequal", .samples = 3790,
		.samples_pct = 37.9, .n_exp = 12, .rank = 2,
		.at50 = { 50, 4, true, 0.011, -0.018, 0.040 },
		.slope_valid = true, .slope = 0.02, .slope_lo = -0.09, .slope_hi = 0.13,
		.impact = 0.007, .impact_lo = -0.020, .impact_hi = 0.034,
		.verdict = MODEL_NO_EFFECT, .levels = lv_short, .nlevels = 4,
	},
	{
		.target = 9, .file = "/work/tests/gt-mutex.c", .line = 40,
		.func = "locked_update", .dso = "/work/tests/gt-unequal", .samples = 410,
		.samples_pct = 4.1, .n_exp = 8, .rank = 4,
		.at50 = { 50, 3, true, -0.118, -0.160, -0.076 },
		.slope_valid = true, .slope = -0.24, .slope_lo = -0.33, .slope_hi = -0.15,
		.impact = -0.19, .impact_lo = -0.25, .impact_hi = -0.13,
		.verdict = MODEL_CONTENTION, .levels = lv_mutex, .nlevels = 3,
		.flags = MODEL_ROW_PINNED,
	},
	{
		.target = 11, .file = "/work/tests/gt.h", .line = 210,
		.func = "gt_claim", .dso = "/work/tests/gt-unequal", .samples = 52,
		.samples_pct = 0.5, .n_exp = 2, .rank = 3,
		.at50 = { 50, 1, false, 0.05, NAN, NAN },
		.slope = NAN, .slope_lo = NAN, .slope_hi = NAN,
		.impact = NAN, .impact_lo = NAN, .impact_hi = NAN,
		.verdict = MODEL_NOT_ENOUGH, .levels = lv_claim, .nlevels = 2,
	},
	{
		.target = 12, .file = "/work/tests/gt.h", .line = 230,
		.func = "gt_progress", .dso = "/work/tests/gt-unequal", .samples = 31,
		.samples_pct = 0.3,
		.slope = NAN, .slope_lo = NAN, .slope_hi = NAN,
		.impact = NAN, .impact_lo = NAN, .impact_hi = NAN,
		.flags = MODEL_ROW_EXCLUDED,
	},
	{
		/* A hostile name: UTF-8, a control character, a long path. */
		.target = 14,
		.file = "/very/long/directory/name/that/does/not/fit/na\xc3\xafve\x01\x1b[31m.c",
		.line = 7, .func = "f\xe2\x80\xa8oo\x7f", .dso = "/x", .samples = 9,
		.samples_pct = 0.1,
		.slope = NAN, .slope_lo = NAN, .slope_hi = NAN,
		.impact = NAN, .impact_lo = NAN, .impact_hi = NAN,
	},
};

static struct model_thread threads[] = {
	{ 4242, 4242, "gt-unequal", MODEL_T_BLOCKED, 12, 0, "pthread_join",
	  "pthread_join from main (gt-unequal.c:61)" },
	{ 4250, 4242, "gt-unequal", MODEL_T_RUNNING, 6120, 0, "branch_long", NULL },
	{ 4251, 4242, "gt-unequal", MODEL_T_PAUSED, 3790, 1840000000ULL, "branch_short", NULL },
	/* A second process (-p A,B, or a child with -f): its own group. */
	{ 4300, 4300, "gt-worker", MODEL_T_RUNNING, 512, 0, "serve", NULL },
	{ 4302, 4300, "gt-worker", MODEL_T_BLOCKED, 40, 0, "epoll_wait", NULL },
	{ 4249, 4242, "gt-unequal", MODEL_T_EXITED, 88, 12000000ULL, NULL, NULL },
};

static struct model_log_line log_lines[] = {
	{ 1 * S / 10, MODEL_LOG_WARN, "causaltop: warning: /usr/lib/x86_64-linux-gnu/libc.so.6 has no debug info" },
	{ 2 * S, MODEL_LOG_TARGET, "gt: calibrated, 181.7 loops per us" },
	{ 31 * S / 10, MODEL_LOG_INFO, "thread 4249 (gt-unequal) is gone" },
	{ 45 * S, MODEL_LOG_INFO, "progress point \"request\" has gone quiet: no event for 5 s" },
	{ 46 * S, MODEL_LOG_TARGET, "a line with a tab\tand an escape \x1b[2J in it" },
};

static struct model_src_line src[] = {
	{ 22, "static void *", 0 },
	{ 23, "branch_long(void *arg GT_UNUSED)", 0 },
	{ 24, "{", 0 },
	{ 25, "\tunsigned long n = gt_n(LONG);", 3 },
	{ 26, "", 0 },
	{ 27, "\tfor (unsigned long i = 0, x = 0; i < n; i++) gt_sink = x = x * GT_MUL + i;\t/* GT:long */", 6120 },
	{ 28, "\treturn NULL;", 0 },
	{ 29, "}", 0 },
	{ 30, "", 0 },
	{ 31, "static void *", 0 },
	{ 32, "branch_short(void *arg GT_UNUSED)", 0 },
};

static struct model_insn insns[] = {
	{ 0x1436, "test rbx, rbx", 2, true },
	{ 0x1439, "je 0x1460", 0, true },
	{ 0x143b, "mov edx, 0", 0, true },
	{ 0x1440, "movabs rcx, 0x9e3779b97f4a7c15", 1, true },
	{ 0x144a, "imul rax, rcx", 4391, true },
	{ 0x144e, "add rax, rdx", 1702, true },
	{ 0x1451, "mov qword ptr fs:[0xfffffffffffffff8], rax", 20, true },
	{ 0x145a, "add rdx, 1", 3, true },
	{ 0x145e, "cmp rbx, rdx", 1, true },
	{ 0x145e + 3, "jne 0x144a", 0, true },
};

static struct model_point points[2];

static void
fill_model(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->command = "tests/gt-unequal -n 20000 -c 181.7";
	m->pid = 4242;
	m->phase = MODEL_PROFILING;
	m->elapsed_ns = 64 * S + S / 2;
	m->threads_traced = 3;
	m->threads_running = 1;
	m->threads_paused = 1;
	m->threads_blocked = 1;
	m->threads_ever = 4;
	m->sampler = "cpu cpu-clock 1.000 ms";
	m->samples = 10000;
	m->samples_in_scope = 9950;
	m->sample_rate = 1012;
	m->experiments = true;
	m->exp_done = 42;
	m->exp_baselines = 14;
	m->exp_rate = 0.65;
	m->exp_running = true;
	m->exp_what = "gt-unequal.c:27";
	m->exp_pct = 50;
	m->exp_left_ns = 400000000ULL;
	m->exp_len_ns = 800000000ULL;
	m->pinned = true;
	m->pin_what = "gt-mutex.c:40";
	m->focus_lo = 0;
	m->focus_hi = 100;
	m->n_excluded = 1;
	m->delay_pct = 12.1;
	m->cpu_pct = 3.2;
	points[0] = (struct model_point) {
		.name = "item", .source = "page", .count = 12345, .rate = 191.2, .nhist = 30,
	};
	for (unsigned i = 0; i < 30; i++)
		points[0].hist[i] = (float) (150 + (i * 37 % 11) * 5);
	points[1] = (struct model_point) {
		.name = "request", .latency = true, .source = "coz shim", .count = 80,
		.arrivals = 82, .rate = 0, .nhist = 12, .quiet = true,
	};
	for (unsigned i = 0; i < 6; i++)
		points[1].hist[i] = 10;
	m->points = points;
	m->npoints = 2;
	m->point = 0;
	m->rows = rows;
	m->nrows = sizeof(rows) / sizeof(rows[0]);
	m->threads = threads;
	m->nthreads = sizeof(threads) / sizeof(threads[0]);
	m->log = log_lines;
	m->nlog = sizeof(log_lines) / sizeof(log_lines[0]);
	m->log_total = 7;
	m->detail = (struct model_detail) {
		.valid = true, .target = 3, .center = 27, .src = src,
		.nsrc = sizeof(src) / sizeof(src[0]), .insns = insns,
		.ninsns = sizeof(insns) / sizeof(insns[0]),
	};
}

static const char *outdir;
static const uint64_t now = 100 * S;

static void
snap(const char *name, struct model *m, struct view *v, int rows_, int cols, bool unicode,
     bool roles)
{
	struct canvas cv;
	char path[1024];
	FILE *f;

	canvas_init(&cv, rows_, cols, unicode);
	view_arrange(v, m);
	draw_frame(&cv, m, v, now);
	snprintf(path, sizeof(path), "%s/%s.txt", outdir, name);
	f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (f) {
		canvas_dump(&cv, f, roles);
		fclose(f);
	}
	canvas_free(&cv);
}

static void
press(struct view *v, struct model *m, int key, struct view_cmd *cmd)
{
	struct key k = { .key = key };
	struct view_cmd dummy;

	/* Only the last key's message shows (the clock stands still here). */
	v->status[0] = '\0';
	v->now = now;
	view_key(v, m, &k, cmd ? cmd : &dummy);
	view_arrange(v, m);
}

static void
type(struct view *v, struct model *m, const char *s)
{
	for (; *s; s++)
		press(v, m, (unsigned char) *s, NULL);
}

/* A click, on what an 80x24 frame shows (the view keeps its layout). */
static void
click(struct view *v, struct model *m, int y, int x, enum mouse_button b, struct view_cmd *cmd)
{
	struct key k = { .key = K_MOUSE, .x = x, .y = y, .button = b };
	struct view_cmd dummy;
	struct canvas cv;

	canvas_init(&cv, 24, 80, true);
	view_arrange(v, m);
	draw_frame(&cv, m, v, now);
	canvas_free(&cv);
	if (y == -2)
		k.y = v->colhdr_y;
	if (y == -3)
		k.y = v->list_y;
	if (y == -4)
		k.y = v->list_y + 1;
	v->now = now;
	view_key(v, m, &k, cmd ? cmd : &dummy);
	view_arrange(v, m);
}

/* Keys decoded from a terminal's bytes. */
static void
test_keys(void)
{
	static const struct {
		const char *bytes;
		int key;
	} cases[] = {
		{ "\x1b[A", K_UP }, { "\x1bOB", K_DOWN }, { "\x1b[5~", K_PGUP },
		{ "\x1b[6~", K_PGDN }, { "\x1b[H", K_HOME }, { "\x1b[4~", K_END },
		{ "\x1bOP", K_F(1) }, { "\x1b[11~", K_F(1) }, { "\x1b[[A", K_F(1) },
		{ "\x1b[15~", K_F(5) }, { "\x1b[17~", K_F(6) }, { "\x1b[21~", K_F(10) },
		{ "\x1b[1;2P", K_F(1) }, { "\x1b[Z", K_BTAB }, { "\r", K_ENTER },
		{ "\x7f", K_BACKSPACE }, { "\x0c", K_CTRL_L }, { "q", 'q' },
		{ "\xc3\xa9", 0xe9 },
	};
	struct keydec kd = { .len = 0 };
	struct key k;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		keys_push(&kd, cases[i].bytes, strlen(cases[i].bytes));
		CHECK(keys_next(&kd, &k, false) && k.key == cases[i].key, "case %zu: %d", i, k.key);
		CHECK(!keys_pending(&kd), "case %zu: bytes left", i);
	}
	/* A lone Escape waits for more, then is Escape. */
	keys_push(&kd, "\x1b", 1);
	CHECK(!keys_next(&kd, &k, false), "a lone ESC is not decided at once");
	CHECK(keys_next(&kd, &k, true) && k.key == K_ESC, "a lone ESC times out as Escape");
	/* A sequence split across reads. */
	keys_push(&kd, "\x1b[2", 3);
	CHECK(!keys_next(&kd, &k, false), "half a sequence waits");
	keys_push(&kd, "1~x", 3);
	CHECK(keys_next(&kd, &k, false) && k.key == K_F(10), "F10 once whole");
	CHECK(keys_next(&kd, &k, false) && k.key == 'x', "then x");
	/* Mouse: SGR press, release ignored, wheel; X10. */
	{
		static const char mouse[] = "\x1b[<0;12;5M\x1b[<0;12;5m\x1b[<65;3;4M\x1b[M !!";

		keys_push(&kd, mouse, sizeof(mouse) - 1);
	}
	CHECK(keys_next(&kd, &k, false) && k.key == K_MOUSE && k.x == 11 && k.y == 4 &&
	      k.button == M_LEFT, "SGR click at 11,4 (%d,%d)", k.x, k.y);
	CHECK(keys_next(&kd, &k, false) && k.key == K_MOUSE && k.button == M_WHEEL_DOWN,
	      "the release is skipped, the wheel seen");
	CHECK(keys_next(&kd, &k, false) && k.key == K_MOUSE && k.x == 0 && k.y == 0 &&
	      k.button == M_LEFT, "X10 click at 0,0");
	CHECK(!keys_pending(&kd), "all consumed");
	/* Garbage never blocks and never overflows. */
	for (int i = 0; i < 10000; i++) {
		unsigned char b = (unsigned char) (i * 131 + 7);

		keys_push(&kd, &b, 1);
		while (keys_next(&kd, &k, i % 7 == 0))
			;
	}
	while (keys_next(&kd, &k, true))
		;
	CHECK(!keys_pending(&kd), "garbage drained");
}

int
main(int argc, char **argv)
{
	struct model m;
	struct view v;
	struct view_cmd cmd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 99;
	}
	outdir = argv[1];
	/* wcwidth needs a UTF-8 locale for the unicode snapshots; C.UTF-8 is always there. */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
	test_keys();
	fill_model(&m);

	/* The lines screen at 80x24 and 120x40, Unicode and ASCII, and its roles. */
	view_init(&v);
	snap("lines-80x24", &m, &v, 24, 80, true, false);
	snap("lines-80x24-ascii", &m, &v, 24, 80, false, false);
	snap("lines-120x40", &m, &v, 40, 120, true, false);
	snap("lines-80x24-roles", &m, &v, 24, 80, false, true);
	/* Samples that land in a --progress trap: the cost row says what share. */
	m.samples_in_trap = 320;
	snap("lines-traps-80x24", &m, &v, 24, 80, true, false);
	m.samples_in_trap = 0;
	/* The host's other guests took the CPUs: the experiments' row says so. */
	m.steal_pct = 7.4;
	m.steal_warn = true;
	snap("lines-steal-80x24", &m, &v, 24, 80, true, false);
	/* Pinned, the running experiment is the pinned line's: "now" does not
	   name it again, and the pin still shows beside the steal at 80 columns. */
	m.pinned = true;
	m.pin_what = "gt-amdahl.c:38";
	m.exp_what = "gt-amdahl.c:38";
	snap("lines-steal-pinned-80x24", &m, &v, 24, 80, true, false);
	m.pin_what = "gt-mutex.c:40";
	m.exp_what = "gt-unequal.c:27";
	m.steal_warn = false;
	CHECK(view_row(&v, &m) == &rows[0], "the top row is the first by impact");
	/* Untouched, the selection stays on top when the ranking changes... */
	rows[0].rank = 2;
	rows[1].rank = 1;
	view_arrange(&v, &m);
	CHECK(view_row(&v, &m) == &rows[1], "the selection stays on the top row");
	/* ...once the user picked a row, it follows that row; Home: the top again. */
	press(&v, &m, K_DOWN, NULL);
	CHECK(view_row(&v, &m) == &rows[0], "Down selects the second row");
	rows[0].rank = 1;
	rows[1].rank = 2;
	view_arrange(&v, &m);
	CHECK(view_row(&v, &m) == &rows[0] && v.sel == 0, "a chosen row is followed");
	press(&v, &m, K_HOME, NULL);
	rows[0].rank = 2;
	rows[1].rank = 1;
	view_arrange(&v, &m);
	CHECK(view_row(&v, &m) == &rows[1], "after Home, the top row again");
	rows[0].rank = 1;
	rows[1].rank = 2;
	view_arrange(&v, &m);

	/* Sorting: by samples, then by name reversed, through keys and a header click. */
	press(&v, &m, K_F(6), NULL);
	CHECK(v.sort == SORT_SAMPLES, "F6: next sort key");
	press(&v, &m, '<', NULL);
	press(&v, &m, '<', NULL);
	CHECK(v.sort == SORT_NAME, "<: previous sort key (wraps)");
	press(&v, &m, 'I', NULL);
	snap("lines-sorted-name-reversed", &m, &v, 24, 80, true, false);
	click(&v, &m, -2, v.colx[3].x, M_LEFT, NULL);
	CHECK(v.sort == SORT_SAMPLES && !v.reverse, "a click on SAMP%% sorts by samples");
	click(&v, &m, -2, v.colx[0].x, M_LEFT, NULL);
	CHECK(v.sort == SORT_IMPACT, "a click on # sorts by impact");

	/* Search: selects the first match, F3 the next; filter: hides the others. */
	press(&v, &m, '/', NULL);
	type(&v, &m, "gt.h");
	snap("lines-search", &m, &v, 24, 80, true, false);
	CHECK(view_row(&v, &m) && view_row(&v, &m)->target == 11, "search selects gt.h:210");
	press(&v, &m, K_F(3), NULL);
	CHECK(view_row(&v, &m) && view_row(&v, &m)->target == 12, "F3: the next match");
	press(&v, &m, K_ENTER, NULL);
	press(&v, &m, '\\', NULL);
	type(&v, &m, "unequal");
	press(&v, &m, K_ENTER, NULL);
	snap("lines-filter", &m, &v, 24, 80, true, false);
	CHECK(v.norder == 2, "filter: 2 rows match 'unequal' (%zu)", v.norder);
	press(&v, &m, K_ESC, NULL);
	CHECK(v.norder == m.nrows && !v.filter[0], "Esc clears the filter");

	/* Steering keys become commands on the selected row. */
	press(&v, &m, K_HOME, NULL);
	press(&v, &m, K_DOWN, NULL);
	press(&v, &m, 'p', &cmd);
	CHECK(cmd.kind == CMD_PIN && cmd.target == 5 && !cmd.is_func, "p pins the selected line");
	press(&v, &m, K_F(8), &cmd);
	CHECK(cmd.kind == CMD_EXCLUDE && cmd.target == 5, "F8 excludes it");
	press(&v, &m, 'X', &cmd);
	CHECK(cmd.kind == CMD_EXCLUDE_FILE && cmd.target == 5, "X excludes its file");
	press(&v, &m, 'R', &cmd);
	CHECK(cmd.kind == CMD_RESET && cmd.target == 5, "R resets it");
	press(&v, &m, ' ', &cmd);
	CHECK(cmd.kind == CMD_PAUSE && cmd.on, "Space pauses");
	press(&v, &m, K_F(7), &cmd);
	CHECK(cmd.kind == CMD_LEVELS && cmd.lo == 5 && cmd.hi == 30, "F7: the low levels");
	press(&v, &m, K_F(9), &cmd);
	CHECK(cmd.kind == CMD_SAVE, "F9 saves");
	click(&v, &m, 23, 8 * 8 + 2, M_LEFT, &cmd);
	CHECK(cmd.kind == CMD_SAVE, "a click on F9Save saves");

	/* The curve screen: Enter on the first row; at 80x24, 120x40, and ASCII. */
	press(&v, &m, K_HOME, NULL);
	press(&v, &m, K_ENTER, NULL);
	CHECK(v.screen == SCR_CURVE, "Enter opens the curve");
	snap("curve-80x24", &m, &v, 24, 80, true, false);
	snap("curve-120x40", &m, &v, 40, 120, true, false);
	snap("curve-100x30-ascii", &m, &v, 30, 100, false, false);
	press(&v, &m, K_ESC, NULL);
	CHECK(v.screen == SCR_LINES, "Esc goes back to the lines");
	click(&v, &m, -4, 10, M_LEFT, NULL);
	CHECK(v.screen == SCR_LINES && view_row(&v, &m) == &rows[1], "a click on a row selects it");
	click(&v, &m, -4, 10, M_LEFT, NULL);
	CHECK(v.screen == SCR_CURVE, "a second click on the selected row opens its curve");
	press(&v, &m, K_ESC, NULL);

	/* The other screens. */
	press(&v, &m, K_TAB, NULL);
	CHECK(v.screen == SCR_POINTS, "Tab: the progress points");
	snap("points-80x24", &m, &v, 24, 80, true, false);
	press(&v, &m, '3', NULL);
	m.nprocs = 2;
	snap("threads-80x24", &m, &v, 24, 80, true, false);
	m.nprocs = 1;
	press(&v, &m, '4', NULL);
	snap("log-80x24", &m, &v, 24, 80, true, false);
	press(&v, &m, K_F(1), NULL);
	CHECK(v.screen == SCR_HELP, "F1: help");
	snap("help-80x24", &m, &v, 24, 80, true, false);
	press(&v, &m, K_ESC, NULL);
	CHECK(v.screen == SCR_LOG, "Esc leaves the help for where it was");

	/* Progress point choice: Enter on the second shows its curves. */
	press(&v, &m, '2', NULL);
	press(&v, &m, K_DOWN, NULL);
	press(&v, &m, K_ENTER, NULL);
	CHECK(v.point == 1 && v.screen == SCR_LINES, "Enter on a point: its curves");

	/* The session over, experiments paused, nothing pinned: the header says so. */
	m.phase = MODEL_ENDED;
	m.end_reason = "exited with status 0";
	m.paused = true;
	m.pinned = false;
	m.exp_running = false;
	v.status[0] = '\0';
	snprintf(v.banner, sizeof(v.banner),
		 "profiling ended; profile saved to profile.coz and profile.json; q quits");
	snap("lines-ended-80x24", &m, &v, 24, 80, true, false);
	v.banner[0] = '\0';

	/* An empty session: no rows, no points. */
	{
		struct model e = m;

		e.nrows = 0;
		e.npoints = 0;
		e.samples = 0;
		e.phase = MODEL_PROFILING;
		view_arrange(&v, &e);
		snap("lines-empty-80x24", &e, &v, 24, 80, true, false);
	}

	/* Any size draws inside the canvas, down to nothing (ASan checks the bounds). */
	for (int r = 0; r <= 30; r += 3)
		for (int c = 0; c <= 130; c += 7)
			for (int s = 0; s < SCR_COUNT; s++) {
				struct canvas cv;

				v.screen = (enum screen) s;
				canvas_init(&cv, r, c, (r + c) % 2);
				view_arrange(&v, &m);
				draw_frame(&cv, &m, &v, now);
				canvas_free(&cv);
			}
	view_free(&v);
	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
