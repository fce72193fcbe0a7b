/*
 * What the curve screen shows beside a line's curve: the source around
 * it with each line's samples, and its machine code (disasm.h) with the
 * samples of each instruction (pchist.h).  The code is decoded once per
 * target; the counts are read again at every fill.
 */
#ifndef CT_CODEVIEW_H
# define CT_CODEVIEW_H

# include <stdbool.h>

struct codeview;
struct model_detail;
struct session;

/* Source lines shown on each side of the line. */
# define CODEVIEW_RADIUS 40
/* Instructions decoded per function, and functions per target. */
# define CODEVIEW_MAX_INSNS 2000
# define CODEVIEW_MAX_FUNCS 4

struct codeview *codeview_new(void);
void codeview_free(struct codeview *);
/* Fill d for the target; its strings live in the codeview until the next fill. */
void codeview_fill(struct codeview *, struct session *, unsigned target, bool is_func,
		   struct model_detail *d);

#endif
