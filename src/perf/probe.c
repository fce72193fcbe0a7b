#include "config.h"
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/perf_sys.h"
#include "perf/probe.h"
#include "sym/symbolizer.h"

/* Not in every libc's errno.h: the kernel's "operation not supported". */
enum { PROBE_ENOTSUPP = 524 };
/* Ours: breakpoints open here but never fire (probe_breakpoints_dead). */
enum { PROBE_EBPDEAD = 4096 };
const char probe_bp_dead_msg[] = "hardware breakpoint events open but never fire "
				 "on this machine (a virtual machine without debug registers?)";

static const char probe_uprobe_type_path[] =
	"/sys/bus/event_source/devices/uprobe/type";

static const char *const probe_mode_names[] = {
	[PROBE_AUTO] = "auto",
	[PROBE_BREAKPOINT] = "breakpoint",
	[PROBE_UPROBE] = "uprobe",
};

static const Dwfl_Callbacks probe_dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

enum probe_spec_type { SPEC_FUNC, SPEC_LINE, SPEC_ADDR };

enum probe_state {
	PROBE_PENDING,		/* not found (yet) in this image */
	PROBE_RESOLVED,
	PROBE_FAILED,		/* error printed; retried in the next image */
};

struct probe {
	char *spec;
	char *name;
	enum probe_kind kind;

	enum probe_spec_type type;
	char *dso;		/* SPEC_ADDR, and SPEC_FUNC when given */
	char *func;		/* SPEC_FUNC */
	char *file;		/* SPEC_LINE */
	int line;		/* SPEC_LINE */
	uint64_t vaddr;		/* SPEC_ADDR */

	enum probe_state state;
	uint64_t addr;		/* in the target's address space */
	char *upath;		/* file for the uprobe */
	uint64_t uoffset;	/* and the instruction's offset in it */
	/*
	 * Not known to start an instruction (a raw DSO:0xADDR with no symbol
	 * or line there): a uprobe's int3 could land inside one and corrupt
	 * the target, a breakpoint that never fires does no harm.
	 */
	bool bp_only;
	char *where;		/* probe_location */

	bool want_uprobe;	/* a thread had no debug register left */
	bool used_bp, used_uprobe;
	uint64_t gone;		/* counts of closed counters */
};

struct probe_thread {
	pid_t tid;
	bool live;		/* counters open: not retired by a new image */
	struct probe_thread *prev, *next;
	size_t nfds;
	int *fds;		/* by probe index; -1: none */
	uint64_t *bp_addr;	/* where fds[i] is a breakpoint; else 0 */
};

struct probe_set {
	enum probe_mode mode;
	struct probe *probes;
	size_t nprobes, alloc;
	struct probe_thread *threads;	/* every handle not closed */
	int uprobe_type;	/* -1: not read yet, -2: none */
	bool bp_unsupported;	/* the kernel refused breakpoints as such */
};

/* One executable mapping of a file, from /proc/PID/maps. */
struct probe_map {
	uint64_t start, end, offset, ino;
	bool deleted;
	char *path;		/* without " (deleted)" */
};

struct probe_module {
	Dwfl_Module *mod;
	char *path;		/* without " (deleted)" */
	const char *base;	/* into path */
	uint64_t start;
	bool is_main;
};

/* What one probe_resolve call looks at. */
struct probe_image {
	pid_t pid;
	Dwfl *dwfl;
	char *exe;
	struct probe_map *maps;
	size_t nmaps;
	struct probe_module *mods;
	size_t nmods;
};

/* One instruction a spec matched. */
struct probe_place {
	const struct probe_module *m;
	uint64_t vaddr;		/* ELF address */
	char *group;		/* the function, for lines: without ".cold" */
	bool cold;
	bool global;		/* for functions: not a static one */
};

struct probe_places {
	struct probe_place *v;
	size_t n, alloc;
};

/* --- specs ------------------------------------------------------------- */

int
probe_mode_from_name(const char *name)
{
	size_t n = sizeof(probe_mode_names) / sizeof(*probe_mode_names);

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, probe_mode_names[i]))
			return (int) i;
	}
	return -1;
}

static bool
probe_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

static bool
probe_is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++) {
		/* Symbol names: C identifiers, mangled names, "foo.cold". */
		if (!(*s == '_' || *s == '.' || *s == '$' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return false;
	}
	return true;
}

static void
probe_syntax_error(const char *spec, const char *why)
{
	error_msg("bad progress point '%s': %s; expected FUNCTION, DSO:FUNCTION, "
		  "FILE:LINE or DSO:0xADDR", spec, why);
}

/* Fills the spec fields of p from spec; -1 after printing why. */
static int
probe_parse(struct probe *p, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	const char *tail;
	char *end;

	if (!colon) {
		if (!probe_is_ident(spec)) {
			probe_syntax_error(spec, *spec ? "not a function name" :
					   "empty");
			return -1;
		}
		p->type = SPEC_FUNC;
		p->func = xstrdup(spec);
		return 0;
	}
	tail = colon + 1;
	if (colon == spec) {
		probe_syntax_error(spec, "nothing before ':'");
		return -1;
	}
	if (colon[-1] == ':') {
		probe_syntax_error(spec, "'::' (give C++ functions by their "
				   "mangled name)");
		return -1;
	}
	if (probe_all_digits(tail)) {
		long line = strtol(tail, &end, 10);

		if (line <= 0 || line > 0x7fffffff) {
			probe_syntax_error(spec, line <= 0 ?
					   "line numbers start at 1" :
					   "line number too large");
			return -1;
		}
		p->type = SPEC_LINE;
		p->file = xasprintf("%.*s", (int) (colon - spec), spec);
		p->line = (int) line;
		return 0;
	}
	if (tail[0] == '0' && (tail[1] == 'x' || tail[1] == 'X')) {
		errno = 0;
		p->vaddr = strtoull(tail + 2, &end, 16);
		/* strtoull takes signs and blanks, an address does not. */
		if (!isxdigit((unsigned char) tail[2]) || *end || errno) {
			probe_syntax_error(spec, "bad hexadecimal address");
			return -1;
		}
		p->type = SPEC_ADDR;
		p->dso = xasprintf("%.*s", (int) (colon - spec), spec);
		return 0;
	}
	if (probe_is_ident(tail)) {
		p->type = SPEC_FUNC;
		p->func = xstrdup(tail);
		p->dso = xasprintf("%.*s", (int) (colon - spec), spec);
		return 0;
	}
	probe_syntax_error(spec, *tail ? "what follows the last ':' is neither "
			   "a line number, a 0x address nor a function name" :
			   "nothing after ':'");
	return -1;
}

/* --- the image: maps, modules ------------------------------------------ */

/* The executable file mappings of pid; -1 with errno. */
static int
probe_read_maps(struct probe_image *img)
{
	char *text = procfs_maps(img->pid), *cur = text;
	size_t alloc = 0;
	struct procfs_map m;

	if (!text)
		return -1;
	while (procfs_maps_next(&cur, &m)) {
		if (m.perms[2] != 'x' || m.name[0] != '/' || !m.ino)
			continue;
		if (img->nmaps == alloc)
			img->maps = xgrowarray(img->maps, &alloc, img->nmaps + 1,
					       sizeof(*img->maps));
		img->maps[img->nmaps] = (struct probe_map) {
			.start = m.start,
			.end = m.end,
			.offset = m.offset,
			.ino = m.ino,
		};
		img->maps[img->nmaps].path =
			strip_deleted(m.name, &img->maps[img->nmaps].deleted);
		img->nmaps++;
	}
	free(text);
	return 0;
}

static int
probe_collect_module(Dwfl_Module *mod, void **userdata, const char *name,
		     Dwarf_Addr start, void *arg)
{
	struct probe_image *img = arg;
	struct probe_module *m;
	const char *slash;

	/* Files only: the vDSO has no path for a uprobe, nor debug info. */
	if (!name || name[0] != '/')
		return DWARF_CB_OK;
	img->mods = xrealloc(img->mods, (img->nmods + 1) * sizeof(*img->mods));
	m = &img->mods[img->nmods++];
	m->mod = mod;
	m->path = strip_deleted(name, NULL);
	slash = strrchr(m->path, '/');
	m->base = slash + 1;
	m->start = start;
	m->is_main = img->exe && !strcmp(m->path, img->exe);
	return DWARF_CB_OK;
}

/* The main executable first (searched first), then by address. */
static int
probe_module_cmp(const void *a, const void *b)
{
	const struct probe_module *x = a, *y = b;

	if (x->is_main != y->is_main)
		return x->is_main ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void
probe_image_close(struct probe_image *img)
{
	for (size_t i = 0; i < img->nmaps; i++)
		free(img->maps[i].path);
	free(img->maps);
	for (size_t i = 0; i < img->nmods; i++)
		free(img->mods[i].path);
	free(img->mods);
	if (img->dwfl)
		dwfl_end(img->dwfl);
	free(img->exe);
}

static char *
probe_readlink(const char *path)
{
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return strip_deleted(buf, NULL);
}

/* -1 after printing why. */
static int
probe_image_open(struct probe_image *img, pid_t pid)
{
	char exe_link[sizeof("/proc//exe") + sizeof(int) * 3];
	int rc;

	memset(img, 0, sizeof(*img));
	img->pid = pid;
	snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int) pid);
	img->exe = probe_readlink(exe_link);
	if (!img->exe || probe_read_maps(img)) {
		perror_msg("cannot find the progress points in process %d",
			   (int) pid);
		goto fail;
	}
	img->dwfl = dwfl_begin(&probe_dwfl_callbacks);
	if (!img->dwfl) {
		error_msg("dwfl_begin: %s", dwfl_errmsg(-1));
		goto fail;
	}
	/*
	 * dwfl_linux_proc_report's module starts (and so its biases) can be
	 * off when the target has a private mapping of a library just below
	 * it; addresses here go through ELF addresses and the file offsets
	 * of /proc/PID/maps, which such a mapping cannot disturb.
	 */
	dwfl_report_begin(img->dwfl);
	rc = dwfl_linux_proc_report(img->dwfl, pid);
	if (rc) {
		/* libdwfl's own errors are -1, others errno values. */
		error_msg("cannot read the modules of process %d: %s", (int) pid,
			  rc < 0 ? dwfl_errmsg(-1) : strerror(rc));
		dwfl_report_end(img->dwfl, NULL, NULL);
		goto fail;
	}
	if (dwfl_report_end(img->dwfl, NULL, NULL)) {
		error_msg("dwfl_report_end: %s", dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_getmodules(img->dwfl, probe_collect_module, img, 0);
	if (img->nmods)
		qsort(img->mods, img->nmods, sizeof(*img->mods),
		      probe_module_cmp);
	return 0;
fail:
	probe_image_close(img);
	return -1;
}

static const struct probe_module *
probe_main_module(const struct probe_image *img)
{
	return img->nmods && img->mods[0].is_main ? &img->mods[0] : NULL;
}

/* "/path/to/exe or its libraries", for messages. */
static char *
probe_image_desc(const struct probe_image *img)
{
	return xasprintf("%s or its libraries", img->exe ? img->exe : "?");
}

/*
 * DSO names a module by path, by path suffix, or by basename (with or
 * without the version suffix: "libfoo.so" for libfoo.so.1.2).
 */
static bool
probe_dso_matches(const char *dso, const struct probe_module *m)
{
	size_t dlen = strlen(dso), plen = strlen(m->path);
	bool match;
	char *real;

	if (!strcmp(dso, m->path) || !strcmp(dso, m->base))
		return true;
	if (!strchr(dso, '/'))
		return !strncmp(dso, m->base, dlen) && m->base[dlen] == '.';
	if (dso[0] != '/')
		return plen > dlen && m->path[plen - dlen - 1] == '/' &&
			!strcmp(m->path + plen - dlen, dso);
	/* /proc/PID/maps shows canonical paths; dso may go through links. */
	real = realpath(dso, NULL);
	match = real && !strcmp(real, m->path);
	free(real);
	return match;
}

/* --- places ------------------------------------------------------------ */

static void
probe_places_add(struct probe_places *pl, const struct probe_module *m,
		 uint64_t vaddr, const char *group, bool cold, bool global)
{
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->v[i].m == m && pl->v[i].vaddr == vaddr)
			return;		/* .symtab and .dynsym, say */
	}
	if (pl->n == pl->alloc)
		pl->v = xgrowarray(pl->v, &pl->alloc, pl->n + 1, sizeof(*pl->v));
	pl->v[pl->n++] = (struct probe_place) {
		.m = m,
		.vaddr = vaddr,
		.group = group ? xstrdup(group) : NULL,
		.cold = cold,
		.global = global,
	};
}

static void
probe_places_remove(struct probe_places *pl, size_t i)
{
	free(pl->v[i].group);
	pl->v[i] = pl->v[--pl->n];
}

static void
probe_places_free(struct probe_places *pl)
{
	while (pl->n)
		probe_places_remove(pl, pl->n - 1);
	free(pl->v);
	pl->v = NULL;
	pl->alloc = 0;
}

static uint64_t
probe_elf_bias(Dwfl_Module *mod)
{
	GElf_Addr bias = 0;

	if (!dwfl_module_getelf(mod, &bias))
		dwfl_module_info(mod, NULL, NULL, NULL, &bias, NULL, NULL, NULL);
	return bias;
}

/* How the module is named in a DSO:0xADDR spec: its basename if unique. */
static const char *
probe_module_spec_name(const struct probe_image *img,
		       const struct probe_module *m)
{
	for (size_t i = 0; i < img->nmods; i++) {
		if (&img->mods[i] != m && !strcmp(img->mods[i].base, m->base))
			return m->path;
	}
	return m->base;
}

/*
 * The line-table row at or before abs (an absolute address): its file,
 * line and absolute address.  NULL when there is none.
 */
static const char *
probe_getsrc(Dwfl_Module *mod, uint64_t abs, int *line, uint64_t *row_abs)
{
	Dwfl_Line *dl = dwfl_module_getsrc(mod, abs);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr dwbias, a;
	Dwarf_Line *l;

	if (dl)
		return dwfl_lineinfo(dl, row_abs, line, NULL, NULL, NULL);
	/* No .debug_aranges (clang): look the CU up by its own ranges. */
	while ((cu = dwfl_module_nextcu(mod, cu, &dwbias))) {
		if (dwarf_haspc(cu, abs - dwbias) <= 0)
			continue;
		l = dwarf_getsrc_die(cu, abs - dwbias);
		if (!l || dwarf_lineno(l, line) || dwarf_lineaddr(l, &a))
			return NULL;
		*row_abs = a + dwbias;
		return dwarf_linesrc(l, NULL, NULL);
	}
	return NULL;
}

/* "dso:0xADDR (function, file:line)", usable as a spec. */
static char *
probe_describe(const struct probe_image *img, const struct probe_module *m,
	       uint64_t vaddr)
{
	uint64_t abs = vaddr + probe_elf_bias(m->mod);
	const char *func, *file = NULL, *slash;
	GElf_Off off = 0;
	GElf_Sym sym;
	uint64_t row;
	char *desc, *fn;
	int line = 0;

	func = dwfl_module_addrinfo(m->mod, abs, &off, &sym, NULL, NULL, NULL);
	if (func && off)
		fn = xasprintf("%s+0x%" PRIx64, func, (uint64_t) off);
	else
		fn = xstrdup(func ? func : "?");
	file = probe_getsrc(m->mod, abs, &line, &row);
	if (file && line > 0) {
		slash = strrchr(file, '/');
		desc = xasprintf("%s:0x%" PRIx64 " (%s, %s:%d)",
				 probe_module_spec_name(img, m), vaddr, fn,
				 slash ? slash + 1 : file, line);
	} else {
		desc = xasprintf("%s:0x%" PRIx64 " (%s)",
				 probe_module_spec_name(img, m), vaddr, fn);
	}
	free(fn);
	return desc;
}

static void
probe_list_places(const struct probe_image *img, const struct probe_places *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		char *desc = probe_describe(img, pl->v[i].m, pl->v[i].vaddr);

		fprintf(stderr, "  %s\n", desc);
		free(desc);
	}
}

/* --- FUNCTION and DSO:FUNCTION ----------------------------------------- */

/* Definitions of func in m; 1 when one is an IFUNC (printed). */
static int
probe_find_symbol(const struct probe *p, const struct probe_module *m,
		  struct probe_places *pl)
{
	int nsyms = dwfl_module_getsymtab(m->mod);
	uint64_t bias = probe_elf_bias(m->mod);

	for (int i = 1; i < nsyms; i++) {
		GElf_Addr addr;
		GElf_Word shndx;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym,
							   &addr, &shndx,
							   NULL, NULL);
		int type;

		if (!name || strcmp(name, p->func) || shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_GNU_IFUNC) {
			error_msg("progress point '%s': %s in %s is an IFUNC: "
				  "which implementation runs is chosen when the "
				  "library is loaded; name the implementation "
				  "instead (see nm -D %s)", p->spec, p->func,
				  m->path, m->path);
			return 1;
		}
		if (type != STT_FUNC)
			continue;
		probe_places_add(pl, m, addr - bias, NULL, false,
				 GELF_ST_BIND(sym.st_info) != STB_LOCAL);
	}
	return 0;
}

static bool
probe_module_has_global(const struct probe_places *pl,
			const struct probe_module *m)
{
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->v[i].m == m && pl->v[i].global)
			return true;
	}
	return false;
}

static bool
probe_any_global(const struct probe_places *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->v[i].global)
			return true;
	}
	return false;
}

/*
 * PROBE_RESOLVED with the place in pl, PROBE_PENDING (not found), or
 * PROBE_FAILED (printed).
 */
static enum probe_state
probe_resolve_func(const struct probe *p, const struct probe_image *img,
		   struct probe_places *pl)
{
	for (size_t i = 0; i < img->nmods; i++) {
		const struct probe_module *m = &img->mods[i];

		if (p->dso && !probe_dso_matches(p->dso, m))
			continue;
		if (probe_find_symbol(p, m, pl))
			return PROBE_FAILED;
		/* The executable's definition is the one calls bind to. */
		if (m->is_main && pl->n && !p->dso)
			break;
	}
	if (!pl->n)
		return PROBE_PENDING;

	/*
	 * A library defining it globally over libraries where it is static;
	 * within one module, a global and a static one are two places.
	 */
	for (size_t i = pl->n; i-- > 0;) {
		if (!probe_module_has_global(pl, pl->v[i].m) &&
		    probe_any_global(pl))
			probe_places_remove(pl, i);
	}
	if (pl->n == 1)
		return PROBE_RESOLVED;
	error_msg("progress point '%s': %s is defined at %zu places; "
		  "name one of them:", p->spec, p->func, pl->n);
	probe_list_places(img, pl);
	return PROBE_FAILED;
}

/* --- FILE:LINE ---------------------------------------------------------- */

/* file (as the line table names it) is what spec names. */
static bool
probe_file_matches(const char *spec, const char *comp_dir, const char *file)
{
	char *path = sym_source_path(comp_dir, file);
	size_t slen = strlen(spec), plen = strlen(path);
	bool match;

	if (!strchr(spec, '/')) {
		const char *slash = strrchr(path, '/');

		match = !strcmp(slash ? slash + 1 : path, spec);
	} else if (spec[0] == '/') {
		char *folded = sym_source_path(NULL, spec);

		match = !strcmp(folded, path);
		free(folded);
	} else {
		while (spec[0] == '.' && spec[1] == '/')
			spec += 2, slen -= 2;
		match = plen > slen && path[plen - slen - 1] == '/' &&
			!strcmp(path + plen - slen, spec);
	}
	free(path);
	return match;
}

struct probe_line_search {
	bool file_seen;
	int below, above;	/* nearest lines with code */
};

static void
probe_scan_cu(const struct probe *p, const struct probe_module *m,
	      Dwarf_Die *cu, uint64_t dwbias, struct probe_line_search *ls,
	      struct probe_places *pl)
{
	uint64_t elfbias = probe_elf_bias(m->mod);
	const char *comp_dir, *lastsrc = NULL;
	bool lastmatch = false;
	Dwarf_Attribute attr;
	Dwarf_Lines *lines;
	size_t nlines;

	if (dwarf_getsrclines(cu, &lines, &nlines))
		return;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const char *src = dwarf_linesrc(l, NULL, NULL);
		bool flag;
		Dwarf_Addr a;
		int lineno;

		/* The same file entry gives the same string: match it once. */
		if (src != lastsrc) {
			lastsrc = src;
			lastmatch = src && probe_file_matches(p->file, comp_dir,
							      src);
		}
		if (!lastmatch || dwarf_lineno(l, &lineno) ||
		    dwarf_lineendsequence(l, &flag) || flag || lineno <= 0)
			continue;
		ls->file_seen = true;
		if (lineno < p->line && lineno > ls->below)
			ls->below = lineno;
		if (lineno > p->line && (!ls->above || lineno < ls->above))
			ls->above = lineno;
		if (lineno != p->line || dwarf_linebeginstatement(l, &flag) ||
		    !flag || dwarf_lineaddr(l, &a))
			continue;
		probe_places_add(pl, m, a + dwbias - elfbias, NULL, false,
				 false);
	}
}

/*
 * Group the places by function (the symbol around them; "foo.cold" is
 * foo's cold part) and keep the first instruction of each: the lowest
 * address, in the hot part when there is one.
 */
static void
probe_first_per_function(struct probe_places *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct probe_place *pi = &pl->v[i];
		uint64_t abs = pi->vaddr + probe_elf_bias(pi->m->mod);
		GElf_Off off;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(pi->m->mod, abs, &off,
							&sym, NULL, NULL, NULL);
		const char *cold = name ? strstr(name, ".cold") : NULL;

		pi->cold = cold && (!cold[5] || cold[5] == '.');
		pi->group = name ? xasprintf("%.*s", (int) (pi->cold ?
					     cold - name : (long) strlen(name)),
					     name) : xstrdup("?");
	}
	for (size_t i = 0; i < pl->n; i++) {
		for (size_t j = pl->n; j-- > i + 1;) {
			struct probe_place *a = &pl->v[i], *b = &pl->v[j];
			bool b_better;

			if (a->m != b->m || strcmp(a->group, b->group))
				continue;
			b_better = a->cold != b->cold ? a->cold :
				b->vaddr < a->vaddr;
			if (b_better) {
				struct probe_place t = *a;

				*a = *b;
				*b = t;
			}
			probe_places_remove(pl, j);
		}
	}
}

static enum probe_state
probe_resolve_line(const struct probe *p, const struct probe_image *img,
		   struct probe_places *pl)
{
	struct probe_line_search ls = { .file_seen = false };

	for (size_t i = 0; i < img->nmods; i++) {
		const struct probe_module *m = &img->mods[i];
		Dwarf_Die *cu = NULL;
		Dwarf_Addr dwbias;

		while ((cu = dwfl_module_nextcu(m->mod, cu, &dwbias)))
			probe_scan_cu(p, m, cu, dwbias, &ls, pl);
		/*
		 * A file the executable was built from is the executable's,
		 * even where a library has a source file of that name too.
		 */
		if (m->is_main && ls.file_seen)
			break;
	}
	if (pl->n) {
		probe_first_per_function(pl);
		if (pl->n == 1)
			return PROBE_RESOLVED;
		error_msg("progress point '%s': that line has code in %zu "
			  "functions (inlined or cloned); name one of them:",
			  p->spec, pl->n);
		probe_list_places(img, pl);
		return PROBE_FAILED;
	}
	/* Perhaps in a library not loaded yet: probe_report_not_found. */
	if (!ls.file_seen)
		return PROBE_PENDING;
	if (ls.below && ls.above)
		error_msg("progress point '%s': no code at line %d of %s; the "
			  "nearest lines with code are %d and %d", p->spec,
			  p->line, p->file, ls.below, ls.above);
	else
		error_msg("progress point '%s': no code at line %d of %s; the "
			  "nearest line with code is %d", p->spec, p->line,
			  p->file, ls.below ? ls.below : ls.above);
	return PROBE_FAILED;
}

/* --- DSO:0xADDR --------------------------------------------------------- */

/* A function's entry or a line's start: an instruction boundary. */
static bool
probe_known_boundary(const struct probe_module *m, uint64_t vaddr)
{
	uint64_t abs = vaddr + probe_elf_bias(m->mod);
	GElf_Off off = 1;
	uint64_t row = 0;
	GElf_Sym sym;
	int line;

	if (dwfl_module_addrinfo(m->mod, abs, &off, &sym, NULL, NULL, NULL) &&
	    !off && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
		return true;
	return probe_getsrc(m->mod, abs, &line, &row) && row == abs;
}

static enum probe_state
probe_resolve_addr(const struct probe *p, const struct probe_image *img,
		   struct probe_places *pl)
{
	for (size_t i = 0; i < img->nmods; i++) {
		if (probe_dso_matches(p->dso, &img->mods[i]))
			probe_places_add(pl, &img->mods[i], p->vaddr, NULL,
					 false, false);
	}
	if (pl->n <= 1)
		return pl->n ? PROBE_RESOLVED : PROBE_PENDING;
	error_msg("progress point '%s': '%s' names %zu modules; give a longer "
		  "path:", p->spec, p->dso, pl->n);
	for (size_t i = 0; i < pl->n; i++)
		fprintf(stderr, "  %s\n", pl->v[i].m->path);
	return PROBE_FAILED;
}

/* --- from an ELF address to the target's address and the file offset --- */

/* File offset of vaddr in an executable segment, or -1 (printed). */
static int
probe_file_offset(const struct probe *p, const struct probe_module *m,
		  uint64_t vaddr, uint64_t *offset)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t nph;

	if (!elf || elf_getphdrnum(elf, &nph)) {
		error_msg("progress point '%s': cannot read the ELF headers of "
			  "%s: %s", p->spec, m->path, dwfl_errmsg(-1));
		return -1;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int) i, &mem);

		if (ph && ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz) {
			*offset = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	error_msg("progress point '%s': 0x%" PRIx64 " is not in an executable "
		  "segment of %s (see readelf -l)", p->spec, vaddr, m->path);
	return -1;
}

/* The file for the uprobe: a path to the mapped inode, seen from here. */
static char *
probe_uprobe_path(pid_t pid, const struct probe_map *map)
{
	char *cand[3];
	char *path = NULL;
	struct stat st;

	cand[0] = map->deleted ? NULL : xstrdup(map->path);
	/* The target may be in another mount namespace. */
	cand[1] = map->deleted ? NULL : xasprintf("/proc/%d/root%s", (int) pid,
						  map->path);
	/* Deleted (rebuilt) files too; needs CAP_SYS_ADMIN. */
	cand[2] = xasprintf("/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			    (int) pid, map->start, map->end);
	for (size_t i = 0; i < 3; i++) {
		if (!path && cand[i] && !stat(cand[i], &st) &&
		    st.st_ino == map->ino)
			path = cand[i];
		else
			free(cand[i]);
	}
	/* Overlayfs with xino shows other inode numbers: take the path. */
	return path ? path : xstrdup(map->path);
}

/*
 * Debug registers a thread has for execute breakpoints (x86: DR0-DR3).
 * In auto mode a set of more progress points than this counts them all
 * with uprobes, not four with breakpoints and the rest with uprobes: a
 * process counted by both kinds at once was killed by a stray SIGTRAP
 * (unit-probe's 8-thread case of 4 breakpoints and 2 uprobes, 16,000 hits
 * each: 3 of about 440 targets on Linux 6.18, none with either kind
 * alone; bpftrace issue 4021 reports the same of a uprobe beside a
 * watchpoint).  So a raw address that only a breakpoint can count is
 * refused beside more points than this.  A thread found with no debug
 * register left (the target's own use) still falls back alone, beside
 * breakpoints, with a warning.
 */
#define PROBE_BP_SLOTS	4

/* Auto mode counts every point with uprobes when they are this many. */
static bool
probe_auto_all_uprobes(size_t nprobes)
{
	return nprobes > PROBE_BP_SLOTS;
}

static int
probe_place_at(struct probe *p, const struct probe_image *img,
	       const struct probe_place *pl, enum probe_mode mode, size_t nprobes)
{
	const struct probe_map *map = NULL;
	uint64_t offset;

	if (probe_file_offset(p, pl->m, pl->vaddr, &offset))
		return -1;
	for (size_t i = 0; i < img->nmaps && !map; i++) {
		const struct probe_map *mp = &img->maps[i];

		if (!strcmp(mp->path, pl->m->path) && offset >= mp->offset &&
		    offset - mp->offset < mp->end - mp->start)
			map = mp;
	}
	if (!map) {
		error_msg("progress point '%s': offset 0x%" PRIx64 " of %s is "
			  "not mapped executable in process %d", p->spec, offset,
			  pl->m->path, (int) img->pid);
		return -1;
	}
	p->bp_only = p->type == SPEC_ADDR &&
		!probe_known_boundary(pl->m, pl->vaddr);
	if (p->bp_only && mode == PROBE_UPROBE) {
		error_msg("progress point '%s': 0x%" PRIx64 " is neither a "
			  "function's entry nor a line's start in %s: a uprobe "
			  "there could split an instruction and corrupt the "
			  "program; use breakpoints (--probe-mode=auto)",
			  p->spec, pl->vaddr, pl->m->path);
		return -1;
	}
	if (p->bp_only && mode == PROBE_AUTO && probe_auto_all_uprobes(nprobes)) {
		error_msg("progress point '%s': 0x%" PRIx64 " is neither a "
			  "function's entry nor a line's start in %s, so only a "
			  "breakpoint can count it, and with more than %d "
			  "progress points the others are counted with uprobes: "
			  "Linux has killed processes counted both ways with a "
			  "stray SIGTRAP; give at most %d points, or this one as "
			  "a function or FILE:LINE", p->spec, pl->vaddr,
			  pl->m->path, PROBE_BP_SLOTS, PROBE_BP_SLOTS);
		return -1;
	}
	p->addr = map->start + (offset - map->offset);
	p->uoffset = offset;
	p->upath = probe_uprobe_path(img->pid, map);
	p->where = probe_describe(img, pl->m, pl->vaddr);
	debug_msg("progress point '%s' at %s: %#" PRIx64 ", uprobe %s+%#" PRIx64,
		  p->spec, p->where, p->addr, p->upath, p->uoffset);
	return 0;
}

static bool
probe_dso_mapped(const char *dso, const struct probe_image *img)
{
	for (size_t i = 0; i < img->nmods; i++) {
		if (probe_dso_matches(dso, &img->mods[i]))
			return true;
	}
	return false;
}

static void
probe_report_not_found(const struct probe *p, const struct probe_image *img)
{
	const struct probe_module *main_mod;
	char *desc = probe_image_desc(img);
	Dwarf_Addr bias;

	switch (p->type) {
	case SPEC_FUNC:
		if (p->dso && !probe_dso_mapped(p->dso, img))
			error_msg("progress point '%s': process %d (%s) maps no "
				  "module '%s'", p->spec, (int) img->pid,
				  img->exe ? img->exe : "?", p->dso);
		else if (p->dso)
			error_msg("progress point '%s': no function '%s' in %s "
				  "in process %d", p->spec, p->func, p->dso,
				  (int) img->pid);
		else
			error_msg("progress point '%s': no function '%s' in %s",
				  p->spec, p->func, desc);
		break;
	case SPEC_ADDR:
		error_msg("progress point '%s': process %d (%s) maps no module "
			  "'%s'", p->spec, (int) img->pid,
			  img->exe ? img->exe : "?", p->dso);
		break;
	case SPEC_LINE:
		main_mod = probe_main_module(img);
		if (main_mod && !dwfl_module_getdwarf(main_mod->mod, &bias)) {
			free(desc);
			desc = xasprintf("%s (which has no debug info: build "
					 "with -g) or its libraries",
					 main_mod->path);
		}
		error_msg("progress point '%s': no source file '%s' in the "
			  "debug info of %s", p->spec, p->file, desc);
		break;
	}
	free(desc);
}

/*
 * Resolve one probe; returns its new state.  quiet: a probe found
 * nowhere says nothing.
 */
static enum probe_state
probe_resolve_one(struct probe *p, const struct probe_image *img,
		  enum probe_mode mode, size_t nprobes, bool quiet, bool *printed)
{
	struct probe_places pl = { .v = NULL };
	enum probe_state st;

	switch (p->type) {
	case SPEC_FUNC:
		st = probe_resolve_func(p, img, &pl);
		break;
	case SPEC_LINE:
		st = probe_resolve_line(p, img, &pl);
		break;
	default:
		st = probe_resolve_addr(p, img, &pl);
		break;
	}
	if (st == PROBE_RESOLVED && probe_place_at(p, img, &pl.v[0], mode, nprobes))
		st = PROBE_FAILED;
	if (st == PROBE_PENDING && !quiet) {
		probe_report_not_found(p, img);
		*printed = true;
	}
	if (st == PROBE_FAILED)
		*printed = true;
	probe_places_free(&pl);
	p->state = st;
	return st;
}

/* --- counters ----------------------------------------------------------- */

static uint64_t
probe_read_fd(int fd)
{
	uint64_t v;
	ssize_t n;

	do {
		n = read(fd, &v, sizeof(v));
	} while (n < 0 && errno == EINTR);
	return n == sizeof(v) ? v : 0;
}

static void
probe_explain(const struct probe *p, pid_t tid, const char *mech, int err)
{
	errno = err;
	if (err == PROBE_EBPDEAD)
		error_msg("cannot count progress point '%s' at %s on thread %d "
			  "with a breakpoint: %s%s", p->name, p->where, (int) tid,
			  probe_bp_dead_msg,
			  p->bp_only ? "" : "; --probe-mode=uprobe counts it");
	else if (err == PROBE_ENOTSUPP)
		error_msg("cannot count progress point '%s' at %s on thread %d "
			  "with a %s: uprobes cannot handle the instruction "
			  "there", p->name, p->where, (int) tid, mech);
	else
		perror_msg("cannot count progress point '%s' at %s on thread %d "
			   "with a %s", p->name, p->where, (int) tid, mech);
	if ((err == EACCES || err == EPERM) && !strcmp(mech, "uprobe"))
		error_msg("uprobe events need CAP_PERFMON (or root)");
	else if (err == EACCES || err == EPERM)
		error_msg("kernel.perf_event_paranoid is %d: counting another "
			  "process's threads needs <= 2 and the same user, or "
			  "CAP_PERFMON (or root)",
			  procfs_read_int("/proc/sys/kernel/perf_event_paranoid",
					      99));
	else if (err == ENOSPC && p->bp_only)
		error_msg("out of debug registers on that thread (x86 has 4, "
			  "shared with debuggers' watchpoints), and an address "
			  "that is neither a function's entry nor a line's "
			  "start is never given to a uprobe");
	else if (err == ENOSPC)
		error_msg("out of debug registers on that thread (x86 has 4, "
			  "shared with debuggers' watchpoints): use "
			  "--probe-mode=auto to count the others with uprobes");
	else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		error_msg("this kernel or machine offers no %s events", mech);
	else if (err == EMFILE || err == ENFILE)
		error_msg("one counter per progress point per thread: raise "
			  "the limit on open files (ulimit -n)");
	else if (err == EINVAL && p->bp_only)
		error_msg("0x%" PRIx64 " is not known to start an instruction",
			  p->addr);
}

static int
probe_uprobe_type(struct probe_set *ps)
{
	if (ps->uprobe_type == -1) {
		ps->uprobe_type = procfs_read_int(probe_uprobe_type_path, -2);
		if (ps->uprobe_type < 0)
			ps->uprobe_type = -2;
	}
	return ps->uprobe_type;
}

static int
probe_open_bp(const struct probe *p, pid_t tid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = p->addr;
	/* What the kernel requires of execute breakpoints. */
	attr.bp_len = sizeof(long);
	/* Counting only: user mode, and permitted at perf_event_paranoid 2. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return perf_sys_open(&attr, tid, -1);
}

/* The self-test's target: called with a breakpoint on its entry. */
static void __attribute__((noinline))
probe_bp_canary(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * Some hypervisors accept breakpoint events and never fire them (seen on
 * a Firecracker VM: the counter opens and stays 0), so a breakpoint that
 * opens proves nothing.  Ours counts three calls of a function of our
 * own, once.  A refusal to open is not a verdict: each counter then
 * reports its own errno.
 */
bool
probe_breakpoints_dead(void)
{
	static int dead = -1;
	struct perf_event_attr attr;
	int fd;

	if (dead >= 0)
		return dead;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uint64_t) (uintptr_t) probe_bp_canary;
	attr.bp_len = sizeof(long);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perf_sys_open(&attr, 0, -1);
	if (fd < 0)
		return false;
	for (int i = 0; i < 3; i++)
		probe_bp_canary();
	dead = probe_read_fd(fd) != 3;
	close(fd);
	if (dead)
		debug_msg("hardware breakpoint self-test: the counter opened "
			  "but did not count");
	return dead;
}

static int
probe_open_uprobe(struct probe_set *ps, const struct probe *p, pid_t tid)
{
	struct perf_event_attr attr;
	int type = probe_uprobe_type(ps);

	if (type < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t) type;
	attr.config = 0;	/* the "retprobe" bit: entry, not return */
	attr.config1 = (uint64_t) (uintptr_t) p->upath;
	attr.config2 = p->uoffset;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return perf_sys_open(&attr, tid, -1);
}

static bool
probe_auto_uprobe(const struct probe_set *ps, const struct probe *p)
{
	return p->want_uprobe || ps->bp_unsupported || probe_auto_all_uprobes(ps->nprobes);
}

/*
 * One counter for p on tid: 0 with *fd and, when it is a breakpoint, its
 * address in *bp_addr (else 0); or -errno (printed but ESRCH).
 */
static int
probe_open_counter(struct probe_set *ps, struct probe *p, pid_t tid, int *fd,
		   uint64_t *bp_addr)
{
	int err;

	*bp_addr = 0;
	if (ps->mode == PROBE_BREAKPOINT || p->bp_only ||
	    (ps->mode == PROBE_AUTO && !probe_auto_uprobe(ps, p))) {
		if (probe_breakpoints_dead()) {
			*fd = -1;
			errno = PROBE_EBPDEAD;
		} else {
			*fd = probe_open_bp(p, tid);
		}
		if (*fd >= 0) {
			p->used_bp = true;
			*bp_addr = p->addr;
			return 0;
		}
		err = errno;
		if (err == ESRCH)
			return -ESRCH;
		if (ps->mode == PROBE_BREAKPOINT || p->bp_only ||
		    (err != ENOSPC && err != ENOENT && err != EOPNOTSUPP &&
		     err != ENODEV && err != PROBE_EBPDEAD)) {
			probe_explain(p, tid, "breakpoint", err);
			return -err;
		}
		if (err == ENOSPC) {
			/* Another thread would refuse as well: go straight on. */
			p->want_uprobe = true;
			error_msg("warning: progress point '%s': thread %d has "
				  "no debug register left (the program uses them); "
				  "counting it with a uprobe beside breakpoints, "
				  "which Linux has been seen to kill a process for "
				  "with a stray SIGTRAP (--probe-mode=uprobe avoids "
				  "it)", p->name, (int) tid);
		} else if (err == PROBE_EBPDEAD) {
			ps->bp_unsupported = true;
			error_msg("warning: %s; counting progress points with "
				  "uprobes, which cost more per hit", probe_bp_dead_msg);
		} else {
			ps->bp_unsupported = true;
			errno = err;
			perror_msg("warning: no hardware breakpoint events; "
				   "counting progress points with uprobes, "
				   "which cost more per hit");
		}
	}
	*fd = probe_open_uprobe(ps, p, tid);
	if (*fd >= 0) {
		p->used_uprobe = true;
		return 0;
	}
	err = errno;
	if (err == ESRCH)
		return -ESRCH;
	probe_explain(p, tid, "uprobe", err);
	if (ps->mode == PROBE_AUTO && probe_auto_uprobe(ps, p))
		error_msg("it needed a uprobe: %s", p->want_uprobe ?
			  "every debug register of the thread was taken (x86 "
			  "has 4)" : ps->bp_unsupported ?
			  "the kernel offers no hardware breakpoints" :
			  "more progress points than debug registers (x86 has 4)");
	return -err;
}

static void
probe_thread_grow(struct probe_thread *t, size_t n)
{
	if (t->nfds >= n)
		return;
	t->fds = xrealloc(t->fds, n * sizeof(*t->fds));
	t->bp_addr = xrealloc(t->bp_addr, n * sizeof(*t->bp_addr));
	for (; t->nfds < n; t->nfds++) {
		t->fds[t->nfds] = -1;
		t->bp_addr[t->nfds] = 0;
	}
}

/* Counts into the totals, counters closed; the handle stays listed. */
static void
probe_thread_retire(struct probe_set *ps, struct probe_thread *t)
{
	for (size_t i = 0; i < t->nfds; i++) {
		if (t->fds[i] < 0)
			continue;
		ps->probes[i].gone += probe_read_fd(t->fds[i]);
		close(t->fds[i]);
		t->fds[i] = -1;
		t->bp_addr[i] = 0;
	}
	t->live = false;
}

static void
probe_thread_free(struct probe_set *ps, struct probe_thread *t)
{
	probe_thread_retire(ps, t);
	if (t->prev)
		t->prev->next = t->next;
	else
		ps->threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	free(t->fds);
	free(t->bp_addr);
	free(t);
}

/* --- API ---------------------------------------------------------------- */

struct probe_set *
probe_set_new(enum probe_mode mode)
{
	struct probe_set *ps = xcalloc(1, sizeof(*ps));

	ps->mode = mode;
	ps->uprobe_type = -1;
	return ps;
}

static void
probe_forget(struct probe *p)
{
	free(p->upath);
	free(p->where);
	p->upath = p->where = NULL;
	p->addr = p->uoffset = 0;
	p->bp_only = p->want_uprobe = false;
	p->state = PROBE_PENDING;
}

void
probe_set_free(struct probe_set *ps)
{
	if (!ps)
		return;
	while (ps->threads)
		probe_thread_free(ps, ps->threads);
	for (size_t i = 0; i < ps->nprobes; i++) {
		struct probe *p = &ps->probes[i];

		probe_forget(p);
		free(p->spec);
		free(p->name);
		free(p->dso);
		free(p->func);
		free(p->file);
	}
	free(ps->probes);
	free(ps);
}

int
probe_add(struct probe_set *ps, const char *spec, enum probe_kind kind,
	  const char *name)
{
	struct probe p = { .kind = kind, .state = PROBE_PENDING };

	if (probe_parse(&p, spec)) {
		free(p.dso);
		free(p.func);
		free(p.file);
		return -1;
	}
	p.spec = xstrdup(spec);
	p.name = xstrdup(name ? name : spec);
	if (ps->nprobes == ps->alloc)
		ps->probes = xgrowarray(ps->probes, &ps->alloc, ps->nprobes + 1,
					sizeof(*ps->probes));
	ps->probes[ps->nprobes] = p;
	return (int) ps->nprobes++;
}

/* Open the probe just resolved on every live thread; -1 when printed. */
static int
probe_open_on_live(struct probe_set *ps, size_t i)
{
	int rc = 0;

	for (struct probe_thread *t = ps->threads; t; t = t->next) {
		uint64_t bp_addr;
		int fd, err;

		if (!t->live)
			continue;
		probe_thread_grow(t, ps->nprobes);
		err = probe_open_counter(ps, &ps->probes[i], t->tid, &fd, &bp_addr);
		if (!err) {
			t->fds[i] = fd;
			t->bp_addr[i] = bp_addr;
		} else if (err != -ESRCH) {
			rc = -1;	/* it exits: probe_thread_close comes */
		}
	}
	return rc;
}

int
probe_resolve(struct probe_set *ps, pid_t pid, unsigned flags)
{
	bool quiet = flags & PROBE_RESOLVE_QUIET;
	bool printed = false, all = true, todo = false;
	struct probe_image img;

	if (!(flags & PROBE_RESOLVE_MORE)) {
		/* A new image: the old addresses mean nothing in it. */
		for (struct probe_thread *t = ps->threads; t; t = t->next)
			probe_thread_retire(ps, t);
		for (size_t i = 0; i < ps->nprobes; i++)
			probe_forget(&ps->probes[i]);
	}
	for (size_t i = 0; i < ps->nprobes; i++)
		todo |= ps->probes[i].state == PROBE_PENDING;
	if (todo && probe_image_open(&img, pid))
		return -1;
	for (size_t i = 0; i < ps->nprobes && todo; i++) {
		struct probe *p = &ps->probes[i];

		if (p->state != PROBE_PENDING)
			continue;
		if (probe_resolve_one(p, &img, ps->mode, ps->nprobes, quiet, &printed) ==
		    PROBE_RESOLVED && probe_open_on_live(ps, i))
			printed = true;
	}
	if (todo)
		probe_image_close(&img);
	for (size_t i = 0; i < ps->nprobes; i++)
		all &= ps->probes[i].state == PROBE_RESOLVED;
	return printed ? -1 : !all;
}

bool
probe_resolved(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].state == PROBE_RESOLVED;
}

int
probe_thread_open(struct probe_set *ps, pid_t tid, struct probe_thread **thread)
{
	struct probe_thread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	probe_thread_grow(t, ps->nprobes);
	for (size_t i = 0; i < ps->nprobes; i++) {
		int err;

		if (ps->probes[i].state != PROBE_RESOLVED)
			continue;
		err = probe_open_counter(ps, &ps->probes[i], tid, &t->fds[i],
					 &t->bp_addr[i]);
		if (err) {
			for (size_t j = 0; j < i; j++) {
				if (t->fds[j] >= 0)
					close(t->fds[j]);
			}
			free(t->fds);
			free(t->bp_addr);
			free(t);
			*thread = NULL;
			return err;
		}
	}
	t->live = true;
	t->next = ps->threads;
	if (t->next)
		t->next->prev = t;
	ps->threads = t;
	*thread = t;
	return 0;
}

bool
probe_thread_bp_at(const struct probe_thread *t, uint64_t addr)
{
	for (size_t i = 0; t && addr && i < t->nfds; i++) {
		if (t->fds[i] >= 0 && t->bp_addr[i] == addr)
			return true;
	}
	return false;
}

void
probe_thread_close(struct probe_set *ps, struct probe_thread *t)
{
	if (t)
		probe_thread_free(ps, t);
}

uint64_t
probe_count(struct probe_set *ps, unsigned i)
{
	uint64_t n = ps->probes[i].gone;

	/* Retired handles have no counters open: -1 everywhere. */
	for (const struct probe_thread *t = ps->threads; t; t = t->next) {
		if (i < t->nfds && t->fds[i] >= 0)
			n += probe_read_fd(t->fds[i]);
	}
	return n;
}

unsigned
probe_nprobes(const struct probe_set *ps)
{
	return (unsigned) ps->nprobes;
}

const char *
probe_name(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].name;
}

enum probe_kind
probe_kind_of(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].kind;
}

const char *
probe_mechanism(const struct probe_set *ps, unsigned i)
{
	const struct probe *p = &ps->probes[i];

	if (p->used_bp && p->used_uprobe)
		return "breakpoint+uprobe";
	if (p->used_bp)
		return "breakpoint";
	if (p->used_uprobe)
		return "uprobe";
	if (ps->mode == PROBE_UPROBE ||
	    (ps->mode == PROBE_AUTO && !p->bp_only &&
	     probe_auto_uprobe(ps, p)))
		return "uprobe";
	return "breakpoint";
}

const char *
probe_location(const struct probe_set *ps, unsigned i)
{
	return ps->probes[i].state == PROBE_RESOLVED ? ps->probes[i].where : NULL;
}
