/*
 * Samples per instruction: for each target (a line or a function) the
 * addresses its samples were taken at, with counts, so that the TUI can
 * show a line's machine code with the samples of each instruction.
 * Filled by collect.c only when a TUI asks for it (session.pcs).
 */
#ifndef CT_PCHIST_H
# define CT_PCHIST_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include <sys/types.h>

struct pchist_entry {
	uint64_t pc;		/* runtime address in process tgid */
	pid_t tgid;
	uint64_t count;
};

struct pchist;

struct pchist *pchist_new(void);
void pchist_free(struct pchist *);
/* One sample of target (is_func, id) at pc of process tgid. */
void pchist_add(struct pchist *, bool is_func, unsigned id, pid_t tgid, uint64_t pc);
/* The target's entries, by pc; malloc'ed (NULL when none). */
struct pchist_entry *pchist_of(const struct pchist *, bool is_func, unsigned id, size_t *n);

#endif
