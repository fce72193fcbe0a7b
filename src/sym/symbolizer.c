#include "config.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "sym/lines.h"
#include "sym/scope.h"
#include "sym/symbolizer.h"

enum {
	SYM_CACHE_BITS = 13,
	SYM_CACHE_SIZE = 1 << SYM_CACHE_BITS,
};

/* A miss outside every module rereads the maps at most this often. */
static const uint64_t sym_refresh_interval_ns = 50 * 1000 * 1000;

static const char sym_unknown[] = "[unknown]";

static int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name,
			      const char *debuglink_file, GElf_Word debuglink_crc,
			      char **debuginfo_file_name);

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = sym_find_debuginfo,
};

struct sym_cache_entry {
	uint64_t pc;
	unsigned gen;		/* valid when equal to sym_proc.gen */
	struct sym_loc loc;
};

/* Where a CU's code is, by DWARF address. */
struct sym_cu_range {
	Dwarf_Addr low, high;
	Dwarf_Off cu;		/* offset of the CU DIE */
};

/* A symbol that can name code, at its runtime address. */
struct sym_fsym {
	uint64_t addr, size;
	uint64_t sec_end;	/* sizeless: the end of its section */
	const char *name;	/* libdw's string, valid with the module */
	unsigned rank;		/* binding: 0 global, 1 weak, 2 local */
};

/* What we derive once per dwfl module; hangs off its userdata slot. */
struct sym_module {
	char *path;		/* mapped file, without " (deleted)" */
	const char *base;	/* basename, into path */
	bool is_main;
	bool in_scope;		/* binary scope only */
	bool debuginfo_checked;
	bool cu_ranges_built;
	struct sym_cu_range *cu_ranges;	/* sorted by low */
	size_t ncu_ranges;
	bool syms_built;
	struct sym_fsym *syms;	/* sorted by addr, best binding first */
	size_t nsyms;
	bool fdes_built;
	uint64_t *fdes;		/* where call frame entries start (ELF
				   addresses, sorted): .eh_frame_hdr's */
	size_t nfdes;
};

struct sym_proc {
	pid_t pid;
	Dwfl *dwfl;
	struct lines_table *lines;
	const struct scope *scope;
	char *exe;		/* /proc/PID/exe target, without " (deleted)" */
	char *exe_real;		/* its realpath, NULL if it has none */
	struct ct_func *unknown;
	bool maps_changed;
	uint64_t last_refresh_ns;
	unsigned gen;
	struct sym_cache_entry *cache;
	struct sym_loc result;
	struct sym_stats stats;
};

/* libdwfl returns -1 for its own errors and an errno value for others. */
static const char *
sym_strerror(int rc)
{
	return rc < 0 ? dwfl_errmsg(-1) : strerror(rc);
}

static char *
xreadlink(const char *path)
{
	for (size_t size = 256;; size *= 2) {
		char *buf = xmalloc(size);
		ssize_t n = readlink(path, buf, size);

		if (n < 0) {
			int err = errno;

			free(buf);
			errno = err;
			return NULL;
		}
		if ((size_t) n < size) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
	}
}

static struct sym_module *
sym_module_new(const struct sym_proc *sp, const char *name)
{
	struct sym_module *m = xcalloc(1, sizeof(*m));
	const char *slash;

	if (!name)
		name = sym_unknown;
	/* "[vdso: PID]" is for dwfl_linux_proc_find_elf, not for reports. */
	if (!strncmp(name, "[vdso: ", sizeof("[vdso: ") - 1))
		name = "[vdso]";
	m->path = strip_deleted(name, NULL);
	slash = strrchr(m->path, '/');
	m->base = slash ? slash + 1 : m->path;

	if (sp->exe && !strcmp(m->path, sp->exe)) {
		m->is_main = true;
	} else if (sp->exe_real && m->path[0] == '/') {
		/* Paths differ when /proc/PID/exe was reached via a symlink. */
		char *real = realpath(m->path, NULL);

		m->is_main = real && !strcmp(real, sp->exe_real);
		free(real);
	}
	m->in_scope = scope_binary_match(sp->scope, m->path, m->is_main);
	return m;
}

static void
sym_module_free(struct sym_module *m)
{
	if (!m)
		return;
	free(m->cu_ranges);
	free(m->syms);
	free(m->fdes);
	free(m->path);
	free(m);
}

static struct sym_module *
sym_module_get(const struct sym_proc *sp, Dwfl_Module *mod)
{
	void **userdata;
	const char *name = dwfl_module_info(mod, &userdata, NULL, NULL, NULL,
					    NULL, NULL, NULL);

	if (!*userdata)
		*userdata = sym_module_new(sp, name);
	return *userdata;
}

/*
 * A separate debug file (libc6-dbg's for libc, say) only for modules in
 * binary scope.  Out of scope, a line is never wanted, but libdwfl's
 * unwinder, when .eh_frame cannot step a frame, falls back to .debug_frame
 * and loads the module's whole DWARF for it: with libc6-dbg, libc's
 * decompressed added 13 MB to the supervisor's peak in some runs, and
 * ld.so's (a launch's first samples are in it) 1.4 MB in every one; the
 * symbol tables of both 1 MB.  Out-of-scope function names come from the
 * module's own .symtab or .dynsym then, as on a machine without debug
 * packages.  A module not yet classified (no userdata) is looked up as
 * before.  The probe resolver (probe_addr.c) needs such a file for a
 * FILE:LINE or a static function of a library out of scope: it reports
 * those modules again in a Dwfl of its own, freed after each look.
 */
static int
sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
		   Dwarf_Addr base, const char *file_name,
		   const char *debuglink_file, GElf_Word debuglink_crc,
		   char **debuginfo_file_name)
{
	const struct sym_module *m = *userdata;

	if (m && !m->in_scope)
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc,
					    debuginfo_file_name);
}

static int
sym_module_release(Dwfl_Module *mod, void **userdata, const char *name,
		   Dwarf_Addr base, void *arg)
{
	sym_module_free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

/*
 * Despite its prototype, dwfl_report_end passes the removed callback the
 * address of the userdata slot, as dwfl_getmodules does.
 */
static int
sym_module_removed(Dwfl_Module *mod, void *userdata, const char *name,
		   Dwarf_Addr base, void *arg)
{
	debug_msg("module %s at %#" PRIx64 " unmapped", name, (uint64_t) base);
	return sym_module_release(mod, userdata, name, base, arg);
}

/* A run of mappings of one file, to be reported as one module. */
struct sym_maps_run {
	const char *name;
	uint64_t start, end, ino;
	unsigned dmajor, dminor;
};

static int
sym_report_run(Dwfl *dwfl, struct sym_maps_run *run)
{
	Dwfl_Module *mod;

	if (!run->name)
		return 0;
	mod = dwfl_report_module(dwfl, run->name, run->start, run->end);
	run->name = NULL;
	return mod ? 0 : -1;
}

/*
 * Why not dwfl_linux_proc_report: it makes one module of consecutive
 * mappings of a file, so a private mmap of a library placed just below
 * the library (libdw reading it, when a process symbolizes itself;
 * libbacktrace and the like elsewhere) moves the module's start, and
 * with it the load bias.  Here a mapping of the file's start (offset 0)
 * always starts a new module.  Names, including the vDSO's, are as
 * dwfl_linux_proc_find_elf expects them.
 */
static int
sym_report_maps(struct sym_proc *sp, char *maps)
{
	struct sym_maps_run run = { .name = NULL };
	struct procfs_map m;
	int rc = 0;

	while (procfs_maps_next(&maps, &m)) {
		if (!strcmp(m.name, "[vdso]")) {
			char vdso[sizeof("[vdso: ]") + sizeof(int) * 3];

			if (sym_report_run(sp->dwfl, &run))
				rc = -1;
			snprintf(vdso, sizeof(vdso), "[vdso: %d]", (int) sp->pid);
			if (!dwfl_report_module(sp->dwfl, vdso, m.start, m.end))
				rc = -1;
			continue;
		}
		if (m.name[0] != '/' || (!m.ino && !m.dmajor && !m.dminor))
			continue;	/* not a file mapping */

		if (run.name && m.offset && m.ino == run.ino &&
		    m.dmajor == run.dmajor && m.dminor == run.dminor &&
		    !strcmp(m.name, run.name)) {
			run.end = m.end;
			continue;
		}
		if (sym_report_run(sp->dwfl, &run))
			rc = -1;
		run = (struct sym_maps_run) {
			.name = m.name,
			.start = m.start,
			.end = m.end,
			.ino = m.ino,
			.dmajor = m.dmajor,
			.dminor = m.dminor,
		};
	}
	if (sym_report_run(sp->dwfl, &run))
		rc = -1;
	return rc;
}

/*
 * Returns 0, -1 for a libdwfl error, or an errno value: then the module
 * list is as it was.
 */
static int
sym_report(struct sym_proc *sp)
{
	char *maps = procfs_maps(sp->pid);
	int rc;

	if (!maps)
		return errno;
	/*
	 * An exited or zombie process has no maps: rereporting would drop
	 * every module while its last samples still await lookup.
	 */
	if (!maps[0]) {
		free(maps);
		return ESRCH;
	}
	dwfl_report_begin(sp->dwfl);
	rc = sym_report_maps(sp, maps);
	/* Ends the report even on failure, or dwfl stays unusable. */
	if (dwfl_report_end(sp->dwfl, sym_module_removed, NULL) != 0 && !rc)
		rc = -1;
	free(maps);
	return rc;
}

static void
sym_cache_flush(struct sym_proc *sp)
{
	if (++sp->gen == 0) {
		memset(sp->cache, 0, SYM_CACHE_SIZE * sizeof(*sp->cache));
		sp->gen = 1;
	}
}

/* As sym_report. */
static int
sym_refresh(struct sym_proc *sp)
{
	int rc;

	sp->maps_changed = false;
	sp->last_refresh_ns = clock_now_ns();
	rc = sym_report(sp);
	if (rc)
		debug_msg("rereading the mappings of process %d: %s",
			  (int) sp->pid, sym_strerror(rc));
	if (rc > 0)
		return rc;
	sp->stats.refreshes++;
	sym_cache_flush(sp);
	return rc;
}

struct sym_proc *
sym_proc_new(pid_t pid, struct lines_table *lines, const struct scope *scope)
{
	char exe_link[sizeof("/proc//exe") + sizeof(int) * 3];
	struct sym_proc *sp;
	char *exe;
	int rc;

	snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int) pid);
	exe = xreadlink(exe_link);
	if (!exe) {
		perror_msg("cannot symbolize process %d: %s", (int) pid, exe_link);
		return NULL;
	}

	sp = xcalloc(1, sizeof(*sp));
	sp->pid = pid;
	sp->lines = lines;
	sp->scope = scope;
	sp->exe = strip_deleted(exe, NULL);
	sp->exe_real = realpath(sp->exe, NULL);
	free(exe);
	sp->gen = 1;
	sp->cache = xcalloc(SYM_CACHE_SIZE, sizeof(*sp->cache));

	sp->dwfl = dwfl_begin(&sym_callbacks);
	if (!sp->dwfl) {
		error_msg("dwfl_begin: %s", dwfl_errmsg(-1));
		sym_proc_free(sp);
		return NULL;
	}
	rc = sym_report(sp);
	if (rc) {
		error_msg("cannot read the mappings of process %d: %s",
			  (int) pid, sym_strerror(rc));
		sym_proc_free(sp);
		return NULL;
	}
	sp->last_refresh_ns = clock_now_ns();
	return sp;
}

void
sym_proc_free(struct sym_proc *sp)
{
	if (!sp)
		return;
	if (sp->dwfl) {
		dwfl_getmodules(sp->dwfl, sym_module_release, NULL, 0);
		dwfl_end(sp->dwfl);
	}
	free(sp->cache);
	free(sp->exe);
	free(sp->exe_real);
	free(sp);
}

void
sym_proc_maps_changed(struct sym_proc *sp)
{
	sp->maps_changed = true;
}

struct Dwfl *
sym_proc_dwfl(struct sym_proc *sp)
{
	return sp->dwfl;
}

const char *
sym_proc_exe(const struct sym_proc *sp)
{
	return sp->exe;
}

int
sym_proc_refresh(struct sym_proc *sp)
{
	return sym_refresh(sp);
}

struct sym_modules_walk {
	struct sym_proc *sp;
	sym_module_fn fn;
	void *arg;
};

static int
sym_module_visit(Dwfl_Module *mod, void **userdata, const char *name,
		 Dwarf_Addr base, void *arg)
{
	struct sym_modules_walk *w = arg;
	const struct sym_module *m = sym_module_get(w->sp, mod);

	w->fn(w->arg, mod, m->path, m->in_scope);
	return DWARF_CB_OK;
}

void
sym_proc_modules(struct sym_proc *sp, sym_module_fn fn, void *arg)
{
	struct sym_modules_walk w = { sp, fn, arg };

	dwfl_getmodules(sp->dwfl, sym_module_visit, &w, 0);
}

const struct sym_stats *
sym_proc_stats(const struct sym_proc *sp)
{
	return &sp->stats;
}

/*
 * Once per path and per causaltop: a library dlopen'ed again, or the
 * same program in another process (-p A,B, a server's workers), is the
 * same news.
 */
static char **sym_warned;
static size_t sym_nwarned, sym_warned_alloc;

static void
sym_warn_no_debuginfo(const char *path)
{
	for (size_t i = 0; i < sym_nwarned; i++) {
		if (!strcmp(sym_warned[i], path))
			return;
	}
	if (sym_nwarned == sym_warned_alloc)
		sym_warned = xgrowarray(sym_warned, &sym_warned_alloc, sym_nwarned + 1,
					sizeof(*sym_warned));
	sym_warned[sym_nwarned++] = xstrdup(path);
	error_msg("warning: %s has no debug info (build with -g): samples in it"
		  " are attributed to functions, not lines", path);
}

static int
sym_fsym_cmp(const void *a, const void *b)
{
	const struct sym_fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int) x->rank - (int) y->rank;
}

/*
 * The module's symbols, sorted once: dwfl_module_addrinfo scans the
 * whole symbol table at each call, and libc's (from libc6-dbg) has
 * thousands; out-of-scope leaves and the frames unwind.c adds made that
 * 20% of a CPU in causaltop on a program formatting doubles (perf).
 */
static void
sym_build_syms(struct sym_module *m, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);

	m->syms_built = true;
	if (n <= 1)
		return;
	m->syms = xcalloc((size_t) n, sizeof(*m->syms));
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
							   &elf, &bias);
		unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		/* What libdw's own search skips. */
		if (!name || !name[0] || shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		m->syms[m->nsyms] = (struct sym_fsym) {
			.addr = addr, .size = sym.st_size, .name = name,
			.rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2,
		};
		/* As libdw: a sizeless symbol names no code past its section. */
		if (!sym.st_size) {
			GElf_Shdr shdr;
			Elf_Scn *scn = elf && shndx < SHN_LORESERVE ? elf_getscn(elf, shndx) : NULL;

			if (!scn || !gelf_getshdr(scn, &shdr))
				continue;
			m->syms[m->nsyms].sec_end = shdr.sh_addr + shdr.sh_size + bias;
		}
		m->nsyms++;
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), sym_fsym_cmp);
}

/*
 * The symbol naming pc: the nearest at or below it that contains it (a
 * few back, for a label inside a function), else the nearest sizeless
 * one; at one address the global, then weak, then local binding.
 */
static const char *
sym_fsym_find(const struct sym_module *m, uint64_t pc)
{
	const struct sym_fsym *hit = NULL, *sizeless = NULL;
	size_t lo = 0, hi = m->nsyms;
	uint64_t top;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	top = m->syms[lo - 1].addr;
	for (size_t k = lo; k-- > 0 && lo - k <= 16;) {
		const struct sym_fsym *f = &m->syms[k];

		if (hit && f->addr != hit->addr)
			break;
		/* Backwards through one address: ends on the best binding. */
		if (f->size && pc - f->addr < f->size)
			hit = f;
		else if (!f->size && f->addr == top && pc < f->sec_end)
			sizeless = f;
	}
	return hit ? hit->name : sizeless ? sizeless->name : NULL;
}

/* A value of .eh_frame_hdr's encoding enc at p (n bytes left); its size, 0: unknown. */
static size_t
sym_eh_read(const unsigned char *p, size_t n, unsigned enc, int64_t *v)
{
	switch (enc & 0x0f) {
	case 0x03:	/* udata4 */
	case 0x0b:	/* sdata4 */
		if (n < 4)
			return 0;
		{
			uint32_t u;

			memcpy(&u, p, 4);
			*v = (enc & 0x0f) == 0x0b ? (int64_t) (int32_t) u : (int64_t) u;
		}
		return 4;
	case 0x04:	/* udata8 */
	case 0x0c:	/* sdata8 */
		if (n < 8)
			return 0;
		memcpy(v, p, 8);
		return 8;
	default:
		return 0;
	}
}

/*
 * The starts of a module's call frame entries, from the binary search
 * table of .eh_frame_hdr (PT_GNU_EH_FRAME), which even a stripped binary
 * keeps: the table the unwinder itself searches.  A table in an encoding
 * other than the linkers' (datarel, 4 or 8 bytes) is not read.
 */
static void
sym_build_fdes(struct sym_module *m, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t nph = 0;

	m->fdes_built = true;
	if (!elf || elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		const unsigned char *p;
		size_t pos, len, step;
		int64_t v, count;

		if (!gelf_getphdr(elf, (int) i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size < 4)
			return;
		p = d->d_buf;
		len = d->d_size;
		/* version 1; the table datarel (0x30), its count absolute. */
		if (p[0] != 1 || (p[3] & 0x70) != 0x30 || (p[2] & 0x70) || p[1] == 0xff)
			return;
		pos = 4;
		if (!(step = sym_eh_read(p + pos, len - pos, p[1], &v)))
			return;
		pos += step;
		if (!(step = sym_eh_read(p + pos, len - pos, p[2], &count)))
			return;
		pos += step;
		step = (p[3] & 0x0f) == 0x0b || (p[3] & 0x0f) == 0x03 ? 4 : 8;
		if (count <= 0 || (uint64_t) count > (len - pos) / (2 * step))
			return;
		m->fdes = xmalloc((size_t) count * sizeof(*m->fdes));
		for (int64_t k = 0; k < count; k++, pos += 2 * step) {
			sym_eh_read(p + pos, len - pos, p[3], &v);
			m->fdes[m->nfdes++] = ph.p_vaddr + (uint64_t) v;
		}
		return;
	}
}

/*
 * Where the call frame entry holding pc starts: a function's, or a part
 * split from it (foo.cold has its own); pc itself when the module has no
 * table, or pc lies before its first entry.
 */
static uint64_t
sym_fde_start(struct sym_module *m, Dwfl_Module *mod, uint64_t pc, Dwarf_Addr bias)
{
	uint64_t elf_pc = pc - bias;
	size_t lo = 0, hi;

	if (!m->fdes_built)
		sym_build_fdes(m, mod);
	hi = m->nfdes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->fdes[mid] <= elf_pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? m->fdes[lo - 1] + bias : pc;
}

static struct ct_func *
sym_func(struct sym_proc *sp, Dwfl_Module *mod, struct sym_module *m,
	 uint64_t pc)
{
	Dwarf_Addr bias = 0;
	struct ct_func *f;
	const char *name;
	char *anon;

	if (!m->syms_built)
		sym_build_syms(m, mod);
	name = sym_fsym_find(m, pc);
	if (name)
		return lines_func(sp->lines, m->path, name);

	/*
	 * No symbol (strip --strip-all, a static function of a distribution's
	 * binary): name the ELF address, which nm and objdump show, of the
	 * start of the call frame entry holding pc, so that a function's
	 * samples stay one function; with no such entry, pc's own address;
	 * with no ELF either (a deleted file), the offset in the module.
	 */
	if (!dwfl_module_getelf(mod, &bias))
		dwfl_module_info(mod, NULL, &bias, NULL, NULL, NULL, NULL, NULL);
	anon = xasprintf("%s+0x%" PRIx64, m->base, sym_fde_start(m, mod, pc, bias) - bias);
	f = lines_func(sp->lines, m->path, anon);
	free(anon);
	return f;
}

/* Folds "." and ".." and repeated slashes of an absolute path, in place. */
static void
path_fold(char *path)
{
	char *out = path;
	const char *in = path;

	while (*in) {
		const char *end;
		size_t len;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchrnul(in, '/');
		len = end - in;
		if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else if (len != 1 || in[0] != '.') {
			*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in = end;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/*
 * DWARF 5 (and VPATH builds) name files relative to the compilation
 * directory: one absolute spelling keeps a header included by several
 * CUs one ct_line, and lets source patterns name full paths.
 */
char *
sym_source_path(const char *comp_dir, const char *file)
{
	char *path;

	if (file[0] != '/' && comp_dir && comp_dir[0] == '/')
		path = xasprintf("%s/%s", comp_dir, file);
	else
		path = xstrdup(file);
	if (path[0] == '/')
		path_fold(path);
	return path;
}

static int
cu_range_cmp(const void *a, const void *b)
{
	const struct sym_cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static void
sym_build_cu_ranges(struct sym_module *m, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t unit_type;
	size_t alloc = 0;

	m->cu_ranges_built = true;
	while (!dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie,
				NULL)) {
		Dwarf_Addr base, low, high;
		ptrdiff_t it = 0;

		while ((it = dwarf_ranges(&cudie, it, &base, &low, &high)) > 0) {
			if (low >= high)
				continue;
			if (m->ncu_ranges == alloc)
				m->cu_ranges = xgrowarray(m->cu_ranges, &alloc,
							  m->ncu_ranges + 1,
							  sizeof(*m->cu_ranges));
			m->cu_ranges[m->ncu_ranges++] = (struct sym_cu_range) {
				.low = low,
				.high = high,
				.cu = dwarf_dieoffset(&cudie),
			};
		}
	}
	if (m->ncu_ranges)
		qsort(m->cu_ranges, m->ncu_ranges, sizeof(*m->cu_ranges),
		      cu_range_cmp);
}

/*
 * dwfl_module_getsrc finds the CU through .debug_aranges, which clang
 * does not emit (libdw builds them from the CUs only since 0.191): look
 * the CU up by its own ranges instead.
 */
static Dwarf_Line *
sym_getsrc_by_cu(struct sym_module *m, Dwfl_Module *mod, uint64_t pc,
		 const char **comp_dir)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	Dwarf_Addr addr = pc - bias;
	Dwarf_Attribute attr;
	Dwarf_Die cudie;
	size_t lo = 0, hi;

	if (!dw)
		return NULL;
	if (!m->cu_ranges_built)
		sym_build_cu_ranges(m, dw);
	/* The last range starting at or below addr. */
	hi = m->ncu_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cu_ranges[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->cu_ranges[lo - 1].high ||
	    !dwarf_offdie(dw, m->cu_ranges[lo - 1].cu, &cudie))
		return NULL;
	*comp_dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
	return dwarf_getsrc_die(&cudie, addr);
}

static void
sym_resolve(struct sym_proc *sp, Dwfl_Module *mod, uint64_t pc,
	    struct sym_loc *loc)
{
	struct sym_module *m = sym_module_get(sp, mod);
	const char *file = NULL, *comp_dir = NULL;
	Dwarf_Line *dwl;
	Dwfl_Line *dl;
	int lineno = 0;

	/* Files only: nobody can rebuild the vDSO with -g. */
	if (m->in_scope && !m->debuginfo_checked && m->path[0] == '/') {
		Dwarf_Addr bias;

		m->debuginfo_checked = true;
		if (!dwfl_module_getdwarf(mod, &bias))
			sym_warn_no_debuginfo(m->path);
	}

	loc->func = sym_func(sp, mod, m, pc);
	loc->line = NULL;
	/*
	 * Out of scope, a line is never used (samples, hits and views all
	 * want in-scope ones): no DWARF is loaded for it.  libc's, from
	 * libc6-dbg, took the supervisor 100 ms at the first samples, on
	 * the target's CPU.
	 */
	if (!m->in_scope) {
		loc->in_scope = false;
		return;
	}
	dl = dwfl_module_getsrc(mod, pc);
	if (dl) {
		file = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
		comp_dir = dwfl_line_comp_dir(dl);
	} else if ((dwl = sym_getsrc_by_cu(m, mod, pc, &comp_dir))) {
		file = dwarf_linesrc(dwl, NULL, NULL);
		if (dwarf_lineno(dwl, &lineno))
			lineno = 0;
	}
	/* Line 0 is DWARF for "no source line". */
	if (file && lineno > 0) {
		char *path = sym_source_path(comp_dir, file);

		loc->line = lines_line(sp->lines, path, lineno, loc->func);
		free(path);
	}

	loc->in_scope = m->in_scope &&
		(!loc->line || scope_source_match(sp->scope, loc->line->file));
}

/*
 * dwfl_addrmodule also answers for addresses past the end of the highest
 * module (its segment table has no upper bound there): check the range.
 */
static Dwfl_Module *
sym_addrmodule(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr start, end;

	if (!mod || !dwfl_module_info(mod, NULL, &start, &end, NULL, NULL,
				      NULL, NULL))
		return NULL;
	return pc >= start && pc < end ? mod : NULL;
}

static size_t
sym_cache_slot(uint64_t pc)
{
	/* Fibonacci hashing: neighbouring pcs spread over the table. */
	return (pc * 0x9e3779b97f4a7c15ULL) >> (64 - SYM_CACHE_BITS);
}

const struct sym_loc *
sym_lookup(struct sym_proc *sp, uint64_t pc)
{
	struct sym_cache_entry *e = &sp->cache[sym_cache_slot(pc)];
	Dwfl_Module *mod;

	sp->stats.lookups++;
	if (sp->maps_changed)
		sym_refresh(sp);

	if (e->gen == sp->gen && e->pc == pc) {
		sp->stats.cache_hits++;
		sp->result = e->loc;
		return &sp->result;
	}

	mod = sym_addrmodule(sp->dwfl, pc);
	if (!mod && clock_now_ns() - sp->last_refresh_ns >= sym_refresh_interval_ns) {
		sym_refresh(sp);
		mod = sym_addrmodule(sp->dwfl, pc);
	}

	if (!mod) {
		/* Not cached: a later refresh may find a module here. */
		if (!sp->unknown)
			sp->unknown = lines_func(sp->lines, sym_unknown,
						 sym_unknown);
		sp->result.func = sp->unknown;
		sp->result.line = NULL;
		sp->result.in_scope = false;
		return &sp->result;
	}

	sym_resolve(sp, mod, pc, &sp->result);
	e->pc = pc;
	e->gen = sp->gen;
	e->loc = sp->result;
	return &sp->result;
}

/*
 * The code of the function around pc, from the module's ELF file (the
 * target need not be stopped, nor even alive while the module is known).
 * Falls back to 256 bytes from pc when the symbol has no size.
 */
bool
sym_module_range(struct sym_proc *sp, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
	Dwfl_Module *mod = sp ? sym_addrmodule(sp->dwfl, pc) : NULL;
	Dwarf_Addr start, end;

	if (!mod || !dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL))
		return false;
	*lo = start;
	*hi = end;
	return true;
}

bool
sym_func_code(struct sym_proc *sp, uint64_t pc, uint64_t *start, size_t *len,
	      unsigned char **code)
{
	Dwfl_Module *mod = sym_addrmodule(sp->dwfl, pc);
	Dwarf_Addr addr, bias;
	GElf_Off off = 0;
	GElf_Sym sym;
	Elf_Scn *scn;
	Elf_Data *data;
	size_t size;

	*code = NULL;
	if (!mod)
		return false;
	if (dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL) && sym.st_size) {
		*start = pc - off;
		size = sym.st_size;
	} else {
		*start = pc;
		size = 256;
	}
	if (size > SYM_CODE_MAX)
		size = SYM_CODE_MAX;
	addr = *start;
	scn = dwfl_module_address_section(mod, &addr, &bias);
	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf || addr >= data->d_size)
		return false;
	if (size > data->d_size - addr)
		size = data->d_size - addr;
	*code = xmalloc(size);
	memcpy(*code, (const unsigned char *) data->d_buf + addr, size);
	*len = size;
	return true;
}
