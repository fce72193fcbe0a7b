/*
 * Progress points without recompiling the target: count how often its
 * threads execute one instruction, never stopping them per hit.
 *
 * Each probe is one location, given as
 *   FUNCTION            entry of a function: the main executable's
 *                       definition (as the dynamic linker looks there
 *                       first), else the library defining it globally,
 *                       else the one defining it at all;
 *   DSO:FUNCTION        the same, in the modules DSO names (a path, a
 *                       path suffix, a basename, or a basename less its
 *                       version: "libfoo.so" for libfoo.so.1.2);
 *   FILE:LINE           the first instruction of that source line: the
 *                       lowest is_stmt address of the line in its
 *                       function (the hot part, not "foo.cold").  FILE
 *                       is a basename, a path suffix or an absolute
 *                       path; a file the executable was built from is
 *                       looked up there only;
 *   DSO:0xADDR          the ELF address nm and objdump show, in DSO.
 *                       One that is neither a function's entry nor a
 *                       line's start is counted with breakpoints only: a
 *                       uprobe's int3 there could split an instruction.
 * A spec matching several places (a static function defined twice, a
 * line inlined into several functions) is refused with the list of
 * places, each spelled as a DSO:0xADDR spec to pick one: counting one of
 * them silently would give wrong rates.  An IFUNC (strlen, memcpy) is
 * refused too: its symbol is the resolver.  C++: give mangled names.
 *
 * Counting: one counter per probe per thread, opened by the supervisor
 * (pid = tid, counting mode, read with read(2)).  A hardware breakpoint
 * (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X) costs a debug exception per
 * hit; x86 has 4 debug registers per thread, so in PROBE_AUTO the probes
 * that get none (ENOSPC, in the order they were added), or all of them
 * when the kernel offers no breakpoints, are counted with uprobe perf
 * events instead (path + file offset; an int3 and a single-step per hit;
 * needs CAP_PERFMON or root; not tracefs).  Both cost about 10 us a hit
 * in a KVM guest (bench/README): progress points belong where work is
 * coarse.  The fallback is per thread and per probe, so every hit is
 * counted exactly once whichever mechanism counts it.
 *
 * A probe_set follows one address-space layout: the first image of a
 * process, then each image it execs.  Every process counted has its own
 * (probe_set_clone): the supervisor sums their counts per probe.
 *
 * How the supervisor drives it:
 *   probe_set_new, probe_add per --progress/--latency spec (at option
 *     parsing: syntax errors are reported there);
 *   probe_resolve(ps, pid, sp, 0) once the image is there: after attaching
 *     (-p; nonzero is fatal), or at the exec stop of a launched command
 *     with PROBE_RESOLVE_QUIET (only -1 is fatal), since only the
 *     executable and the dynamic linker are mapped then; again with
 *     PROBE_RESOLVE_MORE | PROBE_RESOLVE_STARTED when it reaches its
 *     entry point (nonzero but 1 is fatal: trace.c stops it there);
 *   probe_thread_open for every thread while it is in a ptrace-stop
 *     (attach, a new thread before it first runs), so that no hit
 *     escapes;
 *   probe_resolve(ps, pid, sp, PROBE_RESOLVE_MORE | PROBE_RESOLVE_QUIET) when
 *     executable mappings were added (PERF_RECORD_MMAP2: the libraries at
 *     start-up, dlopen) and probes are still pending: those found are
 *     opened at once on every thread with a live handle (hits between
 *     the mapping and this call are missed);
 *   probe_thread_close at each thread's exit stop, or at its death;
 *   at an exec stop: probe_resolve(ps, pid, sp, 0) again, which retires every
 *     open counter (their counts stay in the totals; the handles only
 *     await probe_thread_close, which the threads that vanished in the
 *     exec get when reported), then probe_thread_open for the exec'ing
 *     thread before it runs;
 *   probe_count at any time (reads the live counters without stopping
 *     anything); probe_resolved, to report points never found;
 *     probe_set_free at the end.
 */
#ifndef CT_PROBE_H
# define CT_PROBE_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>

enum probe_mode {
	PROBE_AUTO,		/* patched in, else breakpoints, then uprobes */
	PROBE_BREAKPOINT,	/* breakpoints only: fail when out of them */
	PROBE_UPROBE,		/* uprobes only */
	PROBE_PATCH,		/* patched in only: fail where it cannot be */
};

enum probe_kind { PROBE_THROUGHPUT, PROBE_BEGIN, PROBE_END };

enum probe_resolve_flags {
	/* Keep the resolved probes and their counters; resolve the rest. */
	PROBE_RESOLVE_MORE = 1,
	/* Say nothing of specs found nowhere (yet): they stay pending. */
	PROBE_RESOLVE_QUIET = 2,
	/*
	 * The program is at its entry point: its start-up libraries are all
	 * mapped.  A spec found nowhere is an error (said), but for one that
	 * names a module not mapped yet (DSO:FUNCTION of a library to be
	 * dlopen'ed), which stays pending.
	 */
	PROBE_RESOLVE_STARTED = 4,
};

struct probe_addr;
struct probe_set;
struct probe_thread;
struct sym_proc;

/*
 * Counting inside the target by code patching (ptrace/patch.h), which
 * this layer does not call by name: the supervisor installs it in each
 * set (probe_set_patcher) with its context.  A point it refuses (why:
 * the code cannot be moved safely, threads run) falls back to
 * breakpoints and uprobes in auto mode; with --probe-mode=patch it fails.
 */
struct probe_patch_ops {
	/* Count at `at` in process pid from inside it: a slot >= 0, or -1 and *why. */
	int (*patch)(void *ctx, pid_t pid, const struct probe_addr *at, const char **why);
	/* Hits at slot in pid so far (the last read, once it cannot be read). */
	uint64_t (*count)(void *ctx, pid_t pid, int slot);
	/* pid has a new image (exec): its slots are gone. */
	void (*forget)(void *ctx, pid_t pid);
};

/* "auto", "breakpoint", "uprobe" or "patch" (--probe-mode); -1 for anything else. */
int probe_mode_from_name(const char *name);

struct probe_set *probe_set_new(enum probe_mode mode);
/*
 * A set of the same specs, resolved in nothing yet: for another
 * process, whose layout is its own (each process counted has a set).
 */
struct probe_set *probe_set_clone(const struct probe_set *ps);
/* Closes whatever is still open and frees every handle not closed. */
void probe_set_free(struct probe_set *ps);
/* Count inside the target where it can be (clones inherit it). */
void probe_set_patcher(struct probe_set *ps, const struct probe_patch_ops *ops, void *ctx);
/* Read the patched-in counters now: the process is about to be gone. */
void probe_patch_sync(struct probe_set *ps);

/*
 * Register a location.  name labels it in reports (NULL: the spec).
 * Returns its index, or -1 after printing what is wrong with the syntax.
 */
int probe_add(struct probe_set *ps, const char *spec, enum probe_kind kind,
	      const char *name);

/*
 * Find every probe not yet resolved in the current image of process pid
 * (without PROBE_RESOLVE_MORE: every probe, forgetting the addresses of
 * the previous image and retiring the open counters: their counts stay
 * in the totals, their handles only await probe_thread_close).  With
 * PROBE_RESOLVE_MORE, each probe resolved now is opened at once on every
 * thread with a live handle.  sp is the process's symbolizer, whose
 * Dwfl the places are looked up in (sym/probe_addr.h: it rereads
 * /proc/PID/maps); NULL: the process cannot be looked into.  Needs no
 * ptrace stop.
 * Returns -1 when this call printed an error: a probe failed (several
 * places, an IFUNC, a line with no code: it stays failed until the next
 * image), or one was found nowhere (unless PROBE_RESOLVE_QUIET), or a
 * counter could not be opened, or the process is gone.  Otherwise 0 when
 * every probe is resolved, 1 when some are not (pending, or failed in an
 * earlier call).
 */
int probe_resolve(struct probe_set *ps, pid_t pid, struct sym_proc *sp, unsigned flags);
bool probe_resolved(const struct probe_set *ps, unsigned i);
/* Is a probe still to be found in this image? */
bool probe_pending(const struct probe_set *ps);

/*
 * Open the counters of every resolved probe on thread tid; *thread is
 * the handle for probe_thread_close.  Returns 0, -ESRCH when the thread
 * is gone (silently), or -errno after printing why (perf_event_paranoid,
 * capabilities, out of debug registers in PROBE_BREAKPOINT mode, ...).
 * On failure nothing stays open.
 */
int probe_thread_open(struct probe_set *ps, pid_t tid,
		      struct probe_thread **thread);
/*
 * True when the thread has a breakpoint counter open at addr (a debug
 * exception there with no cause recorded is ours: src/trace.c).
 */
bool probe_thread_bp_at(const struct probe_thread *thread, uint64_t addr);
/*
 * True when a sample of the thread at ip is where one of its traps put
 * it: the trap's time, not the program's.  A breakpoint's debug exception
 * is a fault, taken before the instruction runs, and a virtual machine's
 * host may spend its time over it while the guest sits in user mode at
 * that address: the next timer sample lands there.  After a uprobe's
 * int3 the thread resumes at the instruction after the probed one, and
 * a sample that came due in the kernel's handling lands there (evloop's
 * serve_line under uprobes, AMD EPYC guest: 331 samples at its entry + 1
 * against 6 without the probe, 49 more one instruction further, not
 * taken).  A sample of the program's own at those addresses is taken
 * too: rare beside a trap per hit.
 */
bool probe_thread_trap_at(const struct probe_thread *thread, uint64_t ip);
/* Add its final counts to the totals, close its counters, free it. */
void probe_thread_close(struct probe_set *ps, struct probe_thread *thread);

/* Hits of probe i so far, over all threads, live and gone, all images. */
uint64_t probe_count(struct probe_set *ps, unsigned i);

/*
 * True when hardware breakpoint events open here but never fire (some
 * virtual machines): tested once, on a function of our own.
 */
bool probe_breakpoints_dead(void);
/* Why, in words, for messages. */
extern const char probe_bp_dead_msg[];

unsigned probe_nprobes(const struct probe_set *ps);
const char *probe_name(const struct probe_set *ps, unsigned i);
enum probe_kind probe_kind_of(const struct probe_set *ps, unsigned i);
/*
 * "patch" (counted inside the target), "breakpoint", "uprobe", or
 * "breakpoint+uprobe" when threads differ (a debugger took a debug
 * register on some); before any counter was opened, what will be tried
 * first.
 */
const char *probe_mechanism(const struct probe_set *ps, unsigned i);
/* Where it resolved, as "module:0xADDR (function, file:line)", or NULL. */
const char *probe_location(const struct probe_set *ps, unsigned i);

#endif
