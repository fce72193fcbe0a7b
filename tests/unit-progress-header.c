/*
 * unit-progress-header: causaltop.h's macros, checked from inside the
 * process the way the supervisor sees them: the page is found through
 * /proc/self/fd and mapped a second time, enabled is set through that
 * mapping and counts are read from it with atomic loads.
 *
 * Checks: no page before the first use; the page validates (magic,
 * version, sizes, seals); nothing counts while enabled == 0; exact counts
 * from 1 and 8 threads once enabled, BEGIN/END included; "FILE:LINE"
 * names; a site first used by 8 threads at once loses no hit; hits from a
 * signal handler; a fork child gets a page of its own, counting from 0,
 * and its hits do not reach the parent's; a dlopen()ed library whose copy
 * of the state the executable does not export shares the page anyway, in
 * the parent and in a fork child; exec closes the page, and in a command
 * started with CAUSALTOP_PROFILED a page first made in a signal handler
 * counts from its first hit; running out of slots disables the extra
 * sites.
 *
 * Built a second time with -DPROGRESS_DSO as that library.
 */
#include "config.h"

#include "causaltop.h"

#ifdef PROGRESS_DSO

void progress_dso_hit(void);

void
progress_dso_hit(void)
{
	CAUSALTOP_PROGRESS_NAMED("dso");
}

#else /* !PROGRESS_DSO */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

#define K		100000
#define NTHREADS	8
#define NSIGNALS	2000
#define MAX_PAGES	8

#define MEMFD_LINK	"/memfd:" CAUSALTOP_MEMFD_NAME " (deleted)"

#define check(cond, ...) do { \
		if (!(cond)) \
			fail_exit(1, "unit-progress-header: " __VA_ARGS__); \
	} while (0)

/* The line of hit_all()'s CAUSALTOP_PROGRESS, for the name check. */
static int progress_line;

/* One hit of each kind of point, from any thread. */
static void
hit_all(void)
{
	CAUSALTOP_PROGRESS; enum { line = __LINE__ };

	CAUSALTOP_PROGRESS_NAMED("named");
	CAUSALTOP_BEGIN("txn");
	CAUSALTOP_END("txn");
	__atomic_store_n(&progress_line, line, __ATOMIC_RELAXED);
}

/* Never used before the race check: all threads set the site up at once. */
static void
hit_fresh(void)
{
	CAUSALTOP_PROGRESS_NAMED("fresh");
}

static pthread_barrier_t barrier;

static void *
worker(void *arg)
{
	void (*fn)(void) = *(void (**)(void))arg;
	int i;

	pthread_barrier_wait(&barrier);
	for (i = 0; i < K; i++)
		fn();
	return NULL;
}

/* Runs fn() K times in each of NTHREADS threads started together. */
static void
run_threads(void (*fn)(void))
{
	pthread_t tids[NTHREADS];
	int i;

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		check(pthread_create(&tids[i], NULL, worker, &fn) == 0,
		      "pthread_create failed");
	for (i = 0; i < NTHREADS; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&barrier);
}

static void
run_here(void (*fn)(void), int n)
{
	int i;

	for (i = 0; i < n; i++)
		fn();
}

/* ---- the supervisor's side ---- */

/* Fills fds[] with the descriptors of causaltop pages; returns how many. */
static int
find_pages(int *fds)
{
	char path[sizeof("/proc/self/fd/") + 256], target[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/fd");
	check(d != NULL, "opendir /proc/self/fd: %s", strerror(errno));
	while ((de = readdir(d)) != NULL) {
		ssize_t len;

		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, MEMFD_LINK) == 0 && n < MAX_PAGES)
			fds[n++] = atoi(de->d_name);
	}
	closedir(d);
	return n;
}

/* Finds the one page, checks it as the supervisor would, and maps it. */
static struct causaltop_page *
map_page(int *fdp, struct stat *sbp)
{
	int fds[MAX_PAGES], n, fd, seals;
	char path[64];
	struct causaltop_page *page;
	void *p;

	n = find_pages(fds);
	check(n == 1, "%d progress pages in /proc/self/fd, expected 1", n);
	*fdp = fds[0];

	/* Through /proc, as the supervisor opens another process's memfd. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	fd = open(path, O_RDWR | O_CLOEXEC);
	check(fd >= 0, "open %s: %s", path, strerror(errno));
	check(fstat(fd, sbp) == 0, "fstat: %s", strerror(errno));
	check(sbp->st_size == CAUSALTOP_PAGE_SIZE, "page size %lld",
	      (long long)sbp->st_size);
	seals = fcntl(fd, F_GET_SEALS);
	check(seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) ==
	      (F_SEAL_SHRINK | F_SEAL_GROW), "seals %#x", seals);
	check(seals & F_SEAL_SEAL, "seals %#x lack F_SEAL_SEAL", seals);
	check(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, "the memfd is not close-on-exec");
	p = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	check(p != MAP_FAILED, "mmap: %s", strerror(errno));
	close(fd);
	page = p;

	check(__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) == CAUSALTOP_MAGIC,
	      "magic %#llx", (unsigned long long)page->magic);
	check(page->abi_version == CAUSALTOP_ABI_VERSION, "abi_version %u",
	      page->abi_version);
	check(page->page_size == CAUSALTOP_PAGE_SIZE, "page_size %u", page->page_size);
	check(page->slot_offset == CAUSALTOP_SLOT_OFFSET, "slot_offset %u",
	      page->slot_offset);
	check(page->slot_size == sizeof(struct causaltop_slot), "slot_size %u",
	      page->slot_size);
	check(page->nslots == CAUSALTOP_NSLOTS &&
	      page->slot_offset + (size_t)page->nslots * page->slot_size <=
	      CAUSALTOP_PAGE_SIZE, "nslots %u", page->nslots);
	check(page->used <= page->nslots, "used %u > nslots", page->used);
	check(page->pid == getpid(), "pid %d, expected %d", page->pid, (int)getpid());
	return page;
}

static struct causaltop_slot *
slot_at(struct causaltop_page *page, uint32_t i)
{
	return (struct causaltop_slot *)(void *)((char *)page + page->slot_offset +
						 (size_t)i * page->slot_size);
}

/* The sum over the ready slots named (kind, name); *nslots gets how many. */
static uint64_t
count_of(struct causaltop_page *page, uint32_t kind, const char *name,
	 int *nslots)
{
	uint32_t i, used = __atomic_load_n(&page->used, __ATOMIC_ACQUIRE);
	uint64_t sum = 0;
	int n = 0;

	for (i = 0; i < used && i < page->nslots; i++) {
		struct causaltop_slot *s = slot_at(page, i);

		if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) ||
		    s->kind != kind ||
		    strncmp(s->name, name, CAUSALTOP_NAME_MAX) != 0)
			continue;
		sum += __atomic_load_n(&s->count, __ATOMIC_RELAXED);
		n++;
	}
	if (nslots)
		*nslots = n;
	return sum;
}

static char line_name[CAUSALTOP_NAME_MAX];

struct counts {
	uint64_t line, named, begin, end, fresh, signal;
};

static struct counts
counts_of(struct causaltop_page *page)
{
	struct counts c;

	c.line = count_of(page, CAUSALTOP_KIND_THROUGHPUT, line_name, NULL);
	c.named = count_of(page, CAUSALTOP_KIND_THROUGHPUT, "named", NULL);
	c.begin = count_of(page, CAUSALTOP_KIND_BEGIN, "txn", NULL);
	c.end = count_of(page, CAUSALTOP_KIND_END, "txn", NULL);
	c.fresh = count_of(page, CAUSALTOP_KIND_THROUGHPUT, "fresh", NULL);
	c.signal = count_of(page, CAUSALTOP_KIND_THROUGHPUT, "signal", NULL);
	return c;
}

static void
check_hit_all(struct causaltop_page *page, uint64_t want, const char *when)
{
	struct counts c = counts_of(page);

	check(c.line == want && c.named == want && c.begin == want && c.end == want,
	      "%s: counts %llu %llu %llu %llu, expected %llu", when,
	      (unsigned long long)c.line, (unsigned long long)c.named,
	      (unsigned long long)c.begin, (unsigned long long)c.end,
	      (unsigned long long)want);
}

/* ---- signals ---- */

static void
on_signal(int sig)
{
	(void)sig;
	CAUSALTOP_PROGRESS_NAMED("signal");
}

/*
 * After exec, started with CAUSALTOP_PROFILED as the supervisor launches
 * commands: the parent's page must be gone (close-on-exec), and a page
 * first made inside a signal handler must be enabled from the start, so
 * that even that first hit counts.
 */
static int
exec_child(void)
{
	struct causaltop_page *page;
	struct stat sb;
	int fds[MAX_PAGES], fd, i;

	check(find_pages(fds) == 0, "a progress page survived exec");
	check(getenv(CAUSALTOP_PROFILED_ENV) != NULL, "exec: no " CAUSALTOP_PROFILED_ENV);
	signal(SIGUSR1, on_signal);
	for (i = 0; i < NSIGNALS; i++)
		raise(SIGUSR1);
	page = map_page(&fd, &sb);
	check(page->enabled == 1, "exec: page not enabled from the start");
	check(count_of(page, CAUSALTOP_KIND_THROUGHPUT, "signal", NULL) == NSIGNALS,
	      "after exec: signal count %llu, expected %d",
	      (unsigned long long)count_of(page, CAUSALTOP_KIND_THROUGHPUT,
					   "signal", NULL), NSIGNALS);
	return 0;
}

/* ---- fork ---- */

static void
check_fork(struct causaltop_page *page, int fd)
{
	struct counts before = counts_of(page), c;
	struct stat psb, csb;
	int status, cfd, n;
	pid_t pid;

	check(fstat(fd, &psb) == 0, "fstat: %s", strerror(errno));
	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct causaltop_page *cpage = map_page(&cfd, &csb);

		check(csb.st_ino != psb.st_ino, "child: same memfd as the parent");
		check(cfd == fd, "child: page fd %d, the parent's was %d", cfd, fd);
		check(__atomic_load_n(&cpage->enabled, __ATOMIC_RELAXED) == 0,
		      "child: page enabled");
		/* Slots and names are kept, counts start from 0. */
		check(cpage->used == page->used, "child: used %u, parent's %u",
		      cpage->used, page->used);
		check(count_of(cpage, CAUSALTOP_KIND_THROUGHPUT, line_name, &n) == 0 &&
		      n == 1, "child: \"%s\": %d slots, count %llu (want 1, 0)",
		      line_name, n, (unsigned long long)count_of(cpage,
				CAUSALTOP_KIND_THROUGHPUT, line_name, NULL));
		c = counts_of(cpage);
		check(c.line == 0 && c.end == 0 && c.fresh == 0 && c.signal == 0,
		      "child: counts do not start from 0");
		run_here(hit_all, K);
		check_hit_all(cpage, 0, "child, disabled");
		__atomic_store_n(&cpage->enabled, 1, __ATOMIC_RELAXED);
		run_here(hit_all, K);
		run_threads(hit_all);
		check_hit_all(cpage, (NTHREADS + 1) * (uint64_t)K, "child, enabled");
		_exit(0);
	}
	check(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fork child failed (status %#x)", status);
	check_hit_all(page, before.line, "parent after the child's hits");
	check(__atomic_load_n(&page->enabled, __ATOMIC_RELAXED) == 1,
	      "parent: page no longer enabled");
}

/* ---- a dlopen()ed library ---- */

/*
 * This executable does not export causaltop_state_v1_ (nothing it was
 * linked with refers to it), so the library binds to its own copy: it
 * must find the page through /proc/self/fd and share it, and in a fork
 * child both copies must end up on the child's one page.
 */
static void
check_dso(struct causaltop_page *page)
{
	void (*dso_hit)(void);
	struct causaltop_page *cpage;
	int fds[MAX_PAGES], status, cfd, n;
	struct stat csb;
	void *h, *sym;
	pid_t pid;

	h = dlopen(PROGRESS_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
	check(h != NULL, "dlopen: %s", dlerror());
	sym = dlsym(h, "progress_dso_hit");
	check(sym != NULL, "dlsym: %s", dlerror());
	memcpy(&dso_hit, &sym, sizeof(sym));
	check(dlsym(RTLD_DEFAULT, "causaltop_state_v1_") == NULL,
	      "the executable exports its state: this checks nothing");

	run_here(dso_hit, K);
	n = find_pages(fds);
	check(n == 1, "%d progress pages with the library loaded", n);
	check(count_of(page, CAUSALTOP_KIND_THROUGHPUT, "dso", NULL) == K,
	      "library: %llu hits on the page, expected %d",
	      (unsigned long long)count_of(page, CAUSALTOP_KIND_THROUGHPUT,
					   "dso", NULL), K);

	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		cpage = map_page(&cfd, &csb);
		__atomic_store_n(&cpage->enabled, 1, __ATOMIC_RELAXED);
		run_here(dso_hit, K);
		run_here(hit_all, K);
		check(count_of(cpage, CAUSALTOP_KIND_THROUGHPUT, "dso", NULL) == K,
		      "child: library hits missing from the child's page");
		check_hit_all(cpage, K, "child with the library");
		_exit(0);
	}
	check(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "library fork child failed (status %#x)", status);
	check(count_of(page, CAUSALTOP_KIND_THROUGHPUT, "dso", NULL) == K,
	      "library: the child's hits reached the parent's page");
}

/* ---- running out of slots ---- */

#define EX(n)		CAUSALTOP_PROGRESS_NAMED("exhaust-" #n);
#define EX10(p)		EX(p##0) EX(p##1) EX(p##2) EX(p##3) EX(p##4) \
			EX(p##5) EX(p##6) EX(p##7) EX(p##8) EX(p##9)
#define EX100(p)	EX10(p##0) EX10(p##1) EX10(p##2) EX10(p##3) EX10(p##4) \
			EX10(p##5) EX10(p##6) EX10(p##7) EX10(p##8) EX10(p##9)

/* 300 distinct sites and names, more than a page has slots. */
static void
exhaust(void)
{
	EX100(1) EX100(2) EX100(3)
}

static void
check_exhaustion(struct causaltop_page *page)
{
	uint32_t used0 = page->used, i;
	uint64_t base = counts_of(page).line;
	int claimed = 0;

	check(CAUSALTOP_NSLOTS < 300, "the page has room for 300 slots");
	exhaust();
	exhaust();
	check(page->used == page->nslots, "used %u, nslots %u", page->used,
	      page->nslots);
	for (i = 0; i < page->nslots; i++) {
		struct causaltop_slot *s = slot_at(page, i);

		if (strncmp(s->name, "exhaust-", 8) != 0)
			continue;
		check(s->ready && s->count == 2, "slot %s: count %llu",
		      s->name, (unsigned long long)s->count);
		claimed++;
	}
	check((uint32_t)claimed == page->nslots - used0,
	      "%d exhaust slots, expected %u", claimed, page->nslots - used0);
	/* Sites set up before still count. */
	hit_all();
	check_hit_all(page, base + 1, "after running out of slots");
}

int
main(int argc, char **argv)
{
	struct causaltop_page *page;
	struct stat sb;
	int fds[MAX_PAGES], fd, n, i;

	if (argc > 1 && strcmp(argv[1], "--exec-child") == 0)
		return exec_child();

	/* Counting from the start is for commands causaltop launches. */
	unsetenv(CAUSALTOP_PROFILED_ENV);
	check(find_pages(fds) == 0, "a progress page before the first use");

	/* Not profiled: the page appears, nothing counts. */
	run_here(hit_all, K);
	run_threads(hit_all);
	n = find_pages(fds);
	if (n == 0) {
		int mfd = memfd_create("probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);

		if (mfd < 0)
			fail_exit(77, "unit-progress-header: no memfd_create: %s",
				  strerror(errno));
		close(mfd);
	}
	page = map_page(&fd, &sb);
	snprintf(line_name, sizeof(line_name), "%s:%d", __FILE__, progress_line);
	check(count_of(page, CAUSALTOP_KIND_THROUGHPUT, line_name, &n) == 0 && n == 1,
	      "no single slot named \"%s\" (%d)", line_name, n);
	check_hit_all(page, 0, "disabled");
	check(page->enabled == 0, "page enabled before the supervisor said so");

	/* Profiled: exact counts from 1, then 8 threads. */
	__atomic_store_n(&page->enabled, 1, __ATOMIC_RELAXED);
	run_here(hit_all, K);
	check_hit_all(page, K, "1 thread");
	run_threads(hit_all);
	check_hit_all(page, (NTHREADS + 1) * (uint64_t)K, "8 threads");

	/* A site's first use racing in 8 threads loses no hit. */
	run_threads(hit_fresh);
	check(counts_of(page).fresh == NTHREADS * (uint64_t)K,
	      "fresh site: %llu, expected %llu",
	      (unsigned long long)counts_of(page).fresh,
	      (unsigned long long)NTHREADS * K);

	/* From a signal handler. */
	signal(SIGUSR1, on_signal);
	for (i = 0; i < NSIGNALS; i++)
		raise(SIGUSR1);
	check(counts_of(page).signal == NSIGNALS, "signal count %llu, expected %d",
	      (unsigned long long)counts_of(page).signal, NSIGNALS);

	check_fork(page, fd);
	check_dso(page);

	/* exec: the page is close-on-exec; the new image makes its own. */
	{
		pid_t pid = fork();
		int status;

		check(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			setenv(CAUSALTOP_PROFILED_ENV, "1", 1);
			execl("/proc/self/exe", argv[0], "--exec-child", (char *)NULL);
			_exit(127);
		}
		check(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "exec child failed (status %#x)", status);
	}

	check_exhaustion(page);

	munmap(page, CAUSALTOP_PAGE_SIZE);
	printf("unit-progress-header: ok (%u slots)\n", (unsigned)CAUSALTOP_NSLOTS);
	return 0;
}

#endif /* !PROGRESS_DSO */
