/*
 * The table of code locations samples are attributed to: functions and
 * source lines, interned so that each is one object for the whole session
 * and can be compared by pointer.  Counters live on the objects; the
 * report (and later the experiment engine and the TUI) read them.
 */
#ifndef CT_LINES_H
# define CT_LINES_H

# include <stddef.h>
# include <stdint.h>

struct ct_func {
	char *name;		/* symbol name, demangled; or "dso+0xOFF"
				   when there is none */
	char *linkage;		/* the symbol as mangled; NULL: name is it */
	char *dso;		/* path of the module it lives in */
	unsigned id;		/* dense index, in order of creation */
	uint64_t samples;	/* samples attributed to it */
	uint64_t unlined;	/* of these, at code without line info */
	uint64_t self;		/* samples with it as the innermost frame,
				   in scope or not */
};

struct ct_line {
	char *file;		/* absolute, normalized source file path */
	unsigned line;
	struct ct_func *func;	/* function the line was first seen in */
	unsigned id;		/* dense index, in order of creation */
	uint64_t samples;	/* samples attributed to it */
};

struct lines_table;

struct lines_table *lines_new(void);
void lines_free(struct lines_table *);

/* Find or create, by the symbol (mangled) or name.  Strings are copied. */
struct ct_func *lines_func(struct lines_table *, const char *dso, const char *name);
/* The symbol as in the binary: the mangled name, or the name. */
static inline const char *
lines_func_symbol(const struct ct_func *f)
{
	return f->linkage ? f->linkage : f->name;
}
struct ct_line *lines_line(struct lines_table *, const char *file, unsigned line,
			   struct ct_func *func);

/* All entries, indexed by id; valid until the next lines_func/lines_line. */
struct ct_func *const *lines_funcs(const struct lines_table *, size_t *n);
struct ct_line *const *lines_lines(const struct lines_table *, size_t *n);

#endif
