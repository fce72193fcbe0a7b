/*
 * Target of unit-probe, built with -g -O1.  Its threads run work_unit()
 * and the other probed code exactly K times each, and only when told,
 * so the counts the test reads are exact however loaded the machine.
 *
 * usage: probetarget NTHREADS K
 * Commands on stdin, one a line; replies on stdout:
 *   (start)      "ready VADDR": the NTHREADS workers exist and wait;
 *                VADDR is work_unit's ELF address (as nm shows it)
 *   dlopen PATH  "ok" once PATH is loaded; its dl_work() joins the loop
 *   go           the workers (the main thread when NTHREADS is 0) run
 *                K iterations; "done" once they have exited
 *   exec         a new image of this program, same arguments: "ready"
 *   exit         exit 0
 * The test finds the lines marked PROBE:NAME in this file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests.h"

/* Probed functions stay whole, under their own names (gcc: no clones). */
#if defined(__has_attribute) && __has_attribute(noclone)
# define PROBED __attribute__((noinline, noclone, used))
#else
# define PROBED __attribute__((noinline, used))
#endif

volatile unsigned long sink;
static unsigned long iterations;
static void (*dl_work)(void);
static pthread_barrier_t go_barrier;

/* Global, and so in the symbol table whatever the optimizer does. */
void work_unit(void);
void stage_a(void);
void stage_b(void);
void stage_c(void);
void transaction(void);
void twin_a(void);

/* Inlined into two functions: its line has code in both. */
static inline __attribute__((always_inline)) void
bump(void)
{
	sink += 5;			/* PROBE:inlined */
}

PROBED void
work_unit(void)
{
	sink++;
}

PROBED void
stage_a(void)
{
	bump();
	sink += 7;
}

PROBED void
stage_b(void)
{
	bump();
	sink += 11;
}

PROBED void
stage_c(void)
{
	sink ^= 3;
}

/* A static function of the same name as one in probetarget-twin.c. */
static PROBED void
twin(void)
{
	sink += 13;
}

PROBED void
transaction(void)
{
	sink += 1;			/* PROBE:begin */
	sink *= 3;
	/* PROBE:nocode */
	sink += 2;			/* PROBE:end */
}

static void
run_iterations(void)
{
	for (unsigned long i = 0; i < iterations; i++) {
		work_unit();		/* PROBE:loop */
		stage_a();
		stage_b();
		stage_c();
		transaction();
		twin();
		twin_a();
		if (dl_work)
			dl_work();
	}
}

static void *
worker(void *arg)
{
	pthread_barrier_wait(&go_barrier);
	run_iterations();
	return NULL;
}

/*
 * A debug exception with no cause recorded, at one of the test's
 * breakpoints: a KVM guest raised them in bursts (22 in 5*10^7 counted
 * hits), and the kernel's SIGTRAP for them killed this program.  Traced
 * by causaltop, a program never sees it (src/ptrace/trace.c, straytrap.test);
 * here, untraced, it drops it itself.  The thread resumes at the
 * breakpoint, which counts.  Any other SIGTRAP still kills it.
 */
static void
on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	(void) uc;
	if (si->si_code == TRAP_BRKPT)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The main program's load bias, to give work_unit's ELF address. */
static int
main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *) data = info->dlpi_addr;
	return 1;		/* the first entry is the main program */
}

int
main(int argc, char **argv)
{
	pthread_t tids[64];
	struct sigaction sa;
	uintptr_t bias = 0;
	char line[4096];
	int n;

	if (argc != 3)
		fail_exit(2, "usage: probetarget NTHREADS K");
	n = atoi(argv[1]);
	iterations = strtoul(argv[2], NULL, 10);
	if (n < 0 || n > 64)
		fail_exit(2, "probetarget: 0 to 64 threads");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	pthread_barrier_init(&go_barrier, NULL, n + 1);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&tids[i], NULL, worker, NULL))
			fail_exit(1, "probetarget: pthread_create failed");
	}
	dl_iterate_phdr(main_bias, &bias);
	printf("ready %#lx\n", (unsigned long) ((uintptr_t) work_unit - bias));

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "dlopen ", 7)) {
			void *h = dlopen(line + 7, RTLD_NOW);

			if (!h || !(dl_work = (void (*)(void)) dlsym(h, "dl_work")))
				fail_exit(1, "probetarget: %s", dlerror());
			printf("ok\n");
		} else if (!strcmp(line, "go")) {
			pthread_barrier_wait(&go_barrier);
			if (!n)
				run_iterations();
			for (int i = 0; i < n; i++)
				pthread_join(tids[i], NULL);
			printf("done\n");
		} else if (!strcmp(line, "exec")) {
			execv("/proc/self/exe", argv);
			fail_exit(1, "probetarget: exec failed");
		} else if (!strcmp(line, "exit")) {
			return 0;
		} else {
			fail_exit(2, "probetarget: bad command '%s'", line);
		}
	}
	return 0;
}
