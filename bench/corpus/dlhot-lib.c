/*
 * dlhot-lib: the image filter plug-in that dlhot loads with dlopen() as
 * libdlhot.so: its hot path lives here, out of the main executable.
 *
 *	filter_init(rows, transform, checksum, phase)
 *		the loop counts of the marked lines: rows[p][line] for the
 *		index of each line, in the row *phase says (tests/gt.h's
 *		gt.count and gt.phase: the plug-in cannot see the program's
 *		static gt state, so the program hands it these pointers)
 *	filter_transform(px, len, seed)
 *		filters a frame in place (line "transform": its work scales
 *		with the transform count) and returns the frame's tag
 *	filter_checksum(px, len, tag)
 *		the frame's seal (line "checksum")
 *
 * A marked line's work is a chain of dependent multiply-adds, as
 * workload.h's BENCH_MIX is (same multiplier: the program's calibration
 * holds for it), which feeds the value returned.
 *
 * Build: cc -fPIC -shared -o libdlhot.so dlhot-lib.c
 */
#include <stddef.h>

#define FILTER_MIX(x, v)	((x) * 0x9e3779b97f4a7c15UL + (v))

void filter_init(const unsigned long *const rows[2], int transform, int checksum,
		 const int *phase);
unsigned long filter_transform(unsigned char *px, size_t len, unsigned long seed);
unsigned long filter_checksum(const unsigned char *px, size_t len, unsigned long tag);

static const unsigned long *const *count_rows;
static const int *count_phase;
static int line_transform, line_checksum;

void
filter_init(const unsigned long *const rows[2], int transform, int checksum,
	    const int *phase)
{
	count_rows = rows;
	count_phase = phase;
	line_transform = transform;
	line_checksum = checksum;
}

/* The loop count of a line now: the phase may change under -a. */
static unsigned long
filter_count(int line)
{
	return count_rows[__atomic_load_n(count_phase, __ATOMIC_RELAXED)][line];
}

/*
 * The filter proper: a keyed tag of the frame, from which each pixel
 * gets its dither offset.  len is a power of two.
 */
unsigned long
filter_transform(unsigned char *px, size_t len, unsigned long seed)
{
	unsigned long n = filter_count(line_transform), tag = seed;

	for (unsigned long i = 0; i < n; i++) tag = FILTER_MIX(tag, px[i & (len - 1)]);	/* GT:transform */
	for (size_t i = 0; i < len; i += 64)
		px[i] ^= (unsigned char)(tag >> (i & 56));
	return tag;
}

unsigned long
filter_checksum(const unsigned char *px, size_t len, unsigned long tag)
{
	unsigned long n = filter_count(line_checksum), sum = tag;

	for (unsigned long i = 0; i < n; i++) sum = FILTER_MIX(sum, px[(i * 8) & (len - 1)]);	/* GT:checksum */
	return sum;
}
