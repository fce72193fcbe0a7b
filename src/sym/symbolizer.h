/*
 * Address to (module, function, file:line) for one traced process, with
 * libdw's dwfl over /proc/PID/maps.  Needs no ptrace stop: it reads the
 * maps and the mapped files (and the vDSO image from /proc/PID/mem).
 *
 * Results are cached per address; the cache and the module list are
 * refreshed when the mappings change (sym_proc_maps_changed, called on
 * PERF_RECORD_MMAP2) or when an address falls outside every known module
 * (a library dlopen'ed since the last refresh), rate-limited.
 */
#ifndef CT_SYMBOLIZER_H
# define CT_SYMBOLIZER_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include <sys/types.h>

struct lines_table;
struct scope;

struct sym_loc {
	struct ct_line *line;	/* NULL when the module has no line info */
	struct ct_func *func;	/* never NULL; "[unknown]" outside every module */
	bool in_scope;		/* binary scope matches, and source scope when
				   there is a line */
};

struct sym_stats {
	uint64_t lookups;
	uint64_t cache_hits;
	uint64_t refreshes;	/* re-reads of /proc/PID/maps */
};

struct sym_proc;

/*
 * Start symbolizing process pid.  The main executable is what
 * /proc/PID/exe names at this moment: call again after an exec.
 * Returns NULL (with a message) if the process has gone.
 */
struct sym_proc *sym_proc_new(pid_t pid, struct lines_table *, const struct scope *);
void sym_proc_free(struct sym_proc *);

/* The mappings changed: refresh before the next lookup. */
void sym_proc_maps_changed(struct sym_proc *);

/*
 * Resolve pc.  The result stays valid until the next sym_lookup on this
 * sym_proc.  Callers walking a callchain pass return addresses minus one,
 * so that they land inside the call instruction.
 */
const struct sym_loc *sym_lookup(struct sym_proc *, uint64_t pc);

const struct sym_stats *sym_proc_stats(const struct sym_proc *);

/* Its libdw session, for the unwinder (unwind.c). */
struct Dwfl;
struct Dwfl *sym_proc_dwfl(struct sym_proc *);

/*
 * For the probe resolver (probe_addr.c), which shares the Dwfl: one per
 * process.  sym_proc_refresh rereads /proc/PID/maps now: 0, -1 for a
 * libdwfl error, or an errno value when the maps cannot be read (ESRCH:
 * they are empty), the modules then staying as they were.
 * sym_proc_modules calls fn for each module with its path less
 * " (deleted)" (the vDSO's is "[vdso]") and whether it is in the binary
 * scope; each is classified first, so that its debug info in this Dwfl
 * follows the symbolizer's rule (no separate debug file out of binary
 * scope), whoever asks for it first.  The resolver looks at a module out
 * of scope in a Dwfl of its own instead, for the length of one look.
 */
const char *sym_proc_exe(const struct sym_proc *);
int sym_proc_refresh(struct sym_proc *);
struct Dwfl_Module;
typedef void (*sym_module_fn)(void *arg, struct Dwfl_Module *, const char *path,
			      bool in_scope);
void sym_proc_modules(struct sym_proc *, sym_module_fn, void *arg);

/* The addresses of the module holding pc (for an unwinder's caches). */
bool sym_module_range(struct sym_proc *, uint64_t pc, uint64_t *lo, uint64_t *hi);

/*
 * The machine code of the function containing pc, read from its ELF
 * file: runtime address of its first byte in *start, a malloc'ed copy of
 * at most SYM_CODE_MAX bytes in *code.  False when pc is in no module or
 * the module's file has no such code.
 */
# define SYM_CODE_MAX 65536
bool sym_func_code(struct sym_proc *, uint64_t pc, uint64_t *start, size_t *len,
		   unsigned char **code);

/*
 * A line table's file name as one absolute path (comp_dir prepended to a
 * relative one, "." and ".." folded); malloc'ed.  Also used by probe_addr.c
 * to match FILE:LINE specs.
 */
char *sym_source_path(const char *comp_dir, const char *file);

#endif
