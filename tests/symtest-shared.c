/* A library the symbolizer tests link against at build time. */
#include "config.h"
#include "symtest-marker.h"

enum { shared_mark_decl_line = __LINE__ + 2 };
SYMTEST_MARKER_ATTRS void
symtest_shared_mark(struct symtest_marker *mk)
{
	volatile int x = 0;

	mk->body_line = __LINE__;
	mk->entry = (const void *) symtest_shared_mark;
	mk->decl_line = shared_mark_decl_line;
	mk->addr = &&marked;
	x += 1;
marked:	x *= 3; mk->line = __LINE__;
	x -= 1;
	mk->sink = x;
}
