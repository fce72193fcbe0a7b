/*
 * unit-coz-shim: a program instrumented with the real Coz header counts on
 * causaltop's page when libcausaltop-coz.so is loaded (this test is linked
 * against it).  COZ_PROGRESS, COZ_PROGRESS_NAMED, COZ_BEGIN and COZ_END,
 * K times from 1 thread, then from 8 started together (plus a point only
 * they use, so that its first uses race), must give exact counts, summed
 * over the slots of one (kind, name) as the supervisor does; the shim
 * marks its slots CAUSALTOP_KIND_FROM_COZ.  Skipped (77) without coz.h.
 */
#include "config.h"

#include <stdio.h>

#if !defined(__has_include)
# define CT_HAVE_COZ_H 0
#elif __has_include(<coz.h>)
# define CT_HAVE_COZ_H 1
#else
# define CT_HAVE_COZ_H 0
#endif

#if !CT_HAVE_COZ_H

int
main(void)
{
	puts("unit-coz-shim: no <coz.h> (coz-profiler), skipped");
	return 77;
}

#else

#include <coz.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "causaltop_abi.h"
#include "tests.h"

#define K		100000
#define NTHREADS	8

#define check(cond, ...) do { \
		if (!(cond)) \
			fail_exit(1, "unit-coz-shim: " __VA_ARGS__); \
	} while (0)

static int progress_line;

static void
hit_all(void)
{
	COZ_PROGRESS; enum { line = __LINE__ };

	COZ_PROGRESS_NAMED("coz-named");
	COZ_BEGIN("coz-txn");
	COZ_END("coz-txn");
	__atomic_store_n(&progress_line, line, __ATOMIC_RELAXED);
}

/* Used by the threads only: their first uses of it race. */
static void
hit_fresh(void)
{
	COZ_PROGRESS_NAMED("coz-fresh");
}

static pthread_barrier_t barrier;

static void *
worker(void *arg)
{
	int i;

	(void)arg;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < K; i++) {
		hit_all();
		hit_fresh();
	}
	return NULL;
}

static struct causaltop_page *
map_page(void)
{
	const char *want = "/memfd:" CAUSALTOP_MEMFD_NAME " (deleted)";
	char path[sizeof("/proc/self/fd/") + 256], target[256];
	struct causaltop_page *page = NULL;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc/self/fd");
	check(d != NULL, "opendir: %s", strerror(errno));
	while ((de = readdir(d)) != NULL) {
		ssize_t len;
		void *p;
		int fd;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, want) != 0)
			continue;
		check(page == NULL, "more than one progress page");
		fd = open(path, O_RDWR | O_CLOEXEC);
		check(fd >= 0, "open %s: %s", path, strerror(errno));
		p = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		check(p != MAP_FAILED, "mmap: %s", strerror(errno));
		close(fd);
		page = p;
	}
	closedir(d);
	check(page != NULL, "no progress page after COZ_* were used");
	check(page->magic == CAUSALTOP_MAGIC &&
	      page->abi_version == CAUSALTOP_ABI_VERSION &&
	      page->slot_offset == CAUSALTOP_SLOT_OFFSET &&
	      page->slot_size == sizeof(struct causaltop_slot) &&
	      page->nslots == CAUSALTOP_NSLOTS, "bad page header");
	return page;
}

static uint64_t
count_of(struct causaltop_page *page, uint32_t kind, const char *name)
{
	uint32_t i, used = __atomic_load_n(&page->used, __ATOMIC_ACQUIRE);
	uint64_t sum = 0;

	for (i = 0; i < used && i < page->nslots; i++) {
		struct causaltop_slot *s = (struct causaltop_slot *)(void *)
			((char *)page + page->slot_offset + (size_t)i * page->slot_size);

		/* The shim marks its slots as Coz's. */
		if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) &&
		    s->kind == (kind | CAUSALTOP_KIND_FROM_COZ) &&
		    strncmp(s->name, name, CAUSALTOP_NAME_MAX) == 0)
			sum += __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	}
	return sum;
}

static void
check_counts(struct causaltop_page *page, const char *line_name, uint64_t want,
	     const char *when)
{
	uint64_t c[4];

	c[0] = count_of(page, COZ_COUNTER_TYPE_THROUGHPUT, line_name);
	c[1] = count_of(page, COZ_COUNTER_TYPE_THROUGHPUT, "coz-named");
	c[2] = count_of(page, COZ_COUNTER_TYPE_BEGIN, "coz-txn");
	c[3] = count_of(page, COZ_COUNTER_TYPE_END, "coz-txn");
	check(c[0] == want && c[1] == want && c[2] == want && c[3] == want,
	      "%s: counts %llu %llu %llu %llu, expected %llu", when,
	      (unsigned long long)c[0], (unsigned long long)c[1],
	      (unsigned long long)c[2], (unsigned long long)c[3],
	      (unsigned long long)want);
}

int
main(void)
{
	char line_name[CAUSALTOP_NAME_MAX];
	struct causaltop_page *page;
	pthread_t tids[NTHREADS];
	int i;

	check(dlsym(RTLD_DEFAULT, "_coz_get_counter") != NULL,
	      "_coz_get_counter not found: libcausaltop-coz.so not loaded");

	/* coz.h counts whether or not causaltop is profiling. */
	for (i = 0; i < K; i++)
		hit_all();
	page = map_page();
	check(page->enabled == 0, "page enabled");
	snprintf(line_name, sizeof(line_name), "%s:%d", __FILE__, progress_line);
	check_counts(page, line_name, K, "1 thread");

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		check(pthread_create(&tids[i], NULL, worker, NULL) == 0,
		      "pthread_create failed");
	for (i = 0; i < NTHREADS; i++)
		pthread_join(tids[i], NULL);
	check_counts(page, line_name, (NTHREADS + 1) * (uint64_t)K, "8 threads");
	check(count_of(page, COZ_COUNTER_TYPE_THROUGHPUT, "coz-fresh") ==
	      NTHREADS * (uint64_t)K, "coz-fresh: %llu, expected %llu",
	      (unsigned long long)count_of(page, COZ_COUNTER_TYPE_THROUGHPUT, "coz-fresh"),
	      NTHREADS * (unsigned long long)K);

	printf("unit-coz-shim: ok\n");
	return 0;
}

#endif
