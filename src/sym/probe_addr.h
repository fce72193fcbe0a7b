/*
 * The probe resolver: where a progress point's spec (probe_spec.h) is in
 * one process, as an address in the target, and as a file and offset
 * for a uprobe.  It reads the process's modules through the symbolizer's
 * Dwfl (one per process: sym_proc_modules), reread from /proc/PID/maps at
 * each look, and the executable mappings' offsets and inodes from
 * /proc/PID/maps; addresses go through ELF addresses and those file
 * offsets, never through where libdwfl thinks a module starts.  A module
 * out of the binary scope, for which the symbolizer opens no separate
 * debug file, is looked at in a Dwfl of the look's own that does, freed
 * with the look.  Needs no ptrace stop.  perf/probe.h says when the
 * supervisor resolves.
 */
#ifndef CT_PROBE_ADDR_H
# define CT_PROBE_ADDR_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>

struct probe_spec;
struct sym_proc;

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
# define PROBE_BP_SLOTS	4

enum probe_state {
	PROBE_PENDING,		/* not found (yet) in this image */
	PROBE_RESOLVED,
	PROBE_FAILED,		/* error printed; retried in the next image */
};

/*
 * How the point will be counted, as far as the resolver must know: an
 * address not known to start an instruction is refused to uprobes.
 */
enum probe_addr_use {
	PROBE_USE_ANY,		/* breakpoints first */
	PROBE_USE_UPROBE,	/* --probe-mode=uprobe */
	PROBE_USE_UPROBES_AUTO,	/* auto, more than PROBE_BP_SLOTS points */
};

/* Where a point resolved. */
struct probe_addr {
	uint64_t addr;		/* in the target's address space */
	char *upath;		/* file for the uprobe */
	uint64_t uoffset;	/* and the instruction's offset in it */
	/*
	 * Not known to start an instruction (a raw DSO:0xADDR with no symbol
	 * or line there): a uprobe's int3 could land inside one and corrupt
	 * the target, a breakpoint that never fires does no harm.
	 */
	bool bp_only;
	char *where;		/* "module:0xADDR (function, file:line)" */
	/* Its function, in the target, for patching it in (size 0: unknown). */
	uint64_t func_addr, func_size;
	bool entry;		/* addr is the function's entry */
};
/* Free and zero. */
void probe_addr_clear(struct probe_addr *);

/*
 * One look at process pid, whose symbolizer is sp (NULL: the process
 * could not be symbolized): its modules and executable mappings, as of
 * now.  NULL after printing why.
 */
struct probe_image *probe_image_open(struct sym_proc *sp, pid_t pid);
void probe_image_close(struct probe_image *);
/* Does img map a module that dso (a spec's DSO part) names? */
bool probe_addr_dso_mapped(const char *dso, const struct probe_image *img);

/*
 * Find spec in img: PROBE_RESOLVED with *at filled (*at's bp_only may be
 * set on failure too), PROBE_PENDING (found nowhere: said, unless quiet)
 * or PROBE_FAILED (said).  *printed is set when something was said.
 */
enum probe_state probe_addr_resolve(const struct probe_spec *spec,
				    const struct probe_image *img,
				    enum probe_addr_use use, bool quiet,
				    bool *printed, struct probe_addr *at);

#endif
