/*
 * hot-shlib SECONDS: spend SECONDS of CPU time in libhotlib.so's
 * hotlib_spin(), called from the marked line.  Without the library in
 * the binary scope, its samples belong to that call site.
 */
#include <stdlib.h>
#include "tests.h"

unsigned long hotlib_spin(double seconds);

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	unsigned long r;

	/* Not a tail call: the return address must be in main. */
	r = hotlib_spin(seconds);	/* HOT-CALL */
	return r == 1 ? 2 : 0;
}
