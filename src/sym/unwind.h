/*
 * DWARF unwinding of a sample from what the sample itself carries: the
 * user registers and a copy of the top of the user stack (perf's
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER), with libdw's
 * unwinder over the CFI of the process's mapped files.  Nothing is read
 * from the target: the thread has run on since it was sampled.
 *
 * Why: the kernel's callchain follows frame pointers, and code built
 * without them (Debian's libc) breaks that walk.  In a leaf like strcmp,
 * which sets up no frame, the walk takes the caller's frame for the
 * leaf's own: the caller's frame is skipped and the sample lands on the
 * line that called the caller.  collect.c unwinds such samples here, up
 * to the frame where the kernel's walk becomes right again.
 */
#ifndef CT_UNWIND_H
# define CT_UNWIND_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>

struct sym_proc;
struct unwinder;

/*
 * An unwinder over sp's modules (it lives as long as sp, and must be
 * freed before it).  Cheap: libdw is attached at the first unwind.
 */
struct unwinder *unwind_new(struct sym_proc *sp, pid_t pid);
void unwind_free(struct unwinder *);

/*
 * What an unwind starts from, as a sample carries it (collect.c fills it
 * from perf's PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER of a
 * 64-bit task): the frame and stack pointers, the pc, and a copy of the
 * stack from sp on.
 */
struct unwind_regs {
	uint64_t bp, sp, ip;
	const unsigned char *stack;	/* unaligned */
	uint64_t stack_size;
};

/* Is the code at pc the program's (in scope)? */
typedef bool (*unwind_scope_fn)(void *arg, uint64_t pc);

/*
 * Unwind r into pcs[0..n) (pcs[0] its pc, then return addresses) for
 * at most max frames; returns n, or 0 if the unwind found no in-scope
 * frame (or could not start: no stack copy, libdw refused).  Stops
 * where the stack copy or the CFI ends, and where the kernel's
 * frame-pointer walk of the same sample becomes right: at the caller of
 * the in-scope frame whose frame pointer the sample's is.  *joined then
 * says so, and pcs[n - 1] is the first return address of that walk.
 */
unsigned unwind_sample(struct unwinder *, const struct unwind_regs *r,
		       uint64_t *pcs, unsigned max, unwind_scope_fn in_scope,
		       void *scope_arg, bool *joined);

#endif
