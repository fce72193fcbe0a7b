/*
 * The symbolizer on its own process: sym_proc_new(getpid()) needs no
 * ptrace.  One source, built several ways (see Makefile.am):
 *   SYMTEST_DWARF	expected DWARF version of this file, 0: unchecked
 *   SYMTEST_PIE	1: PIE, 0: not PIE, -1: unchecked
 *   SYMTEST_STRIP	0: full debug info, 1: strip --strip-debug,
 *			2: strip --strip-all
 *   SYMTEST_TWIN	for SYMTEST_STRIP, the unstripped twin next to us,
 *			whose symbol table says what nm would say
 *   SYMTEST_NO_ARANGES	1: .debug_aranges removed, as clang leaves it out
 * Exit status: 0 pass, 1 fail, 77 skip.
 */
#include "config.h"
#include <dlfcn.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sym/lines.h"
#include "sym/scope.h"
#include "sym/symbolizer.h"
#include "symtest-marker.h"
#include "unit.h"

#ifndef SYMTEST_DWARF
# define SYMTEST_DWARF 0
#endif
#ifndef SYMTEST_PIE
# define SYMTEST_PIE -1
#endif
#ifndef SYMTEST_STRIP
# define SYMTEST_STRIP 0
#endif
#ifndef SYMTEST_TWIN
# define SYMTEST_TWIN ""
#endif
#ifndef SYMTEST_NO_ARANGES
# define SYMTEST_NO_ARANGES 0
#endif

#define SYMTEST_SRC "unit-symbolizer.c"
#define SYMTEST_SHARED_SRC "symtest-shared.c"
#define SYMTEST_SHARED_LIB "libsymtest-shared.so"
#define SYMTEST_DLOPEN_SRC "symtest-dlopen.c"
#define SYMTEST_DLOPEN_LIB "libsymtest-dlopen.so"
#define NO_DEBUGINFO_WARNING "has no debug info (build with -g)"

/* Longer than the symbolizer's refresh rate limit (50 ms). */
static const useconds_t past_rate_limit_us = 80 * 1000;
static const uint64_t rate_limit_ns = 50 * 1000 * 1000;

static void __attribute__((noreturn, format(printf, 1, 2)))
skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(77);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(errno));
	exit(1);
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

enum { main_mark_decl_line = __LINE__ + 2 };
static SYMTEST_MARKER_ATTRS void
symtest_main_mark(struct symtest_marker *mk)
{
	volatile int x = 0;

	mk->body_line = __LINE__;
	mk->entry = (const void *) symtest_main_mark;
	mk->decl_line = main_mark_decl_line;
	mk->addr = &&marked;
	x += 7;
marked:	x *= 11; mk->line = __LINE__;
	x -= 7;
	mk->sink = x;
}

/*
 * Calls symtest_shared_mark without taking its address here: in a non-PIE
 * executable that would make the address of the executable's PLT entry
 * the function's address, in the library too.
 */
static void
shared_mark(struct symtest_marker *mk)
{
	symtest_shared_mark(mk);
}

/* Stderr into a temporary file, to see which warnings were printed. */
struct capture {
	FILE *tmp;
	int saved_fd;
};

static void
capture_begin(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	c->saved_fd = dup(STDERR_FILENO);
	if (!c->tmp || c->saved_fd < 0 ||
	    dup2(fileno(c->tmp), STDERR_FILENO) < 0)
		fatal("redirecting stderr");
}

/* Returns what was written, which the caller frees; echoes it to stdout. */
static char *
capture_end(struct capture *c)
{
	long size;
	char *text;

	fflush(stderr);
	if (dup2(c->saved_fd, STDERR_FILENO) < 0)
		fatal("restoring stderr");
	close(c->saved_fd);
	size = ftell(c->tmp);
	if (size < 0)
		fatal("ftell");
	text = calloc(1, size + 1);
	if (!text)
		fatal("calloc");
	rewind(c->tmp);
	if (size && fread(text, 1, size, c->tmp) != (size_t) size)
		fatal("fread");
	fclose(c->tmp);
	if (size)
		printf("     (stderr: %s)\n", text);
	return text;
}

static unsigned
count_substr(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct expect {
	const char *what;
	const char *func;	/* symbol name */
	const char *dso;	/* full path */
	const char *file;	/* source basename; NULL: no line expected */
	int line;		/* 0: anything in [line_lo, line_hi] */
	int line_lo, line_hi;
	bool in_scope;
};

static void
check_loc(const struct sym_loc *loc, const struct expect *e)
{
	if (!loc) {
		check(false, "%s: sym_lookup returned NULL", e->what);
		return;
	}
	check(loc->func && !strcmp(loc->func->name, e->func),
	      "%s: function is %s (got %s)", e->what, e->func,
	      loc->func ? loc->func->name : "NULL");
	check(loc->func && !strcmp(loc->func->dso, e->dso),
	      "%s: module is %s (got %s)", e->what, e->dso,
	      loc->func ? loc->func->dso : "NULL");
	if (!e->file) {
		check(!loc->line, "%s: no line (got %s%s%u)", e->what,
		      loc->line ? loc->line->file : "none",
		      loc->line ? ":" : "", loc->line ? loc->line->line : 0);
	} else if (!loc->line) {
		check(false, "%s: line %s:%d (got none)", e->what, e->file,
		      e->line ? e->line : e->line_lo);
	} else {
		check(!strcmp(base_name(loc->line->file), e->file),
		      "%s: file basename %s (got %s)", e->what, e->file,
		      loc->line->file);
		check(loc->line->file[0] == '/' &&
		      !strstr(loc->line->file, "/./") &&
		      !strstr(loc->line->file, "/../") &&
		      !strstr(loc->line->file, "//"),
		      "%s: file name absolute and folded", e->what);
		if (e->line)
			check(loc->line->line == (unsigned) e->line,
			      "%s: line %d (got %u)", e->what, e->line,
			      loc->line->line);
		else
			check(loc->line->line >= (unsigned) e->line_lo &&
			      loc->line->line <= (unsigned) e->line_hi,
			      "%s: line in [%d, %d] (got %u)", e->what,
			      e->line_lo, e->line_hi, loc->line->line);
		check(loc->line->func == loc->func,
		      "%s: line's function is the function", e->what);
	}
	check(loc->in_scope == e->in_scope, "%s: %s", e->what,
	      e->in_scope ? "in scope" : "out of scope");
}

static void
check_unknown(const struct sym_loc *loc, const char *what)
{
	check(loc && loc->func && !strcmp(loc->func->name, "[unknown]") &&
	      !strcmp(loc->func->dso, "[unknown]"),
	      "%s: function [unknown] (got %s)", what,
	      loc && loc->func ? loc->func->name : "NULL");
	check(loc && !loc->line, "%s: no line", what);
	check(loc && !loc->in_scope, "%s: out of scope", what);
}

static char * __attribute__((format(printf, 1, 2)))
xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("vasprintf");
	va_end(ap);
	return s;
}

static int
main_load_bias_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *) data = info->dlpi_addr;
	return 1;	/* the first object is the main program */
}

static uintptr_t
main_load_bias(void)
{
	uintptr_t bias = 0;

	dl_iterate_phdr(main_load_bias_cb, &bias);
	return bias;
}

static int
elf_type(const char *path)
{
	ElfW(Ehdr) ehdr;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		fatal("open %s", path);
	n = pread(fd, &ehdr, sizeof(ehdr), 0);
	close(fd);
	if (n != sizeof(ehdr))
		fatal("read %s", path);
	return ehdr.e_type;
}

/* DWARF version of this source file's CU, -1 if none. */
static int
cu_version(const char *path, const char *src)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw;
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie;
	int found = -1;

	if (fd < 0)
		fatal("open %s", path);
	dw = dwarf_begin(fd, DWARF_C_READ);
	while (dw && dwarf_get_units(dw, cu, &cu, &version, &unit_type,
				     &cudie, NULL) == 0) {
		const char *name = dwarf_diename(&cudie);

		if (name && !strcmp(base_name(name), src)) {
			found = version;
			break;
		}
	}
	dwarf_end(dw);
	close(fd);
	return found;
}

/* st_value of a .symtab symbol: what nm prints. */
static bool
symtab_value(const char *path, const char *sym_name, uint64_t *value)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0)
		fatal("open %s", path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < shdr.sh_size / shdr.sh_entsize;
		     i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym))
				break;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (name && !strcmp(name, sym_name)) {
				*value = sym.st_value;
				found = true;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static bool
has_section(const char *path, const char *sec_name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (fd < 0)
		fatal("open %s", path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			const char *name;

			if (!gelf_getshdr(scn, &shdr))
				continue;
			name = elf_strptr(elf, shstrndx, shdr.sh_name);
			found = name && !strcmp(name, sec_name);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* What the main executable's marker must resolve to in this variant. */
static void
expect_main(struct expect *e, const char *what, const char *exe,
	    const void *addr, const void *entry, int line, bool in_scope)
{
	static char anon[256];

	e->what = what;
	e->dso = exe;
	e->func = "symtest_main_mark";
	e->file = SYMTEST_STRIP ? NULL : SYMTEST_SRC;
	e->line = line;
	e->in_scope = in_scope;
	/*
	 * Without symbols, the start of the call frame entry holding addr
	 * names it: the function's entry, for its body too.
	 */
	if (SYMTEST_STRIP == 2) {
		snprintf(anon, sizeof(anon), "%s+0x%" PRIxPTR, base_name(exe),
			 (uintptr_t) entry - main_load_bias());
		e->func = anon;
	}
	(void) addr;
}

static void
check_variant(const char *exe)
{
	int type = elf_type(exe);

	if (SYMTEST_PIE >= 0) {
		if (type != (SYMTEST_PIE ? ET_DYN : ET_EXEC))
			skip("built %s PIE, but CFLAGS/LDFLAGS made it otherwise",
			     SYMTEST_PIE ? "as" : "not as");
		check(true, "variant: %s executable", SYMTEST_PIE ? "PIE" : "non-PIE");
	}
	if (SYMTEST_DWARF && !SYMTEST_STRIP) {
		int v = cu_version(exe, SYMTEST_SRC);

		if (v < 0)
			skip("no DWARF for %s: do CFLAGS say -g0?", SYMTEST_SRC);
		if (v != SYMTEST_DWARF)
			skip("built for DWARF %d, CFLAGS made it DWARF %d",
			     SYMTEST_DWARF, v);
		check(true, "variant: DWARF %d", v);
	}
	if (SYMTEST_NO_ARANGES)
		check(!has_section(exe, ".debug_aranges") &&
		      has_section(exe, ".debug_line"),
		      "variant: .debug_line but no .debug_aranges");
	if (SYMTEST_STRIP)
		check(cu_version(exe, SYMTEST_SRC) < 0,
		      "variant: %s has no DWARF (strip --strip-%s)", exe,
		      SYMTEST_STRIP == 1 ? "debug" : "all");
}

static void
test_main_exe(struct sym_proc *sp, const char *exe, const char *dir)
{
	struct symtest_marker mk;
	const struct sym_loc *loc;
	const struct sym_stats *st = sym_proc_stats(sp);
	struct capture cap;
	struct ct_func *func;
	struct ct_line *line;
	struct expect e;
	char *err;

	symtest_main_mark(&mk);

	capture_begin(&cap);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	expect_main(&e, "main exe, marked line", exe, mk.addr, mk.entry, mk.line, true);
	check_loc(loc, &e);
	func = loc->func;
	line = loc->line;

	loc = sym_lookup(sp, (uintptr_t) mk.entry);
	expect_main(&e, "main exe, function entry", exe, mk.entry, mk.entry, 0, true);
	e.line_lo = mk.decl_line;
	e.line_hi = mk.body_line;
	check_loc(loc, &e);
	check(loc->func == func, "main exe: entry and body share one ct_func");
	err = capture_end(&cap);
	check(count_substr(err, NO_DEBUGINFO_WARNING) == (SYMTEST_STRIP ? 1 : 0),
	      "main exe: %s debug info warning", SYMTEST_STRIP ? "one" : "no");
	free(err);

	uint64_t hits = st->cache_hits, lookups = st->lookups;

	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	check(st->cache_hits == hits + 1 && st->lookups == lookups + 1,
	      "repeated pc: one lookup, one cache hit");
	check(loc->func == func && loc->line == line,
	      "repeated pc: same interned function and line");

	if (SYMTEST_STRIP != 2)
		return;

	/* The offset must be what nm says about the unstripped twin. */
	char *twin = xstrfmt("%s/%s", dir, SYMTEST_TWIN);
	uint64_t nm_value;

	if (!symtab_value(twin, "symtest_main_mark", &nm_value))
		fatal("no symtest_main_mark in %s", twin);
	loc = sym_lookup(sp, (uintptr_t) mk.entry);

	char *want = xstrfmt("%s+0x%" PRIx64, base_name(exe), nm_value);

	check(!strcmp(loc->func->name, want),
	      "stripped entry is %s, by st_value in %s (got %s)", want,
	      twin, loc->func->name);
	free(want);
	free(twin);
}

static void
test_shared(struct sym_proc *sp, const char *shared_path, bool in_scope,
	    const char *what)
{
	struct symtest_marker mk;
	struct expect e = {
		.func = "symtest_shared_mark",
		.dso = shared_path,
		.file = SYMTEST_SHARED_SRC,
		.in_scope = in_scope,
	};
	char *what_line = xstrfmt("%s, marked line", what);
	char *what_entry = xstrfmt("%s, function entry", what);

	symtest_shared_mark(&mk);
	e.what = what_line;
	e.line = mk.line;
	check_loc(sym_lookup(sp, (uintptr_t) mk.addr), &e);
	e.what = what_entry;
	e.line = 0;
	e.line_lo = mk.decl_line;
	e.line_hi = mk.body_line;
	check_loc(sym_lookup(sp, (uintptr_t) mk.entry), &e);
	free(what_line);
	free(what_entry);
}

static void
test_unknown(struct sym_proc *sp)
{
	check_unknown(sym_lookup(sp, 0), "pc 0");
	check_unknown(sym_lookup(sp, 1), "pc 1");
	check_unknown(sym_lookup(sp, UINT64_MAX), "pc 0xffffffffffffffff");
	check_unknown(sym_lookup(sp, 0xffffffff81000000ULL), "kernel pc");
	check_unknown(sym_lookup(sp, 0x00007fffffffffffULL), "top of user space");
}

/*
 * A library that appears after sym_proc_new: found by the refresh on a
 * miss, which is rate-limited, or by sym_proc_maps_changed.
 */
static void *
test_dlopen(struct sym_proc *sp, const char *dir, char **dl_path)
{
	const struct sym_stats *st = sym_proc_stats(sp);
	struct symtest_marker mk;
	const struct sym_loc *loc;
	struct expect e = {
		.what = "dlopen'ed library, marked line",
		.func = "symtest_dlopen_mark",
		.file = SYMTEST_DLOPEN_SRC,
		.in_scope = true,
	};
	uint64_t refreshes, hits, t0;
	char *path = xstrfmt("%s/%s", dir, SYMTEST_DLOPEN_LIB);
	void *handle;
	symtest_mark_fn mark;

	usleep(past_rate_limit_us);
	refreshes = st->refreshes;
	t0 = now_ns();
	check_unknown(sym_lookup(sp, 1), "pc 1 past the rate limit");
	check(st->refreshes == refreshes + 1,
	      "a miss past the rate limit refreshes (%" PRIu64 " -> %" PRIu64 ")",
	      refreshes, st->refreshes);

	check_unknown(sym_lookup(sp, 1), "pc 1 again");
	if (now_ns() - t0 < rate_limit_ns)
		check(st->refreshes == refreshes + 1,
		      "a miss within the rate limit does not refresh");

	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		printf("FAIL: dlopen %s: %s\n", path, dlerror());
		exit(1);
	}
	mark = (symtest_mark_fn) dlsym(handle, "symtest_dlopen_mark");
	if (!mark) {
		printf("FAIL: dlsym: %s\n", dlerror());
		exit(1);
	}
	mark(&mk);
	*dl_path = realpath(path, NULL);
	if (!*dl_path)
		fatal("realpath %s", path);
	e.dso = *dl_path;
	e.line = mk.line;

	bool limited = false;

	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	if (now_ns() - t0 < rate_limit_ns) {
		limited = true;
		check_unknown(loc, "dlopen'ed library within the rate limit");
		check(st->refreshes == refreshes + 1,
		      "dlopen'ed library within the rate limit: no refresh");
	} else {
		printf("     (rate limit window passed: machine slow?)\n");
	}

	usleep(past_rate_limit_us);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	check_loc(loc, &e);
	if (limited)
		check(st->refreshes == refreshes + 2,
		      "dlopen'ed library found by a refresh on a miss");

	/* The cache must not survive a refresh. */
	refreshes = st->refreshes;
	hits = st->cache_hits;
	sym_proc_maps_changed(sp);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	check(st->refreshes == refreshes + 1 && st->cache_hits == hits,
	      "maps_changed: refreshes at once, cache flushed");
	check_loc(loc, &e);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	check(st->cache_hits == hits + 1, "after the refresh, cached again");

	e.what = "dlopen'ed library, function entry";
	e.line = 0;
	e.line_lo = mk.decl_line;
	e.line_hi = mk.body_line;
	check_loc(sym_lookup(sp, (uintptr_t) mk.entry), &e);

	free(path);
	return handle;
}

/* The vDSO is in no file: libdw reads it from /proc/PID/mem. */
static void
test_vdso(struct sym_proc *sp)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
	const struct sym_loc *loc;

	if (!fn) {
		printf("     (no vDSO clock_gettime: vDSO not tested)\n");
		if (vdso)
			dlclose(vdso);
		return;
	}
	loc = sym_lookup(sp, (uintptr_t) fn);
	check(strstr(loc->func->name, "clock_gettime") != NULL,
	      "vDSO: function is [__vdso_]clock_gettime (got %s)",
	      loc->func->name);
	check(!strcmp(loc->func->dso, "[vdso]"), "vDSO: module is [vdso] (got %s)",
	      loc->func->dso);
	check(!loc->in_scope, "vDSO: out of scope");
	dlclose(vdso);
}

static int
load_range_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t *range = data;	/* in: an address; out: [lo, hi) */
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (range[0] < lo || range[0] >= hi)
		return 0;
	range[0] = lo;
	range[1] = hi;
	return 1;
}

/*
 * Whether a mapping of path at file offset 0 other than the library's
 * own touches [lo, hi): libdw's own copy, sometimes.
 */
static bool
has_neighbour_copy(const char *path, uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char *line = NULL;
	size_t size = 0;
	bool found = false;

	if (!f)
		fatal("/proc/self/maps");
	while (!found && getline(&line, &size, f) > 0) {
		uintptr_t start, end;
		unsigned long long offset;
		int pos = -1;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx %*s %*s %n",
			   &start, &end, &offset, &pos) < 3 || pos < 0)
			continue;
		found = !offset && !strcmp(line + pos, path) &&
			(end == lo || start == hi);
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * Puts a private copy of the library holding mk->entry right next to the
 * library's own mappings, below them or else above, as libdw does when
 * it reads the library.  Returns NULL if there is one already,
 * MAP_FAILED if both places are taken.
 */
static void *
map_neighbour(const struct symtest_marker *mk, const char *path, size_t *len)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t range[2] = { (uintptr_t) mk->entry };
	uintptr_t at[2];
	void *copy = MAP_FAILED;
	struct stat st;
	int fd;

	if (!dl_iterate_phdr(load_range_cb, range))
		fatal("no PT_LOAD holds %p", mk->entry);
	range[0] &= ~(page - 1);
	range[1] = (range[1] + page - 1) & ~(page - 1);
	if (has_neighbour_copy(path, range[0], range[1]))
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		fatal("open %s", path);
	*len = (st.st_size + page - 1) & ~(page - 1);
	at[0] = range[0] - *len;
	at[1] = range[1];
	for (int i = 0; i < 2 && copy == MAP_FAILED; i++) {
		copy = mmap((void *) at[i], *len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
		/* Kernels before 4.17 take the flag as a mere hint. */
		if (copy != MAP_FAILED && (uintptr_t) copy != at[i]) {
			munmap(copy, *len);
			copy = MAP_FAILED;
		}
	}
	close(fd);
	return copy;
}

/*
 * Such a copy must not become part of the library's module, or the
 * module would start at the copy and the load bias would be off.
 */
static void
test_mmap_neighbour(struct sym_proc *sp, symtest_mark_fn mark,
		    const char *path, const char *src, const char *func)
{
	struct symtest_marker mk;
	struct expect e = {
		.func = func,
		.dso = path,
		.file = src,
		.in_scope = true,
	};
	size_t len;
	void *copy;
	char *what;

	mark(&mk);
	copy = map_neighbour(&mk, path, &len);
	if (copy == MAP_FAILED) {
		printf("     (no room next to %s: private copy not tested)\n",
		       path);
		return;
	}
	what = xstrfmt("%s next to a private copy of itself%s",
		       base_name(path), copy ? "" : " (libdw's)");
	sym_proc_maps_changed(sp);
	e.what = what;
	e.line = mk.line;
	check_loc(sym_lookup(sp, (uintptr_t) mk.addr), &e);
	free(what);
	if (!copy)
		return;
	munmap(copy, len);

	what = xstrfmt("%s after munmap of the copy", base_name(path));
	sym_proc_maps_changed(sp);
	e.what = what;
	check_loc(sym_lookup(sp, (uintptr_t) mk.addr), &e);
	free(what);
}

/*
 * A library whose file was deleted after loading: the maps say
 * "PATH (deleted)" and libdw cannot open it, so no symbols; the module
 * keeps its name, and the offset is from the module's start.
 */
static void
test_deleted(struct sym_proc *sp, const char *dir, const char *dl_path)
{
	struct symtest_marker mk;
	const struct sym_loc *loc;
	char *path = xstrfmt("%s/symtest-deleted-XXXXXX.so", dir);
	char buf[4096];
	uintptr_t range[2];
	symtest_mark_fn mark;
	void *handle;
	ssize_t n;
	int in, out;

	in = open(dl_path, O_RDONLY);
	out = mkstemps(path, 3);
	if (in < 0 || out < 0)
		fatal("copying %s to %s", dl_path, path);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n)
			fatal("write %s", path);
	}
	close(in);
	close(out);
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	unlink(path);
	if (!handle) {
		printf("     (dlopen %s: %s: deleted file not tested)\n",
		       path, dlerror());
		free(path);
		return;
	}
	mark = (symtest_mark_fn) dlsym(handle, "symtest_dlopen_mark");
	if (!mark)
		fatal("dlsym");
	mark(&mk);
	range[0] = (uintptr_t) mk.entry;
	if (!dl_iterate_phdr(load_range_cb, range))
		fatal("no PT_LOAD holds %p", mk.entry);

	char *want = xstrfmt("%s+0x%" PRIxPTR, base_name(path),
			     (uintptr_t) mk.addr - range[0]);

	sym_proc_maps_changed(sp);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	check(!strcmp(loc->func->dso, path),
	      "deleted library: module is %s (got %s)", path, loc->func->dso);
	check(!strcmp(loc->func->name, want),
	      "deleted library: function is %s (got %s)", want,
	      loc->func->name);
	check(!loc->line && !loc->in_scope, "deleted library: no line, out of scope");
	free(want);
	dlclose(handle);
	sym_proc_maps_changed(sp);
	check_unknown(sym_lookup(sp, (uintptr_t) mk.addr),
		      "deleted library after dlclose");
	free(path);
}

/* Another process, which exits while we symbolize it. */
static void
test_vanishing(struct lines_table *lines, const struct scope *scope,
	       const char *exe)
{
	struct symtest_marker mk;
	struct sym_proc *sp;
	struct expect e;
	pid_t pid;
	int status;

	symtest_main_mark(&mk);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (pid == 0) {
		pause();
		_exit(0);
	}

	sp = sym_proc_new(pid, lines, scope);
	check(sp != NULL, "sym_proc_new on a child");
	if (!sp) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	/* fork keeps the mappings: the marker is at the same address. */
	expect_main(&e, "child, marked line", exe, mk.addr, mk.entry, mk.line, true);
	check_loc(sym_lookup(sp, (uintptr_t) mk.addr), &e);

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(WIFSIGNALED(status), "child killed and reaped");

	sym_proc_maps_changed(sp);
	expect_main(&e, "child gone, marked line", exe, mk.addr, mk.entry, mk.line, true);
	check_loc(sym_lookup(sp, (uintptr_t) mk.addr), &e);
	usleep(past_rate_limit_us);
	check_unknown(sym_lookup(sp, 1), "child gone, pc 1");
	expect_main(&e, "child gone, function entry", exe, mk.entry, mk.entry, 0, true);
	e.line_lo = mk.decl_line;
	e.line_hi = mk.body_line;
	check_loc(sym_lookup(sp, (uintptr_t) mk.entry), &e);
	sym_proc_free(sp);

	struct capture cap;
	char *err;

	capture_begin(&cap);
	sp = sym_proc_new(pid, lines, scope);
	err = capture_end(&cap);
	check(!sp, "sym_proc_new on a reaped child fails");
	check(strstr(err, "cannot symbolize") != NULL,
	      "sym_proc_new on a reaped child says why");
	free(err);
	sym_proc_free(sp);
}

/* A library's marker under a scope: in scope or not, its line only if
   its module is in the binary scope (no DWARF read otherwise). */
static void
check_lib(const struct sym_loc *loc, const char *what, const char *kind,
	  const char *path, const char *func, bool in_scope, bool in_binary_scope)
{
	check(loc->in_scope == in_scope && !loc->line == !in_binary_scope &&
	      !strcmp(loc->func->dso, path) && !strcmp(loc->func->name, func),
	      "%s: %s %s, %s", what, kind, in_scope ? "in scope" : "out of scope",
	      in_binary_scope ? "with its line" : "its function only");
}

/* The same process under other scopes. */
static void
test_scopes(struct lines_table *lines, const char *shared_path, const char *dl_path,
	    struct ct_line *main_line)
{
	struct symtest_marker main_mk, shared_mk, dl_mk;
	const bool has_lines = SYMTEST_STRIP == 0;
	/* The directory of this source as the symbolizer spells it. */
	char *src_dir_glob = main_line ?
		xstrfmt("%.*s/*.c", (int) (base_name(main_line->file) - 1 -
					  main_line->file), main_line->file) :
		xstrfmt("/nonexistent/*.c");
	struct {
		const char *what;
		const char *binary[3];
		const char *source[2];
		bool main, shared, dl;		/* in scope */
		bool main_b, shared_b, dl_b;	/* its module in the binary scope */
	} cases[] = {
		{ "default (-b MAIN)", { "MAIN" }, { NULL },
		  true, false, false, true, false, false },
		{ "-b " SYMTEST_SHARED_LIB, { SYMTEST_SHARED_LIB },
		  { NULL }, false, true, false, false, true, false },
		{ "-b MAIN -b %symtest-dl%", { "MAIN", "%symtest-dl%" },
		  { NULL }, true, false, true, true, false, true },
		{ "-b <full path of shared lib>", { shared_path },
		  { NULL }, false, true, false, false, true, false },
		{ "-b /*/libsymtest-* (glob on the path)", { "/*/libsymtest-*" },
		  { NULL }, false, true, true, false, true, true },
		{ "-b libsymtest (no glob, no match)", { "libsymtest" },
		  { NULL }, false, false, false, false, false, false },
		{ "-b MAIN -b libsymtest-% -s %-shared.c",
		  { "MAIN", "libsymtest-%" }, { "%-shared.c" },
		  !has_lines, true, false, true, true, true },
		{ "-b MAIN -s " SYMTEST_SRC, { "MAIN" }, { SYMTEST_SRC },
		  true, false, false, true, false, false },
		{ "-b % -s */tests/*", { "%" }, { "*/tests/*" },
		  true, true, true, true, true, true },
		{ "-b MAIN -b libsymtest-shared.so -s <source dir>/*.c",
		  { "MAIN", "libsymtest-shared.so" }, { src_dir_glob },
		  true, has_lines, false, true, true, false },
	};
	void *dl = dlopen(dl_path, RTLD_NOW | RTLD_NOLOAD);
	symtest_mark_fn dl_mark = NULL;

	if (dl)
		dl_mark = (symtest_mark_fn) dlsym(dl, "symtest_dlopen_mark");
	if (!dl_mark) {
		printf("FAIL: %s not loaded\n", dl_path);
		exit(1);
	}
	symtest_main_mark(&main_mk);
	symtest_shared_mark(&shared_mk);
	dl_mark(&dl_mk);
	dlclose(dl);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scope *scope = scope_new();
		struct sym_proc *sp;
		const struct sym_loc *loc;

		for (size_t j = 0; j < 3 && cases[i].binary[j]; j++)
			scope_add_binary(scope, cases[i].binary[j]);
		for (size_t j = 0; j < 2 && cases[i].source[j]; j++)
			scope_add_source(scope, cases[i].source[j]);
		sp = sym_proc_new(getpid(), lines, scope);
		if (!sp)
			fatal("sym_proc_new(%d)", getpid());

		loc = sym_lookup(sp, (uintptr_t) main_mk.addr);
		check(loc->in_scope == cases[i].main, "%s: main exe %s",
		      cases[i].what, cases[i].main ? "in scope" : "out of scope");
		/* A module out of the binary scope gets no line: no DWARF read. */
		check(loc->line == (cases[i].main_b ? main_line : NULL),
		      "%s: main exe line is %s", cases[i].what,
		      cases[i].main_b ? "the same interned ct_line" : "none");
		check_lib(sym_lookup(sp, (uintptr_t) shared_mk.addr), cases[i].what,
			  "shared library", shared_path, "symtest_shared_mark",
			  cases[i].shared, cases[i].shared_b);
		check_lib(sym_lookup(sp, (uintptr_t) dl_mk.addr), cases[i].what,
			  "dlopen'ed library", dl_path, "symtest_dlopen_mark",
			  cases[i].dl, cases[i].dl_b);
		sym_proc_free(sp);
		scope_free(scope);
	}
	free(src_dir_glob);
}

int
main(void)
{
	struct lines_table *lines = lines_new();
	struct scope *scope = scope_new();
	struct symtest_marker mk;
	struct sym_proc *sp;
	const struct sym_loc *loc;
	char *exe, *dir, *shared_path, *dl_path = NULL;
	void *dl;
	Dl_info info;

	setvbuf(stdout, NULL, _IOLBF, 0);
	exe = realpath("/proc/self/exe", NULL);
	if (!exe)
		fatal("realpath /proc/self/exe");
	dir = strdup(exe);
	if (!dir)
		fatal("strdup");
	*strrchr(dir, '/') = '\0';
	check_variant(exe);

	symtest_shared_mark(&mk);
	if (!dladdr(mk.entry, &info) || !info.dli_fname)
		fatal("dladdr");
	shared_path = realpath(info.dli_fname, NULL);
	if (!shared_path)
		fatal("realpath %s", info.dli_fname);
	check(!strcmp(base_name(shared_path), SYMTEST_SHARED_LIB),
	      "linked against %s", shared_path);

	/* The test libraries in scope too: only then are their lines read. */
	scope_add_binary(scope, "MAIN");
	scope_add_binary(scope, "libsymtest-%");
	sp = sym_proc_new(getpid(), lines, scope);
	if (!sp)
		fatal("sym_proc_new(%d)", getpid());

	test_main_exe(sp, exe, dir);
	test_shared(sp, shared_path, true, "shared library, -b libsymtest-%");
	test_unknown(sp);
	test_vdso(sp);
	test_mmap_neighbour(sp, shared_mark, shared_path,
			    SYMTEST_SHARED_SRC, "symtest_shared_mark");
	dl = test_dlopen(sp, dir, &dl_path);
	test_mmap_neighbour(sp, (symtest_mark_fn) dlsym(dl, "symtest_dlopen_mark"),
			    dl_path, SYMTEST_DLOPEN_SRC, "symtest_dlopen_mark");
	test_deleted(sp, dir, dl_path);

	symtest_main_mark(&mk);
	loc = sym_lookup(sp, (uintptr_t) mk.addr);
	struct ct_line *main_line = loc->line;

	test_scopes(lines, shared_path, dl_path, main_line);
	test_vanishing(lines, scope, exe);

	sym_proc_free(sp);
	dlclose(dl);

	size_t nfuncs, nlines;
	struct ct_func *const *funcs = lines_funcs(lines, &nfuncs);
	struct ct_line *const *all_lines = lines_lines(lines, &nlines);

	printf("     (%zu functions, %zu lines interned)\n", nfuncs, nlines);
	for (size_t i = 0; i < nfuncs; i++)
		if (funcs[i]->id != i)
			check(false, "function %zu has id %u", i, funcs[i]->id);
	for (size_t i = 0; i < nlines; i++)
		if (all_lines[i]->id != i)
			check(false, "line %zu has id %u", i, all_lines[i]->id);

	lines_free(lines);
	scope_free(scope);
	free(exe);
	free(dir);
	free(shared_path);
	free(dl_path);

	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
