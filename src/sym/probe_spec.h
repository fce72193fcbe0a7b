/*
 * A progress point's location as the command line gives it (--progress,
 * --latency): FUNCTION, DSO:FUNCTION, FILE:LINE or DSO:0xADDR; what each
 * means is perf/probe.h's.  Parsing only: the places are found by
 * probe_addr.h, the counters opened by perf/probe.h.
 */
#ifndef CT_PROBE_SPEC_H
# define CT_PROBE_SPEC_H

# include <stdint.h>

enum probe_spec_type { SPEC_FUNC, SPEC_LINE, SPEC_ADDR };

struct probe_spec {
	char *text;		/* as given, for messages */
	enum probe_spec_type type;
	char *dso;		/* SPEC_ADDR, and SPEC_FUNC when given */
	char *func;		/* SPEC_FUNC */
	char *file;		/* SPEC_LINE */
	int line;		/* SPEC_LINE */
	uint64_t vaddr;		/* SPEC_ADDR */
};

/*
 * Fill sp from text; -1 after printing what is wrong with its syntax (sp
 * then holds nothing to free).
 */
int probe_spec_parse(struct probe_spec *sp, const char *text);
void probe_spec_free(struct probe_spec *sp);

#endif
