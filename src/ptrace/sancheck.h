/*
 * What sanitizer runtime a command carries, read from its ELF file before
 * launch: AddressSanitizer's shared runtime refuses to start unless it is
 * the first library loaded (so the Coz shim must come after it), and
 * LeakSanitizer cannot run under a tracer (it ptraces the program itself).
 */
#ifndef CT_SANCHECK_H
# define CT_SANCHECK_H

# include <stdbool.h>

struct san_runtime {
	char *asan_needed;	/* soname of a shared ASan runtime it needs */
	bool asan;		/* AddressSanitizer, shared or linked in */
	bool lsan;		/* LeakSanitizer alone (-fsanitize=leak) */
};

/*
 * Fill *rt for the executable at PATH.  False, with *rt empty, when PATH
 * is not an ELF file (a script) or cannot be read: nothing is known.
 */
bool san_probe(const char *path, struct san_runtime *rt);
void san_free(struct san_runtime *rt);

#endif
