/*
 * dlhot: a frame filter whose hot path is a plug-in, a shared library
 * loaded with dlopen() at run time, as media players and image tools
 * load their filters.
 *
 * The program dlopen()s libdlhot.so (built from dlhot-lib.c) from its
 * own directory, found through /proc/self/exe (the environment variable
 * DLHOT_LIB names another path), and looks up the filter's functions
 * with dlsym().  Two worker threads take frames in turn: each decodes
 * its frame's header into the filter's seed (line "frame", in this
 * program: 0.3 unit per frame, -u, default 100 us), refreshes the
 * pixels, then calls the plug-in's filter_transform (line "transform" in
 * the library: one unit) and filter_checksum (line "checksum" in the
 * library: 0.1 unit).  Each item is a frame filtered.
 *
 * The plug-in cannot see tests/gt.h's state (static to this program):
 * filter_init() hands it the loop count tables and the phase, so that
 * -k and -a act on its lines as on the program's own.
 *
 * Nothing but CPU time: the two workers have the two CPUs, and speeding
 * a line by s saves s of its share of a frame's time:
 *
 *	transform:	about 0.7 s
 *	frame:		about 0.2 s
 *	checksum:	about 0.07 s
 *
 * Threads are not pinned (-p: worker i on CPU i).  Profile the library's
 * lines with  causaltop -b MAIN -b '%libdlhot%' ...  See tests/gt.h and
 * workload.h for the options and the output; at exit it also prints
 * "dlhot: frames N seal X library PATH" on stderr.
 */
#include "workload.h"
#include <dlfcn.h>
#include <limits.h>

#define WORKERS		2
#define FRAME_PX	4096		/* bytes of pixels: a power of two */
#define HEADER		64

enum { FRAME, TRANSFORM, CHECKSUM };

static const struct gt_line dlhot_lines[] = {
	[FRAME] = { "frame", 0.3 },
	[TRANSFORM] = { "transform", 1 },
	[CHECKSUM] = { "checksum", 0.1 },
	{ NULL, 0 },
};

/* The plug-in's entry points. */
static void (*filter_init)(const unsigned long *const rows[2], int transform,
			   int checksum, const int *phase);
static unsigned long (*filter_transform)(unsigned char *px, size_t len, unsigned long seed);
static unsigned long (*filter_checksum)(const unsigned char *px, size_t len, unsigned long tag);

static const unsigned long *count_rows[2];
static char lib_path[PATH_MAX];
static unsigned long seal;		/* xor of every frame's checksum */

struct frame {
	unsigned long seq;
	unsigned char header[HEADER];
	unsigned char px[FRAME_PX];
};

/* Look up one of the plug-in's functions. */
static void *
plugin_sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p)
		gt_die("%s: no %s: %s", lib_path, name, dlerror());
	return p;
}

/* Load the plug-in: $DLHOT_LIB, or libdlhot.so next to the executable. */
static void
plugin_load(void)
{
	const char *env = getenv("DLHOT_LIB");
	void *lib;

	if (env && *env) {
		snprintf(lib_path, sizeof(lib_path), "%s", env);
	} else {
		ssize_t k = readlink("/proc/self/exe", lib_path, sizeof(lib_path) - 1);
		char *slash;

		if (k < 0)
			gt_die("readlink /proc/self/exe: %s", strerror(errno));
		lib_path[k] = '\0';
		slash = strrchr(lib_path, '/');
		if (!slash || (size_t)(slash - lib_path) + sizeof("/libdlhot.so") > sizeof(lib_path))
			gt_die("odd executable path '%s'", lib_path);
		strcpy(slash, "/libdlhot.so");
	}
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		gt_die("dlopen: %s", dlerror());
	*(void **)&filter_init = plugin_sym(lib, "filter_init");
	*(void **)&filter_transform = plugin_sym(lib, "filter_transform");
	*(void **)&filter_checksum = plugin_sym(lib, "filter_checksum");
	count_rows[0] = gt.count[0];
	count_rows[1] = gt.count[1];
	filter_init(count_rows, TRANSFORM, CHECKSUM, &gt.phase);
}

/* The next frame of the stream: its header, and its pixels refreshed. */
static void
frame_next(struct frame *f, unsigned long seq, unsigned long *s)
{
	f->seq = seq;
	for (int i = 0; i < HEADER; i++)
		f->header[i] = (unsigned char)bench_rand(s);
	for (int i = 0; i < FRAME_PX; i += 8) {
		unsigned long v = bench_rand(s);

		memcpy(&f->px[i], &v, sizeof(v));
	}
}

/* Decode the frame's header into the filter's seed. */
static unsigned long
frame_seed(const struct frame *f)
{
	unsigned long n = gt_n(FRAME), x = f->seq;

	for (unsigned long i = 0; i < n; i++) x = BENCH_MIX(x, f->header[i & (HEADER - 1)]);	/* GT:frame */
	return x;
}

static void *
worker(void *arg)
{
	static long next_seq;
	unsigned long s = 0xf7a3e + (unsigned long)arg, my_seal = 0;
	struct frame *f = malloc(sizeof(*f));

	if (!f)
		gt_die("out of memory");
	while (gt_claim()) {
		unsigned long seq = __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED), tag;

		frame_next(f, seq, &s);
		tag = filter_transform(f->px, FRAME_PX, frame_seed(f));
		my_seal ^= filter_checksum(f->px, FRAME_PX, tag);
		gt_progress();
	}
	free(f);
	__atomic_xor_fetch(&seal, my_seal, __ATOMIC_RELAXED);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	int i;

	gt.prog = "dlhot";
	gt.n = 20000;
	gt.unit_us = 100;
	gt.pin = 0;
	gt.lines = dlhot_lines;
	gt_init(argc, argv);
	plugin_load();

	for (i = 0; i < WORKERS; i++)
		gt_thread(&t[i], i, worker, (void *)(long)i);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	gt_report();
	fprintf(stderr, "dlhot: frames %ld seal %016lx library %s\n", gt_done, seal, lib_path);
	return 0;
}
