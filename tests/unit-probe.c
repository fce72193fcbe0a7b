/*
 * Unit test of src/perf/probe.c and src/sym/probe_addr.c (the places,
 * looked up in the process's symbolizer) on a child of its own:
 * probetarget (built -g -O1) creates its threads, reports, and waits on
 * a pipe; the test opens
 * counters on every thread, lets them run K iterations each, and checks
 * the counts are exactly K per thread.  Exact whatever the load: every
 * counter is open before the first hit and read after the last.
 *
 *  (a) a function, breakpoints, 1 thread and 8
 *  (b) FILE:LINE in the loop body, by basename, path suffix, full path
 *  (c) the same with uprobes forced
 *  (d) auto mode: four locations get breakpoints, six get uprobes all
 *      (never both kinds in one process: src/sym/probe_addr.h says why)
 *  (e) a BEGIN/END pair
 *  (f) errors: syntax, nothing found, no code at a line, ambiguities, ...
 *  (g) DSO:0xADDR, and a raw address refused for uprobes
 *  (h) a new image after exec: counters retired, addresses re-resolved
 *  (i) a library dlopen'ed later: a pending probe resolved and opened on
 *      the threads already counting
 *  (j) a library out of the binary scope whose static function and lines
 *      are only in a separate debug file (.gnu_debuglink): found, and that
 *      file left closed and out of the symbolizer
 * Parts needing breakpoints or uprobes the kernel refuses are skipped.
 */
#include "config.h"
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/procfs.h"
#include "perf/probe.h"
#include "sym/lines.h"
#include "sym/scope.h"
#include "sym/symbolizer.h"
#include "unit.h"

#define K 2000
#define TARGET PROBE_BUILDDIR "/probetarget"
#define TARGET_SRC PROBE_SRCDIR "/probetarget.c"
#define TARGET_DL_SRC PROBE_SRCDIR "/probetarget-dl.c"
#define TARGET_DL PROBE_BUILDDIR "/libprobetarget-dl.so"

static bool have_bp, have_uprobe;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "unit-probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(99);
}

/* --- the target ---------------------------------------------------------- */

struct target {
	pid_t pid;
	FILE *in, *out;		/* its stdin and stdout */
	int nthreads;
	unsigned long work_vaddr;
	/* Its symbolizer, whose Dwfl probe_resolve looks in, as causaltop's. */
	struct lines_table *lines;
	struct scope *scope;
	struct sym_proc *sym;
};

/* A symbolizer for t's current image (again after an exec). */
static void
target_sym(struct target *t)
{
	sym_proc_free(t->sym);
	if (!t->lines) {
		t->lines = lines_new();
		t->scope = scope_new();
	}
	t->sym = sym_proc_new(t->pid, t->lines, t->scope);
	if (!t->sym)
		die("cannot symbolize probetarget %d", (int) t->pid);
}

static void
target_expect(struct target *t, const char *prefix, char *line, size_t size)
{
	if (!fgets(line, (int) size, t->out)) {
		int st = 0;

		/* Its stdout closed: say how it ended. */
		if (waitpid(t->pid, &st, 0) != t->pid)
			die("probetarget %d: no reply, expected '%s'", (int) t->pid, prefix);
		if (WIFSIGNALED(st))
			die("probetarget %d: killed by signal %d (%s), expected '%s'", (int) t->pid,
			    WTERMSIG(st), strsignal(WTERMSIG(st)), prefix);
		die("probetarget %d: exited with %d, expected '%s'", (int) t->pid,
		    WEXITSTATUS(st), prefix);
	}
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, prefix, strlen(prefix)))
		die("probetarget %d: '%s', expected '%s'", (int) t->pid, line,
		    prefix);
}

static void
target_ready(struct target *t)
{
	char line[256];

	target_expect(t, "ready ", line, sizeof(line));
	t->work_vaddr = strtoul(line + 6, NULL, 16);
}

static void
target_start(struct target *t, int nthreads)
{
	int to[2], from[2];
	char nt[16], k[32];

	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	snprintf(nt, sizeof(nt), "%d", nthreads);
	snprintf(k, sizeof(k), "%d", K);
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0)
		die("fork: %s", strerror(errno));
	if (!t->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(TARGET, "probetarget", nt, k, (char *) NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = fdopen(to[1], "w");
	t->out = fdopen(from[0], "r");
	if (!t->in || !t->out)
		die("fdopen: %s", strerror(errno));
	t->nthreads = nthreads;
	t->lines = NULL;
	t->scope = NULL;
	t->sym = NULL;
	target_ready(t);
	target_sym(t);
}

static void
target_send(struct target *t, const char *cmd)
{
	fprintf(t->in, "%s\n", cmd);
	fflush(t->in);
}

/* Run K iterations per thread; returns once they are all done. */
static void
target_go(struct target *t)
{
	char line[64];

	target_send(t, "go");
	target_expect(t, "done", line, sizeof(line));
}

static void
target_stop(struct target *t)
{
	int status;

	target_send(t, "exit");
	fclose(t->in);
	fclose(t->out);
	if (waitpid(t->pid, &status, 0) != t->pid)
		die("waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "probetarget status %#x", status);
	/* Gone: nothing to symbolize (probe_resolve is then given NULL). */
	sym_proc_free(t->sym);
	scope_free(t->scope);
	lines_free(t->lines);
	t->sym = NULL;
	t->scope = NULL;
	t->lines = NULL;
}

static uint64_t
target_threads(const struct target *t)
{
	return t->nthreads ? (uint64_t) t->nthreads : 1;
}

/* --- counters on every thread ------------------------------------------ */

struct handles {
	struct probe_thread **h;
	int n;
};

static int
open_threads(struct probe_set *ps, pid_t pid, struct handles *hs)
{
	pid_t *tids;
	int rc = 0;

	hs->n = procfs_tasks(pid, &tids);
	if (hs->n < 0)
		die("cannot list the threads of %d", (int) pid);
	hs->h = calloc((size_t) hs->n, sizeof(*hs->h));
	for (int i = 0; i < hs->n && !rc; i++)
		rc = probe_thread_open(ps, tids[i], &hs->h[i]);
	free(tids);
	return rc;
}

static void
close_threads(struct probe_set *ps, struct handles *hs)
{
	for (int i = 0; i < hs->n; i++)
		probe_thread_close(ps, hs->h[i]);
	free(hs->h);
	hs->h = NULL;
	hs->n = 0;
}

/* --- specs --------------------------------------------------------------- */

/* The line of src marked "PROBE:name". */
static int
marker_line_in(const char *src, const char *name)
{
	char pattern[64], buf[512];
	FILE *f = fopen(src, "r");
	int line = 0, found = 0;

	if (!f)
		die("%s: %s", src, strerror(errno));
	snprintf(pattern, sizeof(pattern), "PROBE:%s */", name);
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (strstr(buf, pattern)) {
			found = line;
			break;
		}
	}
	fclose(f);
	if (!found)
		die("no marker PROBE:%s in %s", name, src);
	return found;
}

/* The line of probetarget.c marked "PROBE:name". */
static int
marker_line(const char *name)
{
	return marker_line_in(TARGET_SRC, name);
}

static const char *
line_spec(char *buf, size_t size, const char *file, const char *marker)
{
	snprintf(buf, size, "%s:%d", file, marker_line(marker));
	return buf;
}

/* --- stderr capture --------------------------------------------------- */

struct capture {
	int saved;
	FILE *tmp;
	char text[8192];
};

static void
capture_begin(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	c->saved = dup(2);
	if (!c->tmp || c->saved < 0 || dup2(fileno(c->tmp), 2) < 0)
		die("capturing stderr: %s", strerror(errno));
}

static const char *
capture_end(struct capture *c)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->tmp);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->tmp);
	c->text[n] = '\0';
	fclose(c->tmp);
	return c->text;
}

/* --- cases -------------------------------------------------------------- */

struct want {
	const char *spec;
	enum probe_kind kind;
	const char *mechanism;
};

/*
 * Every spec counted on every thread of a target with nthreads workers:
 * K per thread each, with the mechanism wanted.
 */
static void
count_case(const char *label, enum probe_mode mode, int nthreads,
	   const struct want *w, size_t n)
{
	struct probe_set *ps = probe_set_new(mode);
	struct handles hs;
	struct target t;
	uint64_t want;
	int rc;

	target_start(&t, nthreads);
	want = (uint64_t) K * target_threads(&t);
	for (size_t i = 0; i < n; i++) {
		rc = probe_add(ps, w[i].spec, w[i].kind, NULL);
		CHECK(rc == (int) i, "%s: probe_add(%s) = %d", label, w[i].spec, rc);
	}
	rc = probe_resolve(ps, t.pid, t.sym, 0);
	CHECK(rc == 0, "%s: probe_resolve = %d", label, rc);
	rc = open_threads(ps, t.pid, &hs);
	CHECK(rc == 0, "%s: probe_thread_open = %d", label, rc);
	for (size_t i = 0; i < n; i++)
		CHECK(probe_count(ps, (unsigned) i) == 0, "%s: %s counted %" PRIu64
		      " before go", label, w[i].spec, probe_count(ps, (unsigned) i));
	target_go(&t);
	for (size_t i = 0; i < n; i++) {
		uint64_t got = probe_count(ps, (unsigned) i);

		CHECK(got == want, "%s: %s (%s) counted %" PRIu64 ", want %" PRIu64,
		      label, w[i].spec, probe_location(ps, (unsigned) i), got,
		      want);
		CHECK(!strcmp(probe_mechanism(ps, (unsigned) i), w[i].mechanism),
		      "%s: %s counted by %s, want %s", label, w[i].spec,
		      probe_mechanism(ps, (unsigned) i), w[i].mechanism);
		CHECK(probe_kind_of(ps, (unsigned) i) == w[i].kind,
		      "%s: %s kind", label, w[i].spec);
		CHECK(!strcmp(probe_name(ps, (unsigned) i), w[i].spec),
		      "%s: name %s", label, probe_name(ps, (unsigned) i));
	}
	close_threads(ps, &hs);
	/* Closed counters live on in the totals. */
	for (size_t i = 0; i < n; i++)
		CHECK(probe_count(ps, (unsigned) i) == want, "%s: %s after close: %"
		      PRIu64, label, w[i].spec, probe_count(ps, (unsigned) i));
	probe_set_free(ps);
	target_stop(&t);
	printf("ok: %s, %d thread(s): %zu probe(s), %" PRIu64 " each\n", label,
	       (int) target_threads(&t), n, want);
}

static void
case_function_and_line(enum probe_mode mode, const char *mech)
{
	char l1[256], l2[256], l3[512];
	struct want w[] = {
		{ "work_unit", PROBE_THROUGHPUT, mech },
		{ line_spec(l1, sizeof(l1), "probetarget.c", "loop"),
		  PROBE_THROUGHPUT, mech },
		{ line_spec(l2, sizeof(l2), "tests/probetarget.c", "loop"),
		  PROBE_THROUGHPUT, mech },
		{ line_spec(l3, sizeof(l3), TARGET_SRC, "loop"),
		  PROBE_THROUGHPUT, mech },
	};

	count_case(mech, mode, 0, w, 4);
	count_case(mech, mode, 8, w, 4);
}

static void
case_fallback(void)
{
	char l1[256];
	struct want w[] = {
		{ "work_unit", PROBE_THROUGHPUT, "breakpoint" },
		{ "stage_a", PROBE_THROUGHPUT, "breakpoint" },
		{ "stage_b", PROBE_THROUGHPUT, "breakpoint" },
		{ "stage_c", PROBE_THROUGHPUT, "breakpoint" },
		{ line_spec(l1, sizeof(l1), "probetarget.c", "loop"),
		  PROBE_THROUGHPUT, "uprobe" },
		{ "transaction", PROBE_THROUGHPUT, "uprobe" },
	};

	/* As many as the debug registers: breakpoints. */
	count_case("auto, 4 locations", PROBE_AUTO, 8, w, 4);
	/* More: uprobes for all, not breakpoints beside uprobes. */
	for (size_t i = 0; i < 4; i++)
		w[i].mechanism = "uprobe";
	count_case("auto, 6 locations", PROBE_AUTO, 8, w, 6);
}

static void
case_latency(void)
{
	char b[256], e[256];
	struct want w[] = {
		{ line_spec(b, sizeof(b), "probetarget.c", "begin"), PROBE_BEGIN,
		  have_bp ? "breakpoint" : "uprobe" },
		{ line_spec(e, sizeof(e), "probetarget.c", "end"), PROBE_END,
		  have_bp ? "breakpoint" : "uprobe" },
	};

	count_case("begin/end", PROBE_AUTO, 8, w, 2);
}

static void
case_dso_addr(enum probe_mode mode, const char *mech)
{
	struct target t;
	char spec[64];
	struct want w[] = { { spec, PROBE_THROUGHPUT, mech } };

	/* work_unit's ELF address, as the target itself tells it. */
	target_start(&t, 0);
	snprintf(spec, sizeof(spec), "probetarget:%#lx", t.work_vaddr);
	target_stop(&t);
	count_case("dso:0xaddr", mode, 8, w, 1);
}

/* probe_add refuses spec, saying what in msg. */
static void
want_syntax_error(const char *spec, const char *msg)
{
	struct probe_set *ps = probe_set_new(PROBE_AUTO);
	struct capture c;
	const char *text;
	int rc;

	capture_begin(&c);
	rc = probe_add(ps, spec, PROBE_THROUGHPUT, NULL);
	text = capture_end(&c);
	CHECK(rc == -1, "probe_add(%s) = %d", spec, rc);
	CHECK(strstr(text, msg), "probe_add(%s) said '%s', want '%s'", spec,
	      text, msg);
	CHECK(probe_nprobes(ps) == 0, "probe_add(%s) added it", spec);
	probe_set_free(ps);
}

/* probe_resolve refuses spec in t (added after the others, which resolve), saying each of msgs. */
static void
want_resolve_error_beside(struct target *t, enum probe_mode mode,
			  const char *const *others, const char *spec,
			  unsigned flags, int want_rc, const char *const *msgs)
{
	struct probe_set *ps = probe_set_new(mode);
	struct capture c;
	const char *text;
	unsigned n = 0;
	int rc;

	for (; others && others[n]; n++)
		if (probe_add(ps, others[n], PROBE_THROUGHPUT, others[n]) != (int) n)
			die("probe_add(%s)", others[n]);
	if (probe_add(ps, spec, PROBE_THROUGHPUT, "named") != (int) n)
		die("probe_add(%s)", spec);
	capture_begin(&c);
	rc = probe_resolve(ps, t->pid, t->sym, flags);
	text = capture_end(&c);
	CHECK(rc == want_rc, "probe_resolve(%s) = %d, want %d", spec, rc,
	      want_rc);
	CHECK(!probe_resolved(ps, n), "%s resolved", spec);
	CHECK(!probe_location(ps, n), "%s has a location", spec);
	for (; *msgs; msgs++)
		CHECK(strstr(text, *msgs), "probe_resolve(%s) said '%s', want '%s'",
		      spec, text, *msgs);
	if (flags & PROBE_RESOLVE_QUIET)
		CHECK(!*text, "probe_resolve(%s, quiet) said '%s'", spec, text);
	probe_set_free(ps);
}

/* spec alone: probe_resolve returns want_rc and says every one of msgs. */
static void
want_resolve_error(struct target *t, enum probe_mode mode, const char *spec,
		   unsigned flags, int want_rc, const char *const *msgs)
{
	want_resolve_error_beside(t, mode, NULL, spec, flags, want_rc, msgs);
}

#define MSGS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static void
case_errors(void)
{
	char spec[512], msg[512], lines[64];
	struct target t;
	int nocode;

	want_syntax_error("", "empty");
	want_syntax_error(":12", "nothing before ':'");
	want_syntax_error("probetarget.c:", "nothing after ':'");
	want_syntax_error("ns::work:", "nothing after ':'");
	want_syntax_error("probetarget:0xzz", "bad hexadecimal address");
	want_syntax_error("probetarget:0x-5", "bad hexadecimal address");
	want_syntax_error("probetarget.c:99999999999", "line number too large");
	want_syntax_error("probetarget.c:0", "line numbers start at 1");
	want_syntax_error("work unit", "not a function name");
	want_syntax_error("probetarget.c:1x", "neither a line number");

	target_start(&t, 0);
	want_resolve_error(&t, PROBE_AUTO, "no_such_function", 0, -1,
			   MSGS("no function 'no_such_function' in ",
				"/probetarget or its libraries"));
	/* Quiet: pending, not an error (a library may bring it). */
	want_resolve_error(&t, PROBE_AUTO, "no_such_function",
			   PROBE_RESOLVE_QUIET, 1, MSGS(""));
	want_resolve_error(&t, PROBE_AUTO, "libc.so.6:work_unit", 0, -1,
			   MSGS("no function 'work_unit' in libc.so.6"));
	want_resolve_error(&t, PROBE_AUTO, "nosuch.c:3", 0, -1,
			   MSGS("no source file 'nosuch.c' in the debug info of"));
	nocode = marker_line("nocode");
	snprintf(spec, sizeof(spec), "probetarget.c:%d", nocode);
	snprintf(msg, sizeof(msg), "no code at line %d of probetarget.c",
		 nocode);
	snprintf(lines, sizeof(lines), "nearest lines with code are %d and %d",
		 nocode - 1, nocode + 1);
	want_resolve_error(&t, PROBE_AUTO, spec, 0, -1, MSGS(msg, lines));
	want_resolve_error(&t, PROBE_AUTO, "libnope.so:0x10", 0, -1,
			   MSGS("/probetarget) maps no module 'libnope.so'"));
	/* The first segment (ELF headers) is not executable. */
	want_resolve_error(&t, PROBE_AUTO, "probetarget:0x1", 0, -1,
			   MSGS("0x1 is not in an executable segment of "));
	want_resolve_error(&t, PROBE_AUTO, "twin", 0, -1,
			   MSGS("twin is defined at 2 places",
				"probetarget:0x", "(twin, probetarget.c:",
				"(twin, probetarget-twin.c:"));
	want_resolve_error(&t, PROBE_AUTO,
			   line_spec(spec, sizeof(spec), "probetarget.c",
				     "inlined"), 0, -1,
			   MSGS("that line has code in 2 functions",
				"(stage_a, probetarget.c:",
				"(stage_b, probetarget.c:"));
	want_resolve_error(&t, PROBE_AUTO, "strlen", 0, -1,
			   MSGS("strlen in ", "is an IFUNC"));
	/* Inside work_unit's first instruction: no uprobe there. */
	snprintf(spec, sizeof(spec), "probetarget:%#lx", t.work_vaddr + 1);
	want_resolve_error(&t, PROBE_UPROBE, spec, 0, -1,
			   MSGS("neither a function's entry nor a line's start"));
	/* Only a breakpoint can count it: not beside 4 more (uprobes). */
	want_resolve_error_beside(&t, PROBE_AUTO,
				  (const char *const[]) { "work_unit", "stage_a",
							  "stage_b", "stage_c", NULL },
				  spec, 0, -1,
				  MSGS("only a breakpoint can count it",
				       "give at most 4 points"));
	target_stop(&t);

	/* A process that is gone. */
	want_resolve_error(&t, PROBE_AUTO, "work_unit", 0, -1,
			   MSGS("cannot find the progress points in process"));
	printf("ok: errors\n");
}

/* (h): after exec, the same probes in the new image; totals go on. */
static void
case_exec(enum probe_mode mode)
{
	struct probe_set *ps = probe_set_new(mode);
	struct handles old, cur;
	struct target t;
	uint64_t want;
	int rc;

	target_start(&t, 4);
	want = (uint64_t) K * 4;
	probe_add(ps, "work_unit", PROBE_THROUGHPUT, "work");
	rc = probe_resolve(ps, t.pid, t.sym, 0);
	CHECK(rc == 0, "exec: probe_resolve = %d", rc);
	CHECK(!strcmp(probe_name(ps, 0), "work"), "name %s", probe_name(ps, 0));
	rc = open_threads(ps, t.pid, &old);
	CHECK(rc == 0, "exec: probe_thread_open = %d", rc);
	target_go(&t);
	CHECK(probe_count(ps, 0) == want, "before exec: %" PRIu64,
	      probe_count(ps, 0));

	/* The old handles stay open over the exec, as at an exec stop. */
	target_send(&t, "exec");
	target_ready(&t);
	target_sym(&t);
	rc = probe_resolve(ps, t.pid, t.sym, 0);
	CHECK(rc == 0, "exec: probe_resolve again = %d", rc);
	CHECK(probe_count(ps, 0) == want, "retired: %" PRIu64, probe_count(ps, 0));
	close_threads(ps, &old);
	rc = open_threads(ps, t.pid, &cur);
	CHECK(rc == 0, "exec: probe_thread_open after exec = %d", rc);
	target_go(&t);
	CHECK(probe_count(ps, 0) == 2 * want, "after exec: %" PRIu64 ", want %"
	      PRIu64, probe_count(ps, 0), 2 * want);
	/* probe_set_free frees the handles not closed (LeakSanitizer). */
	free(cur.h);
	probe_set_free(ps);
	target_stop(&t);
	printf("ok: exec (%s)\n", mode == PROBE_UPROBE ? "uprobe" : "auto");
}

/* (i): probes in a library loaded after the threads started counting. */
static void
case_dlopen(void)
{
	struct probe_set *ps = probe_set_new(PROBE_AUTO);
	struct handles hs;
	struct target t;
	char cmd[512], line[64];
	uint64_t want;
	int rc;

	target_start(&t, 8);
	want = (uint64_t) K * 8;
	probe_add(ps, "work_unit", PROBE_THROUGHPUT, NULL);
	probe_add(ps, "dl_work", PROBE_THROUGHPUT, NULL);
	probe_add(ps, "libprobetarget-dl.so:dl_work", PROBE_THROUGHPUT, NULL);
	rc = probe_resolve(ps, t.pid, t.sym, PROBE_RESOLVE_QUIET);
	CHECK(rc == 1, "dlopen: probe_resolve before = %d", rc);
	CHECK(probe_resolved(ps, 0) && !probe_resolved(ps, 1) &&
	      !probe_resolved(ps, 2), "dlopen: resolved before");
	rc = open_threads(ps, t.pid, &hs);
	CHECK(rc == 0, "dlopen: probe_thread_open = %d", rc);

	snprintf(cmd, sizeof(cmd), "dlopen %s", TARGET_DL);
	target_send(&t, cmd);
	target_expect(&t, "ok", line, sizeof(line));
	rc = probe_resolve(ps, t.pid, t.sym, PROBE_RESOLVE_MORE);
	CHECK(rc == 0, "dlopen: probe_resolve after = %d", rc);
	CHECK(probe_location(ps, 1) && strstr(probe_location(ps, 1),
					      "libprobetarget-dl.so:0x"),
	      "dlopen: location %s", probe_location(ps, 1));
	target_go(&t);
	for (unsigned i = 0; i < 3; i++)
		CHECK(probe_count(ps, i) == want, "dlopen: %s: %" PRIu64,
		      probe_name(ps, i), probe_count(ps, i));
	close_threads(ps, &hs);
	probe_set_free(ps);
	target_stop(&t);
	printf("ok: dlopen\n");
}

/* Whether this process has path mapped or open. */
static bool
self_has_open(const char *path)
{
	char *maps = procfs_maps(getpid()), *cur = maps;
	struct procfs_map m;
	bool found = false;
	struct dirent *e;
	DIR *d;

	while (maps && !found && procfs_maps_next(&cur, &m))
		found = !strcmp(m.name, path);
	free(maps);
	d = opendir("/proc/self/fd");
	while (d && !found && (e = readdir(d))) {
		char link[sizeof("/proc/self/fd/") + sizeof(e->d_name)], target[4096];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, path);
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* An address in the executable mapping of path in process pid, or 0. */
static uint64_t
mapped_code(pid_t pid, const char *path)
{
	char *maps = procfs_maps(pid), *cur = maps;
	struct procfs_map m;
	uint64_t pc = 0;

	while (maps && !pc && procfs_maps_next(&cur, &m)) {
		if (m.perms[2] == 'x' && !strcmp(m.name, path))
			pc = m.start;
	}
	free(maps);
	return pc;
}

/*
 * (j): libprobetarget-dl.so with its debug info moved to a separate file
 * found through its .gnu_debuglink, as Debian's -dbg packages ship it,
 * and its symbol table stripped: its static dl_step() and its lines are
 * known from that file only.  Out of the binary scope (the default,
 * MAIN), the symbolizer never opens that file (design.md); the resolver
 * must find them all the same, and leave the file closed when it is
 * done.  warm: the symbolizer has looked at the library first, as
 * sampling and unwinding do, which libdwfl remembers (no DWARF, a
 * symbol table without the file's).
 */
static void
case_split_debug(bool warm)
{
	const char *label = warm ? "split debug, symbolized first" : "split debug";
	const char *oc = getenv("OBJCOPY");
	char dir[] = "/tmp/unit-probe.XXXXXX", lib[64], dbg[80], cmd[1024];
	char spec[256], line[64];
	struct probe_set *ps;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	struct handles hs;
	struct target t;
	uint64_t want, pc;
	int rc;

	if (!oc || !*oc)
		oc = "objcopy";
	if (!mkdtemp(dir))
		die("mkdtemp: %s", strerror(errno));
	snprintf(lib, sizeof(lib), "%s/libprobetarget-dl.so", dir);
	snprintf(dbg, sizeof(dbg), "%s.debug", lib);
	snprintf(cmd, sizeof(cmd), "'%s' --only-keep-debug '%s' '%s' && '%s' "
		 "--strip-all --add-gnu-debuglink='%s' '%s' '%s'", oc, TARGET_DL,
		 dbg, oc, dbg, TARGET_DL, lib);
	if (system(cmd)) {
		printf("SKIP: %s: objcopy could not split %s\n", label, TARGET_DL);
		unlink(lib);
		unlink(dbg);
		rmdir(dir);
		return;
	}

	target_start(&t, 8);
	want = (uint64_t) K * 8;
	snprintf(cmd, sizeof(cmd), "dlopen %s", lib);
	target_send(&t, cmd);
	target_expect(&t, "ok", line, sizeof(line));
	pc = mapped_code(t.pid, lib);
	if (!pc)
		die("%s: %s is not mapped in probetarget", label, lib);
	sym_proc_maps_changed(t.sym);
	if (warm) {
		const struct sym_loc *loc = sym_lookup(t.sym, pc);

		CHECK(!loc->in_scope, "%s: the library is in scope", label);
		mod = dwfl_addrmodule(sym_proc_dwfl(t.sym), pc);
		CHECK(mod && !dwfl_module_getdwarf(mod, &bias),
		      "%s: the symbolizer has the library's DWARF", label);
	}

	ps = probe_set_new(PROBE_AUTO);
	probe_add(ps, "libprobetarget-dl.so:dl_step", PROBE_THROUGHPUT, NULL);
	snprintf(spec, sizeof(spec), "probetarget-dl.c:%d",
		 marker_line_in(TARGET_DL_SRC, "dl-step"));
	probe_add(ps, spec, PROBE_THROUGHPUT, NULL);
	probe_add(ps, "dl_step", PROBE_THROUGHPUT, NULL);
	rc = probe_resolve(ps, t.pid, t.sym, 0);
	CHECK(rc == 0, "%s: probe_resolve = %d", label, rc);
	for (unsigned i = 0; i < 3; i++)
		CHECK(probe_location(ps, i) &&
		      strstr(probe_location(ps, i), "libprobetarget-dl.so:0x") &&
		      strstr(probe_location(ps, i), "(dl_step"),
		      "%s: %s at %s", label, probe_name(ps, i),
		      probe_location(ps, i) ? probe_location(ps, i) : "(none)");
	/* What the look loaded is gone with it; the symbolizer has none. */
	CHECK(!self_has_open(dbg), "%s: %s still open after the look", label, dbg);
	sym_proc_maps_changed(t.sym);
	sym_lookup(t.sym, pc);
	mod = dwfl_addrmodule(sym_proc_dwfl(t.sym), pc);
	CHECK(mod && !dwfl_module_getdwarf(mod, &bias),
	      "%s: the symbolizer has the DWARF of a library out of scope", label);
	CHECK(!self_has_open(dbg), "%s: %s open by the symbolizer", label, dbg);

	rc = open_threads(ps, t.pid, &hs);
	CHECK(rc == 0, "%s: probe_thread_open = %d", label, rc);
	target_go(&t);
	for (unsigned i = 0; i < 3; i++)
		CHECK(probe_count(ps, i) == want, "%s: %s: %" PRIu64 ", want %"
		      PRIu64, label, probe_name(ps, i), probe_count(ps, i), want);
	close_threads(ps, &hs);
	probe_set_free(ps);
	target_stop(&t);
	unlink(lib);
	unlink(dbg);
	rmdir(dir);
	printf("ok: %s\n", label);
}

/* What the kernel lets this process open on its own thread. */
static void
check_mechanisms(void)
{
	struct perf_event_attr a;
	char path[] = "/proc/self/exe";
	FILE *f;
	int fd, type = -1;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uintptr_t) check_mechanisms;
	a.bp_len = sizeof(long);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int) syscall(__NR_perf_event_open, &a, 0, -1, -1,
			   PERF_FLAG_FD_CLOEXEC);
	have_bp = fd >= 0;
	if (fd >= 0)
		close(fd);
	else
		printf("SKIP: breakpoint parts: %s\n", strerror(errno));
	/* Opened is not enough: some VMs never fire them. */
	if (have_bp && probe_breakpoints_dead()) {
		have_bp = false;
		printf("SKIP: breakpoint parts: breakpoint events open but "
		       "never fire on this machine\n");
	}

	f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t) type;
	a.config1 = (uintptr_t) path;
	a.config2 = 0x1000;	/* not inserted unless mapped executable */
	a.exclude_kernel = 1;
	fd = type < 0 ? -1 : (int) syscall(__NR_perf_event_open, &a, 0, -1, -1,
					   PERF_FLAG_FD_CLOEXEC);
	have_uprobe = fd >= 0;
	if (fd >= 0)
		close(fd);
	else
		printf("SKIP: uprobe parts: %s\n",
		       type < 0 ? "no uprobe PMU" : strerror(errno));
}

int
main(void)
{
	unsigned fds = procfs_self_fds();

	/* A dead target must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	CHECK(probe_mode_from_name("auto") == PROBE_AUTO, "mode auto");
	CHECK(probe_mode_from_name("breakpoint") == PROBE_BREAKPOINT, "mode bp");
	CHECK(probe_mode_from_name("uprobe") == PROBE_UPROBE, "mode uprobe");
	CHECK(probe_mode_from_name("kprobe") == -1, "mode kprobe");

	check_mechanisms();
	if (!have_bp && !have_uprobe) {
		printf("SKIP: neither breakpoints nor uprobes\n");
		return 77;
	}
	case_errors();
	if (have_bp) {
		case_function_and_line(PROBE_BREAKPOINT, "breakpoint");
		case_dso_addr(PROBE_AUTO, "breakpoint");
	}
	if (have_uprobe) {
		case_function_and_line(PROBE_UPROBE, "uprobe");
		case_dso_addr(PROBE_UPROBE, "uprobe");
		case_exec(PROBE_UPROBE);
	}
	case_latency();
	case_exec(PROBE_AUTO);
	case_dlopen();
	case_split_debug(false);
	case_split_debug(true);
	if (have_bp && have_uprobe)
		case_fallback();
	CHECK(procfs_self_fds() == fds, "fds: %u at start, %u at the end", fds,
	      procfs_self_fds());
	if (failures)
		fprintf(stderr, "unit-probe: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}
