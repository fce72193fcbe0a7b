/* A library the symbolizer tests dlopen after they start symbolizing. */
#include "config.h"
#include "symtest-marker.h"

enum { dlopen_mark_decl_line = __LINE__ + 2 };
SYMTEST_MARKER_ATTRS void
symtest_dlopen_mark(struct symtest_marker *mk)
{
	volatile int x = 0;

	mk->body_line = __LINE__;
	mk->entry = (const void *) symtest_dlopen_mark;
	mk->decl_line = dlopen_mark_decl_line;
	mk->addr = &&marked;
	x += 2;
marked:	x *= 5; mk->line = __LINE__;
	x -= 2;
	mk->sink = x;
}
