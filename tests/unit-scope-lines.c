/*
 * scope.c: globs, Coz's '%', basename matching, MAIN and the defaults;
 * lines.c: interning identity, dense ids, growth.
 * Exit status: 0 pass, 1 fail.
 */
#include "config.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sym/lines.h"
#include "sym/scope.h"
#include "unit.h"

struct match_case {
	const char *path;
	bool is_main;
	bool want;
};

static void
check_binary(const char *desc, const char *const *patterns,
	     const struct match_case *cases)
{
	struct scope *s = scope_new();

	for (; *patterns; patterns++)
		scope_add_binary(s, *patterns);
	for (; cases->path; cases++)
		check(scope_binary_match(s, cases->path, cases->is_main) ==
		      cases->want, "binary scope %s: %s%s %s", desc,
		      cases->path, cases->is_main ? " (main)" : "",
		      cases->want ? "matches" : "does not match");
	scope_free(s);
}

static void
check_source(const char *desc, const char *const *patterns,
	     const struct match_case *cases)
{
	struct scope *s = scope_new();

	for (; *patterns; patterns++)
		scope_add_source(s, *patterns);
	for (; cases->path; cases++)
		check(scope_source_match(s, cases->path) == cases->want,
		      "source scope %s: %s %s", desc, cases->path,
		      cases->want ? "matches" : "does not match");
	scope_free(s);
}

static void
test_scope(void)
{
	static const char *const none[] = { NULL };
	static const char *const main_only[] = { "MAIN", NULL };
	static const char *const libfoo[] = { "libfoo.so*", NULL };
	static const char *const coz[] = { "%/build/%", "MAIN", NULL };
	static const char *const full[] = { "/usr/lib/libbar.so", NULL };
	static const char *const dir_glob[] = { "*/opt/*", NULL };
	static const char *const classes[] = { "lib[a-c]?.so", NULL };

	check_binary("default", none, (const struct match_case[]) {
		{ "/usr/bin/app", true, true },
		{ "/usr/lib/libc.so.6", false, false },
		{ "[vdso]", false, false },
		{ NULL, false, false },
	});
	check_binary("MAIN", main_only, (const struct match_case[]) {
		{ "/usr/bin/app", true, true },
		{ "/usr/lib/libc.so.6", false, false },
		{ "/tmp/MAIN", false, false },
		{ NULL, false, false },
	});
	/* A pattern without MAIN leaves the main executable out. */
	check_binary("libfoo.so*", libfoo, (const struct match_case[]) {
		{ "/usr/lib/libfoo.so.1", false, true },
		{ "/usr/lib/libfoo.so", false, true },
		{ "libfoo.so.2", false, true },
		{ "/usr/lib/libfoobar.so", false, false },
		{ "/usr/bin/app", true, false },
		{ NULL, false, false },
	});
	check_binary("%/build/% MAIN", coz, (const struct match_case[]) {
		{ "/home/u/build/libx.so", false, true },
		{ "/home/u/build/sub/liby.so", false, true },
		{ "/usr/lib/libc.so.6", false, false },
		{ "/usr/bin/app", true, true },
		{ NULL, false, false },
	});
	check_binary("full path", full, (const struct match_case[]) {
		{ "/usr/lib/libbar.so", false, true },
		{ "/opt/lib/libbar.so", false, false },
		{ NULL, false, false },
	});
	/* No FNM_PATHNAME: '*' crosses '/'. */
	check_binary("*/opt/*", dir_glob, (const struct match_case[]) {
		{ "/opt/x/lib/liba.so", false, true },
		{ "/srv/opt/liba.so", false, true },
		{ "/usr/lib/liba.so", false, false },
		{ NULL, false, false },
	});
	check_binary("lib[a-c]?.so", classes, (const struct match_case[]) {
		{ "/lib/libax.so", false, true },
		{ "/lib/libdx.so", false, false },
		{ "/lib/libaxx.so", false, false },
		{ NULL, false, false },
	});

	static const char *const src[] = { "%/src/%", "util.c", NULL };
	static const char *const src_star[] = { "*.cc", NULL };

	check_source("default", none, (const struct match_case[]) {
		{ "/usr/include/stdio.h", false, true },
		{ "foo.c", false, true },
		{ NULL, false, false },
	});
	check_source("%/src/% util.c", src, (const struct match_case[]) {
		{ "/home/u/proj/src/main.c", false, true },
		{ "/home/u/proj/lib/util.c", false, true },
		{ "util.c", false, true },
		{ "/home/u/proj/lib/other.c", false, false },
		{ "/usr/include/stdio.h", false, false },
		{ NULL, false, false },
	});
	check_source("*.cc", src_star, (const struct match_case[]) {
		{ "/a/b/c.cc", false, true },
		{ "c.cc", false, true },
		{ "/a/b/c.c", false, false },
		{ NULL, false, false },
	});

	struct scope *s = scope_new();
	char pattern[] = "libmut%";

	scope_add_binary(s, pattern);
	pattern[0] = 'X';
	check(scope_binary_match(s, "/lib/libmut.so", false),
	      "patterns are copied");
	scope_free(s);
	scope_free(NULL);
}

static void
test_lines(void)
{
	struct lines_table *t = lines_new();
	struct ct_func *const *funcs;
	struct ct_line *const *lines;
	struct ct_func *f1, *f2, *f3;
	struct ct_line *l1, *l2;
	char buf[64];
	size_t n;

	f1 = lines_func(t, "/bin/a", "main");
	f2 = lines_func(t, "/bin/a", "main");
	check(f1 == f2, "same (dso, name): same ct_func");
	check(f1->id == 0 && !strcmp(f1->name, "main") &&
	      !strcmp(f1->dso, "/bin/a") && f1->samples == 0,
	      "first function: id 0, fields set, no samples");
	f3 = lines_func(t, "/lib/b.so", "main");
	check(f3 != f1 && f3->id == 1, "same name in another dso: new id 1");
	check(lines_func(t, "/bin/a", "mai") != f1, "name is compared whole");
	/* Key parts must not run together: ("ab", "c") vs ("a", "bc"). */
	check(lines_func(t, "ab", "c") != lines_func(t, "a", "bc"),
	      "dso and name are kept apart");

	strcpy(buf, "/src/x.c");
	l1 = lines_line(t, buf, 10, f1);
	buf[1] = 'X';
	check(!strcmp(l1->file, "/src/x.c"), "file name is copied");
	l2 = lines_line(t, "/src/x.c", 10, f3);
	check(l1 == l2, "same (file, line): same ct_line");
	check(l2->func == f1, "a line keeps the function it was first seen in");
	check(lines_line(t, "/src/x.c", 11, f1) != l1, "other line: new ct_line");
	check(lines_line(t, "/src/y.c", 10, f1) != l1, "other file: new ct_line");
	check(l1->id == 0 && l1->line == 10, "first line: id 0");

	f1->samples = 5;
	/* Growth: far past the initial table sizes. */
	enum { N = 100000 };
	bool ok = true;

	for (unsigned i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "func%u", i);
		struct ct_func *f = lines_func(t, "/lib/many.so", buf);
		struct ct_line *l = lines_line(t, "/src/many.c", i + 1, f);

		ok = ok && l->func == f && l->line == i + 1;
	}
	check(ok, "%d functions and lines added", N);
	for (unsigned i = 0; i < N && ok; i += 997) {
		snprintf(buf, sizeof(buf), "func%u", i);
		ok = lines_func(t, "/lib/many.so", buf)->id == i + 5 &&
		     lines_line(t, "/src/many.c", i + 1, NULL)->id == i + 3;
	}
	check(ok, "after growth, lookups find the same entries and ids");
	check(lines_func(t, "/bin/a", "main") == f1 && f1->samples == 5,
	      "after growth, the first function is the same object");

	funcs = lines_funcs(t, &n);
	check(n == N + 5, "lines_funcs: %d entries (got %zu)", N + 5, n);
	ok = true;
	for (size_t i = 0; i < n; i++)
		ok = ok && funcs[i]->id == i;
	check(ok, "lines_funcs: indexed by id");
	lines = lines_lines(t, &n);
	check(n == N + 3, "lines_lines: %d entries (got %zu)", N + 3, n);
	ok = true;
	for (size_t i = 0; i < n; i++)
		ok = ok && lines[i]->id == i;
	check(ok, "lines_lines: indexed by id");
	lines_free(t);

	t = lines_new();
	funcs = lines_funcs(t, &n);
	check(n == 0, "empty table: no functions");
	lines = lines_lines(t, &n);
	check(n == 0, "empty table: no lines");
	lines_free(t);
	lines_free(NULL);
}

int
main(void)
{
	test_scope();
	test_lines();
	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
