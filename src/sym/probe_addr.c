#include "config.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/error_prints.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "sym/probe_addr.h"
#include "sym/probe_spec.h"
#include "sym/symbolizer.h"
#include "sym/symname.h"

/* One executable mapping of a file, from /proc/PID/maps. */
struct probe_map {
	uint64_t start, end, offset, ino;
	bool deleted;
	char *path;		/* without " (deleted)" */
};

struct probe_module {
	Dwfl_Module *mod;	/* the symbolizer's, or out of scope the look's own */
	char *path;		/* without " (deleted)" */
	const char *base;	/* into path */
	uint64_t start;
	bool is_main;
};

/* One look at the process (probe_image_open). */
struct probe_image {
	pid_t pid;
	char *exe;
	struct probe_map *maps;
	size_t nmaps;
	struct probe_module *mods;
	size_t nmods;
	Dwfl *own;		/* the modules out of binary scope, for this look */
};

/*
 * The look's own Dwfl finds separate debug files, as the resolver's did
 * before it shared the symbolizer's (whose find_debuginfo refuses them
 * out of binary scope, to keep them out of the supervisor's memory while
 * it samples): a FILE:LINE or a static function of a library out of scope
 * may be known only from its -dbg package's file.  What it loads is freed
 * when the look ends (probe_image_close).
 */
static const Dwfl_Callbacks probe_own_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
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

/* --- the image: maps, modules ------------------------------------------ */

void
probe_addr_clear(struct probe_addr *at)
{
	free(at->upath);
	free(at->where);
	*at = (struct probe_addr) { .addr = 0 };
}

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

/*
 * A module of the symbolizer's out of binary scope, reported again in
 * the look's own Dwfl, with the same name and range (so the same ELF and
 * load bias).  NULL, and the symbolizer's module is used as it is, for a
 * deleted file (dwfl_linux_proc_find_elf opens files by name) or when
 * libdwfl fails.
 */
static Dwfl_Module *
probe_own_module(struct probe_image *img, const char *name, Dwarf_Addr start,
		 Dwarf_Addr end)
{
	if (!name || strstr(name, " (deleted)"))
		return NULL;
	if (!img->own) {
		img->own = dwfl_begin(&probe_own_callbacks);
		if (!img->own) {
			debug_msg("dwfl_begin: %s", dwfl_errmsg(-1));
			return NULL;
		}
		dwfl_report_begin(img->own);
	}
	return dwfl_report_module(img->own, name, start, end);
}

/* One of the symbolizer's modules, its path less " (deleted)". */
static void
probe_collect_module(void *arg, Dwfl_Module *mod, const char *path,
		     bool in_scope)
{
	struct probe_image *img = arg;
	struct probe_module *m;
	Dwfl_Module *own = NULL;
	const char *slash, *name;
	Dwarf_Addr start = 0, end = 0;

	/* Files only: the vDSO has no path for a uprobe, nor debug info. */
	if (path[0] != '/')
		return;
	name = dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	if (!in_scope)
		own = probe_own_module(img, name, start, end);
	img->mods = xrealloc(img->mods, (img->nmods + 1) * sizeof(*img->mods));
	m = &img->mods[img->nmods++];
	m->mod = own ? own : mod;
	m->path = xstrdup(path);
	slash = strrchr(m->path, '/');
	m->base = slash + 1;
	m->start = start;
	m->is_main = img->exe && !strcmp(m->path, img->exe);
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

void
probe_image_close(struct probe_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nmaps; i++)
		free(img->maps[i].path);
	free(img->maps);
	for (size_t i = 0; i < img->nmods; i++)
		free(img->mods[i].path);
	free(img->mods);
	if (img->own)
		dwfl_end(img->own);
	free(img->exe);
	free(img);
}

struct probe_image *
probe_image_open(struct sym_proc *sp, pid_t pid)
{
	struct probe_image *img = xcalloc(1, sizeof(*img));
	int rc;

	img->pid = pid;
	if (!sp)
		errno = ESRCH;
	else
		img->exe = xstrdup(sym_proc_exe(sp));
	if (!img->exe || probe_read_maps(img)) {
		perror_msg("cannot find the progress points in process %d",
			   (int) pid);
		goto fail;
	}
	/*
	 * The symbolizer's modules, reread now: libraries come and go.  Its
	 * module starts, and so its biases, are right even where the target
	 * has a private mapping of a library just below it (symbolizer.c),
	 * but addresses here go through ELF addresses and the file offsets
	 * of /proc/PID/maps anyway.  An errno value is the symbolizer's
	 * maps read failing: ESRCH, it showed no mappings (a leader gone
	 * with pthread_exit), and its modules are those last seen.
	 */
	rc = sym_proc_refresh(sp);
	if (rc < 0 || (rc > 0 && rc != ESRCH)) {
		/* libdwfl's own errors are -1, others errno values. */
		error_msg("cannot read the modules of process %d: %s", (int) pid,
			  rc < 0 ? dwfl_errmsg(-1) : strerror(rc));
		goto fail;
	}
	/* No mappings here: the process is going, and has no modules. */
	if (img->nmaps)
		sym_proc_modules(sp, probe_collect_module, img);
	/* Without a callback, it cannot fail. */
	if (img->own)
		dwfl_report_end(img->own, NULL, NULL);
	if (img->nmods)
		qsort(img->mods, img->nmods, sizeof(*img->mods),
		      probe_module_cmp);
	return img;
fail:
	probe_image_close(img);
	return NULL;
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
	char *desc, *fn, *readable;
	int line = 0;

	func = dwfl_module_addrinfo(m->mod, abs, &off, &sym, NULL, NULL, NULL);
	/* Overloads differ by their parameters: the demangled form says which. */
	readable = symname_demangle(func);
	if (readable)
		func = readable;
	if (func && off)
		fn = xasprintf("%s+0x%" PRIx64, func, (uint64_t) off);
	else
		fn = xstrdup(func ? func : "?");
	free(readable);
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
probe_find_symbol(const struct probe_spec *p, const struct probe_module *m,
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

		if (!name || shndx == SHN_UNDEF || !symname_matches(name, p->func))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_GNU_IFUNC) {
			error_msg("progress point '%s': %s in %s is an IFUNC: "
				  "which implementation runs is chosen when the "
				  "library is loaded; name the implementation "
				  "instead (see nm -D %s)", p->text, p->func,
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
probe_resolve_func(const struct probe_spec *p, const struct probe_image *img,
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
		  "name one of them:", p->text, p->func, pl->n);
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
probe_scan_cu(const struct probe_spec *p, const struct probe_module *m,
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
probe_resolve_line(const struct probe_spec *p, const struct probe_image *img,
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
			  p->text, pl->n);
		probe_list_places(img, pl);
		return PROBE_FAILED;
	}
	/* Perhaps in a library not loaded yet: probe_report_not_found. */
	if (!ls.file_seen)
		return PROBE_PENDING;
	if (ls.below && ls.above)
		error_msg("progress point '%s': no code at line %d of %s; the "
			  "nearest lines with code are %d and %d", p->text,
			  p->line, p->file, ls.below, ls.above);
	else
		error_msg("progress point '%s': no code at line %d of %s; the "
			  "nearest line with code is %d", p->text, p->line,
			  p->file, ls.below ? ls.below : ls.above);
	return PROBE_FAILED;
}

/* --- DSO:0xADDR --------------------------------------------------------- */

/*
 * The call frame entry around abs (a module address): where a function
 * starts and ends when no symbol says it (strip --strip-all keeps
 * .eh_frame: the symbolizer names such functions by it too).
 */
static bool
probe_fde_bounds(Dwfl_Module *mod, uint64_t abs, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr bias, s, e;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *frame;
	bool ok;

	if (!cfi || dwarf_cfi_addrframe(cfi, abs - bias, &frame))
		return false;
	ok = dwarf_frame_info(frame, &s, &e, NULL) >= 0 && e > s;
	free(frame);
	if (ok) {
		*start = s + bias;
		*end = e + bias;
	}
	return ok;
}

/* A function's entry or a line's start: an instruction boundary. */
static bool
probe_known_boundary(const struct probe_module *m, uint64_t vaddr)
{
	uint64_t abs = vaddr + probe_elf_bias(m->mod), start, end;
	GElf_Off off = 1;
	uint64_t row = 0;
	GElf_Sym sym;
	int line;

	if (dwfl_module_addrinfo(m->mod, abs, &off, &sym, NULL, NULL, NULL) &&
	    !off && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
		return true;
	if (probe_getsrc(m->mod, abs, &line, &row) && row == abs)
		return true;
	return probe_fde_bounds(m->mod, abs, &start, &end) && start == abs;
}

static enum probe_state
probe_resolve_addr(const struct probe_spec *p, const struct probe_image *img,
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
		  "path:", p->text, p->dso, pl->n);
	for (size_t i = 0; i < pl->n; i++)
		fprintf(stderr, "  %s\n", pl->v[i].m->path);
	return PROBE_FAILED;
}

/* --- from an ELF address to the target's address and the file offset --- */

/* File offset of vaddr in an executable segment, or -1 (printed). */
static int
probe_file_offset(const struct probe_spec *p, const struct probe_module *m,
		  uint64_t vaddr, uint64_t *offset)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	size_t nph;

	if (!elf || elf_getphdrnum(elf, &nph)) {
		error_msg("progress point '%s': cannot read the ELF headers of "
			  "%s: %s", p->text, m->path, dwfl_errmsg(-1));
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
		  "segment of %s (see readelf -l)", p->text, vaddr, m->path);
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
 * The function around the place, for patching: from its ELF symbol, or
 * from its call frame entry (a stripped program's internal function).
 * An FDE may start a .cold part, entered by a jump with the flags live:
 * never taken for an entry.
 */
static void
probe_func_bounds(const struct probe_place *pl, struct probe_addr *at)
{
	uint64_t abs = pl->vaddr + probe_elf_bias(pl->m->mod), start, end;
	GElf_Off off = 0;
	GElf_Sym sym;

	if (dwfl_module_addrinfo(pl->m->mod, abs, &off, &sym, NULL, NULL, NULL) &&
	    GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size && off < sym.st_size) {
		at->func_addr = at->addr - off;
		at->func_size = sym.st_size;
		at->entry = !off;
	} else if (probe_fde_bounds(pl->m->mod, abs, &start, &end)) {
		at->func_addr = at->addr - (abs - start);
		at->func_size = end - start;
		at->entry = false;
	}
}

static int
probe_place_at(const struct probe_spec *p, const struct probe_image *img,
	       const struct probe_place *pl, enum probe_addr_use use,
	       struct probe_addr *at)
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
			  "not mapped executable in process %d", p->text, offset,
			  pl->m->path, (int) img->pid);
		return -1;
	}
	at->bp_only = p->type == SPEC_ADDR &&
		!probe_known_boundary(pl->m, pl->vaddr);
	if (at->bp_only && use == PROBE_USE_UPROBE) {
		error_msg("progress point '%s': 0x%" PRIx64 " is neither a "
			  "function's entry nor a line's start in %s: a uprobe "
			  "there could split an instruction and corrupt the "
			  "program; use breakpoints (--probe-mode=auto)",
			  p->text, pl->vaddr, pl->m->path);
		return -1;
	}
	if (at->bp_only && use == PROBE_USE_UPROBES_AUTO) {
		error_msg("progress point '%s': 0x%" PRIx64 " is neither a "
			  "function's entry nor a line's start in %s, so only a "
			  "breakpoint can count it, and with more than %d "
			  "progress points the others are counted with uprobes: "
			  "Linux has killed processes counted both ways with a "
			  "stray SIGTRAP; give at most %d points, or this one as "
			  "a function or FILE:LINE", p->text, pl->vaddr,
			  pl->m->path, PROBE_BP_SLOTS, PROBE_BP_SLOTS);
		return -1;
	}
	at->addr = map->start + (offset - map->offset);
	probe_func_bounds(pl, at);
	at->uoffset = offset;
	at->upath = probe_uprobe_path(img->pid, map);
	at->where = probe_describe(img, pl->m, pl->vaddr);
	debug_msg("progress point '%s' at %s: %#" PRIx64 ", uprobe %s+%#" PRIx64,
		  p->text, at->where, at->addr, at->upath, at->uoffset);
	return 0;
}

bool
probe_addr_dso_mapped(const char *dso, const struct probe_image *img)
{
	for (size_t i = 0; i < img->nmods; i++) {
		if (probe_dso_matches(dso, &img->mods[i]))
			return true;
	}
	return false;
}

static void
probe_report_not_found(const struct probe_spec *p, const struct probe_image *img)
{
	const struct probe_module *main_mod;
	char *desc = probe_image_desc(img);
	Dwarf_Addr bias;

	switch (p->type) {
	case SPEC_FUNC:
		if (p->dso && !probe_addr_dso_mapped(p->dso, img))
			error_msg("progress point '%s': process %d (%s) maps no "
				  "module '%s'", p->text, (int) img->pid,
				  img->exe ? img->exe : "?", p->dso);
		else if (p->dso)
			error_msg("progress point '%s': no function '%s' in %s "
				  "in process %d", p->text, p->func, p->dso,
				  (int) img->pid);
		else
			error_msg("progress point '%s': no function '%s' in %s",
				  p->text, p->func, desc);
		break;
	case SPEC_ADDR:
		error_msg("progress point '%s': process %d (%s) maps no module "
			  "'%s'", p->text, (int) img->pid,
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
			  "debug info of %s", p->text, p->file, desc);
		break;
	}
	free(desc);
}

enum probe_state
probe_addr_resolve(const struct probe_spec *p, const struct probe_image *img,
		   enum probe_addr_use use, bool quiet, bool *printed,
		   struct probe_addr *at)
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
	if (st == PROBE_RESOLVED && probe_place_at(p, img, &pl.v[0], use, at))
		st = PROBE_FAILED;
	if (st == PROBE_PENDING && !quiet) {
		probe_report_not_found(p, img);
		*printed = true;
	}
	if (st == PROBE_FAILED)
		*printed = true;
	probe_places_free(&pl);
	return st;
}
