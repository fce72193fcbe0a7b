/*
 * Code locations the symbolizer tests look up: each marker function
 * records the address of one of its statements together with that
 * statement's __LINE__.  They are compiled at -O0 whatever CFLAGS say,
 * so that the statement keeps its own instructions and line.
 */
#ifndef CT_SYMTEST_MARKER_H
# define CT_SYMTEST_MARKER_H

struct symtest_marker {
	const void *entry;	/* the function's first instruction */
	int decl_line;		/* line of the function's name */
	int body_line;		/* line of its first statement */
	const void *addr;	/* an instruction of the marked statement */
	int line;		/* the marked statement's line */
	int sink;		/* keeps the statements' work alive */
};

# ifdef __clang__
#  define SYMTEST_MARKER_ATTRS __attribute__((noinline, used, optnone))
# else
#  define SYMTEST_MARKER_ATTRS \
	__attribute__((noinline, noclone, used, optimize("O0")))
# endif

typedef void (*symtest_mark_fn)(struct symtest_marker *);

void symtest_shared_mark(struct symtest_marker *);
void symtest_dlopen_mark(struct symtest_marker *);

#endif
