/*
 * causaltop.h: progress points for programs profiled by causaltop.
 * Header-only; see causaltop.h(3).  The shared page it writes is laid out
 * as causaltop_abi.h says.
 *
 *	CAUSALTOP_PROGRESS;		throughput point named "FILE:LINE"
 *	CAUSALTOP_PROGRESS_NAMED(name);	throughput point
 *	CAUSALTOP_BEGIN(name);		a transaction starts
 *	CAUSALTOP_END(name);		a transaction ends
 *
 * Each is a statement.  The name must be a string that stays the same for
 * a call site (a literal, in practice): it is read once, at the site's
 * first use.  Two call sites with the same kind and name get two slots;
 * the supervisor adds them up.
 *
 * Cost: when the program is not being profiled, a load, a well-predicted
 * branch and no system call after the site's first use; when profiled,
 * one relaxed atomic add more.  Every macro is thread-safe, never blocks
 * and is async-signal-safe.  Define CAUSALTOP_DISABLE before including
 * this header to compile the macros to nothing.
 *
 * The page is made at the first hit in the process, enabled from the
 * start if CAUSALTOP_PROFILED is set (causaltop sets it for commands it
 * launches).  All modules of a process share it; a fork child gets a copy
 * of its own; exec closes it.  If anything fails, nothing counts, silently.
 *
 * Usable from C99 and C++11 on, with GCC or Clang, on Linux.  GNU
 * extensions it cannot do without, and which -pedantic accepts: __atomic
 * builtins, __builtin_expect, __attribute__ (weak, visibility,
 * constructor, noinline, cold, unused) and __asm__ labels (to reach
 * memfd_create(), ftruncate() and syscall(), which the C library declares
 * only under feature-test macros the including program may not have
 * defined).
 */
#ifndef CAUSALTOP_H
# define CAUSALTOP_H

# ifdef CAUSALTOP_DISABLE

/* sizeof keeps a name given as a variable "used", without evaluating it. */
#  define CAUSALTOP_PROGRESS		do { } while (0)
#  define CAUSALTOP_PROGRESS_NAMED(name)	do { (void)sizeof(name); } while (0)
#  define CAUSALTOP_BEGIN(name)		do { (void)sizeof(name); } while (0)
#  define CAUSALTOP_END(name)		do { (void)sizeof(name); } while (0)

# else /* !CAUSALTOP_DISABLE */

#  include <errno.h>
#  include <fcntl.h>
#  include <pthread.h>
#  include <stddef.h>
#  include <stdint.h>
#  include <stdlib.h>
#  include <string.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#  include <sys/syscall.h>
#  include <sys/types.h>
#  include <unistd.h>

#  include "causaltop_abi.h"

#  define CAUSALTOP_STR2_(x)	#x
#  define CAUSALTOP_STR_(x)	CAUSALTOP_STR2_(x)

#  define CAUSALTOP_PROGRESS \
	CAUSALTOP_HIT_(CAUSALTOP_KIND_THROUGHPUT, __FILE__ ":" CAUSALTOP_STR_(__LINE__))
#  define CAUSALTOP_PROGRESS_NAMED(name) \
	CAUSALTOP_HIT_(CAUSALTOP_KIND_THROUGHPUT, (name))
#  define CAUSALTOP_BEGIN(name)	CAUSALTOP_HIT_(CAUSALTOP_KIND_BEGIN, (name))
#  define CAUSALTOP_END(name)	CAUSALTOP_HIT_(CAUSALTOP_KIND_END, (name))

/*
 * One static per call site: the page it counts in (NULL until the site is
 * set up) and its slot.  Zero-initialized, so C++ needs no guard for it.
 */
#  define CAUSALTOP_HIT_(kind, name) do { \
		static struct causaltop_site_ causaltop_site_l_; \
		causaltop_hit_(&causaltop_site_l_, (kind), (name)); \
	} while (0)

#  ifdef __cplusplus
extern "C" {
#  endif

/*
 * Kernel ABI values, the same on every Linux architecture; spelled out
 * because <fcntl.h> and <sys/mman.h> define the originals only under
 * _GNU_SOURCE.
 */
#  define CAUSALTOP_MFD_CLOEXEC_	0x0001u
#  define CAUSALTOP_MFD_ALLOW_SEALING_	0x0002u
#  define CAUSALTOP_F_ADD_SEALS_	(1024 + 9)
#  define CAUSALTOP_F_GET_SEALS_	(1024 + 10)
#  define CAUSALTOP_F_SEAL_SEAL_	0x0001
#  define CAUSALTOP_F_SEAL_SHRINK_	0x0002
#  define CAUSALTOP_F_SEAL_GROW_	0x0004

/*
 * Under names of our own, so that they cannot clash with the program's
 * declarations whatever its feature-test macros.  The plain "ftruncate"
 * symbol takes glibc's __off_t whatever _FILE_OFFSET_BITS says, and musl's
 * one off_t.
 */
#  ifdef __GLIBC__
typedef __off_t causaltop_off_t_;
#  else
typedef off_t causaltop_off_t_;
#  endif
extern int causaltop_memfd_create_(const char *, unsigned int)
	__asm__("memfd_create");
extern int causaltop_ftruncate_(int, causaltop_off_t_) __asm__("ftruncate");
extern ssize_t causaltop_readlink_(const char *, char *, size_t)
	__asm__("readlink");
/* For getdents64, which glibc wraps only since 2.30 and musl not at all. */
extern long causaltop_syscall_(long, ...) __asm__("syscall");

/* Status of the process's page. */
enum {
	CAUSALTOP_NONE_ = 0,
	CAUSALTOP_CREATING_ = 1,	/* one thread is making it: the status
					   is (its tid << 2) | CREATING */
	CAUSALTOP_READY_ = 2,
	CAUSALTOP_FAILED_ = 3,		/* counting stays off */
};

/*
 * Shared by modules that may be built with different feature-test macros
 * (_FILE_OFFSET_BITS): fixed-width types only.
 */
struct causaltop_state_v1_ {
	int32_t status;			/* CAUSALTOP_*_ above */
	int32_t fd;			/* the memfd, kept open for the supervisor
					   (and other modules' states may hold
					   the same number) */
	int32_t pid;			/* whose page it is (a fork child makes its own) */
	int32_t pad;
	uint64_t dev;			/* the memfd's identity, to recognize our */
	uint64_t ino;			/*  fd in a fork child */
	struct causaltop_page *page;
	/* What sites count in when there is no page or no slot: enabled stays 0. */
	struct causaltop_page nopage;
};

/*
 * The process-wide state.  A weak definition with default visibility in
 * every module (executable or shared library) that includes this header:
 * the dynamic linker binds all of them to one instance wherever a module
 * can see another's.  A module that cannot (a dlopen()ed library, when the
 * executable does not export its copy) finds the page through
 * /proc/self/fd instead: one page per process either way.  The name
 * carries the layout version, so modules built against different layouts
 * never share it.
 */
extern struct causaltop_state_v1_ causaltop_state_v1_;
struct causaltop_state_v1_ causaltop_state_v1_
	__attribute__((weak, visibility("default")));

/* Per module (hidden): whether this module registered its fork handler. */
extern int causaltop_atfork_v1_;
int causaltop_atfork_v1_ __attribute__((weak, visibility("hidden")));

struct causaltop_site_ {
	struct causaltop_page *page;	/* set last (release): site is ready */
	struct causaltop_slot *slot;
};

/* Layout checks in the C99 way (_Static_assert is C11). */
typedef char causaltop_slot_size_ok_[
	sizeof(struct causaltop_slot) == 128 ? 1 : -1];
typedef char causaltop_header_size_ok_[
	sizeof(struct causaltop_page) <= CAUSALTOP_SLOT_OFFSET ? 1 : -1];
typedef char causaltop_count_first_ok_[
	offsetof(struct causaltop_slot, count) == 0 ? 1 : -1];

static inline struct causaltop_slot *
causaltop_slot_at_(struct causaltop_page *page, uint32_t idx)
{
	/* Via void *: slots are aligned, as the ABI lays them out. */
	return (struct causaltop_slot *)(void *)((char *)page + CAUSALTOP_SLOT_OFFSET +
						 (size_t)idx * sizeof(struct causaltop_slot));
}

/* Whether the supervisor launched us and wants counts from the start. */
static inline int
causaltop_profiled_(void)
{
	const char *v = getenv(CAUSALTOP_PROFILED_ENV);

	return v != NULL && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}

/*
 * A new memfd of the page's size, close-on-exec, sealed against shrinking
 * (so that the supervisor's mapping can never SIGBUS), growing and further
 * sealing (so that its size is the page's for good); -1 if any of it fails.
 */
static __attribute__((noinline, cold, unused)) int
causaltop_memfd_(void)
{
	int fd = causaltop_memfd_create_(CAUSALTOP_MEMFD_NAME,
					 CAUSALTOP_MFD_CLOEXEC_ |
					 CAUSALTOP_MFD_ALLOW_SEALING_);

	if (fd < 0)
		return -1;
	if (causaltop_ftruncate_(fd, CAUSALTOP_PAGE_SIZE) < 0 ||
	    fcntl(fd, CAUSALTOP_F_ADD_SEALS_, CAUSALTOP_F_SEAL_SHRINK_ |
		  CAUSALTOP_F_SEAL_GROW_ | CAUSALTOP_F_SEAL_SEAL_) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * If fd is a complete page made by this very process, a new shared
 * mapping of it (and its stat in *sb); else NULL.  A page of an ancestor
 * fails the pid check.  The fd's /proc link is read first, so that no
 * other kind of file is ever fstat()ed (which, on FUSE or NFS, could
 * block).
 */
static __attribute__((noinline, cold, unused)) struct causaltop_page *
causaltop_map_ours_(int fd, struct stat *sb)
{
	static const char want[] = "/memfd:" CAUSALTOP_MEMFD_NAME " (deleted)";
	char path[32] = "/proc/self/fd/", link[sizeof(want) + 1];
	char digits[12], *d = digits + sizeof(digits);
	struct causaltop_page *page;
	size_t len = 14, i;
	int seals, n = fd;
	void *p;

	if (fd < 0)
		return NULL;
	*--d = '\0';
	do
		*--d = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (*d != '\0')
		path[len++] = *d++;
	path[len] = '\0';
	if (causaltop_readlink_(path, link, sizeof(link)) != (ssize_t)sizeof(want) - 1)
		return NULL;
	for (i = 0; i < sizeof(want) - 1; i++)
		if (link[i] != want[i])
			return NULL;

	if (fstat(fd, sb) < 0 || !S_ISREG(sb->st_mode) ||
	    sb->st_size != CAUSALTOP_PAGE_SIZE)
		return NULL;
	seals = fcntl(fd, CAUSALTOP_F_GET_SEALS_);
	if (seals < 0 || (seals & (CAUSALTOP_F_SEAL_SHRINK_ | CAUSALTOP_F_SEAL_GROW_)) !=
	    (CAUSALTOP_F_SEAL_SHRINK_ | CAUSALTOP_F_SEAL_GROW_))
		return NULL;
	p = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	page = (struct causaltop_page *)p;
	if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) != CAUSALTOP_MAGIC ||
	    page->abi_version != CAUSALTOP_ABI_VERSION ||
	    page->page_size != CAUSALTOP_PAGE_SIZE ||
	    page->slot_offset != CAUSALTOP_SLOT_OFFSET ||
	    page->slot_size != sizeof(struct causaltop_slot) ||
	    page->nslots != CAUSALTOP_NSLOTS || page->pid != getpid()) {
		munmap(p, CAUSALTOP_PAGE_SIZE);
		return NULL;
	}
	return page;
}

/*
 * Look through /proc/self/fd for a page this process already has: a module
 * whose copy of causaltop_state_v1_ this one cannot see (a library
 * dlopen()ed by an executable that does not export its copy, say) may have
 * made it.  Sharing it keeps one page per process, as the supervisor
 * expects.  getdents64 rather than opendir(), which allocates: this may
 * run in a signal handler.
 */
static __attribute__((noinline, cold, unused)) struct causaltop_page *
causaltop_adopt_(int *fdp, struct stat *sb)
{
	struct causaltop_page *page = NULL;
	uint64_t buf[64];		/* linux_dirent64 records */
	unsigned short reclen;
	long n, off;
	int dfd;

	dfd = open("/proc/self/fd", O_RDONLY
#  ifdef O_CLOEXEC
		   | O_CLOEXEC
#  endif
		   );
	if (dfd < 0)
		return NULL;
	while (page == NULL &&
	       (n = causaltop_syscall_(__NR_getdents64, (long)dfd, (long)buf,
				       (long)sizeof(buf))) > 0) {
		for (off = 0; off < n && page == NULL; off += reclen) {
			const char *rec = (const char *)buf + off;
			const char *c = rec + 19;	/* d_name */
			int fd = 0;

			memcpy(&reclen, rec + 16, sizeof(reclen));	/* d_reclen */
			if (reclen == 0)
				break;
			for (; *c >= '0' && *c <= '9' && fd < 1 << 24; c++)
				fd = fd * 10 + (*c - '0');
			if (c == rec + 19 || *c != '\0' || fd == dfd)
				continue;
			page = causaltop_map_ours_(fd, sb);
			if (page != NULL)
				*fdp = fd;
		}
	}
	close(dfd);
	return page;
}

/*
 * Find or make the page.  Only the thread that moved status from NONE to
 * CREATING gets here; it leaves READY or FAILED.  System calls only, and
 * errno is preserved: this may run in a signal handler.
 */
static __attribute__((noinline, cold, unused)) void
causaltop_create_(struct causaltop_state_v1_ *st)
{
	int saved_errno = errno;
	struct causaltop_page *page;
	struct stat sb;
	int fd = -1;
	void *p;

	page = causaltop_adopt_(&fd, &sb);
	if (page == NULL) {
		fd = causaltop_memfd_();
		if (fd < 0)
			goto fail;
		if (fstat(fd, &sb) < 0)
			goto fail_close;
		p = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			goto fail_close;
		page = (struct causaltop_page *)p;
		page->abi_version = CAUSALTOP_ABI_VERSION;
		page->page_size = CAUSALTOP_PAGE_SIZE;
		page->slot_offset = CAUSALTOP_SLOT_OFFSET;
		page->slot_size = sizeof(struct causaltop_slot);
		page->nslots = CAUSALTOP_NSLOTS;
		page->enabled = (uint32_t)causaltop_profiled_();
		page->pid = getpid();
		/* The supervisor may map the page any time: magic goes in last. */
		__atomic_store_n(&page->magic, CAUSALTOP_MAGIC, __ATOMIC_RELEASE);
	}
	st->fd = fd;
	st->pid = page->pid;
	st->dev = (uint64_t)sb.st_dev;
	st->ino = (uint64_t)sb.st_ino;
	st->page = page;
	__atomic_store_n(&st->status, CAUSALTOP_READY_, __ATOMIC_RELEASE);
	errno = saved_errno;
	return;

fail_close:
	close(fd);
fail:
	__atomic_store_n(&st->status, CAUSALTOP_FAILED_, __ATOMIC_RELEASE);
	errno = saved_errno;
}

/*
 * The process's page, made on first use; &nopage if there is none for
 * good.  While another thread makes it, wait (a few system calls): a
 * skipped hit would be a miscount.  NULL only when this is a signal
 * handler that interrupted the making thread itself, which must not wait
 * for itself: that one hit is skipped.  The creator's tid is part of the
 * status, set by the same compare-and-swap, so no handler can see the
 * page being made without knowing by whom.  (Skipping in every thread
 * instead lost a few hundred hits in 160,000 under load: tests/progress.)
 */
static inline struct causaltop_page *
causaltop_page_get_(void)
{
	struct causaltop_state_v1_ *st = &causaltop_state_v1_;
	int status = __atomic_load_n(&st->status, __ATOMIC_ACQUIRE);

	if (status == CAUSALTOP_NONE_) {
		int32_t me = (int32_t) causaltop_syscall_(SYS_gettid);

		if (__atomic_compare_exchange_n(&st->status, &status,
						(me << 2) | CAUSALTOP_CREATING_, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			causaltop_create_(st);
		status = __atomic_load_n(&st->status, __ATOMIC_ACQUIRE);
	}
	if ((status & 3) == CAUSALTOP_CREATING_) {
		int saved_errno = errno;

		if ((int32_t) causaltop_syscall_(SYS_gettid) == status >> 2)
			return NULL;
		while (((status = __atomic_load_n(&st->status, __ATOMIC_ACQUIRE)) & 3) ==
		       CAUSALTOP_CREATING_)
			causaltop_syscall_(SYS_sched_yield);
		errno = saved_errno;
	}
	if (status == CAUSALTOP_READY_)
		return st->page;
	if (status == CAUSALTOP_FAILED_)
		return &st->nopage;
	return NULL;
}

/*
 * Claim the next free slot, lock-free; NULL when all are taken.  A CAS
 * loop rather than a fetch-and-add keeps page->used <= nslots, and lets
 * causaltop_slot_unclaim_() hand back a slot nobody has seen.
 */
static inline struct causaltop_slot *
causaltop_slot_claim_(struct causaltop_page *page)
{
	uint32_t idx = __atomic_load_n(&page->used, __ATOMIC_RELAXED);

	do {
		if (idx >= CAUSALTOP_NSLOTS)
			return NULL;
	} while (!__atomic_compare_exchange_n(&page->used, &idx, idx + 1, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return causaltop_slot_at_(page, idx);
}

/*
 * Give back a claimed slot that was never published, if no later slot has
 * been claimed since; otherwise it stays unused (ready == 0) for good.
 */
static inline void
causaltop_slot_unclaim_(struct causaltop_page *page, struct causaltop_slot *slot)
{
	uint32_t idx = (uint32_t)(((size_t)((char *)slot - (char *)page) -
				   CAUSALTOP_SLOT_OFFSET) / sizeof(*slot));
	uint32_t next = idx + 1;

	__atomic_compare_exchange_n(&page->used, &next, idx, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Name a claimed slot and publish it to the supervisor. */
static inline void
causaltop_slot_publish_(struct causaltop_slot *slot, uint32_t kind,
			const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i < CAUSALTOP_NAME_MAX - 1; i++)
		slot->name[i] = name[i];
	slot->name[i] = '\0';
	slot->kind = kind;
	__atomic_store_n(&slot->ready, 1, __ATOMIC_RELEASE);
}

/*
 * A call site's first use: returns the page to count in (possibly
 * &nopage) with site->slot set, or NULL to skip this hit.  Threads (or a
 * signal handler and the code it interrupted) may race here for the same
 * site: each claims a slot, one wins the CAS on site->slot, and the
 * others hand theirs back and count in the winner's, so no hit is lost.
 */
static __attribute__((noinline, cold, unused)) struct causaltop_page *
causaltop_site_init_(struct causaltop_site_ *site, uint32_t kind,
		     const char *name)
{
	struct causaltop_page *page = causaltop_page_get_();
	struct causaltop_slot *slot, *winner = NULL;

	if (page == NULL)
		return NULL;
	if (page == &causaltop_state_v1_.nopage)
		goto out;
	slot = causaltop_slot_claim_(page);
	if (slot == NULL) {
		/* Out of slots: this site does not count. */
		page = &causaltop_state_v1_.nopage;
		goto out;
	}
	if (__atomic_compare_exchange_n(&site->slot, &winner, slot, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		causaltop_slot_publish_(slot, kind, name);
	else
		causaltop_slot_unclaim_(page, slot);
out:
	__atomic_store_n(&site->page, page, __ATOMIC_RELEASE);
	return page;
}

/* The hot path: everything the macros expand to, bar the site's static. */
static inline void
causaltop_hit_(struct causaltop_site_ *site, uint32_t kind, const char *name)
{
	struct causaltop_page *page = __atomic_load_n(&site->page, __ATOMIC_ACQUIRE);

	if (__builtin_expect(page == NULL, 0)) {
		page = causaltop_site_init_(site, kind, name);
		if (page == NULL)
			return;
	}
	/* An atomic load, so that a loop cannot hoist it: the supervisor flips it. */
	if (__atomic_load_n(&page->enabled, __ATOMIC_RELAXED))
		__atomic_fetch_add(&__atomic_load_n(&site->slot, __ATOMIC_RELAXED)->count,
				   1, __ATOMIC_RELAXED);
}

/*
 * In a fork child: give the child a page of its own, so that its counts
 * do not land in its parent's.  The copy is mapped over the old mapping's
 * address, so that every site's cached pointers stay valid, and keeps the
 * slots' names; its counts restart at 0 (so that a supervisor counting the
 * child from its start does not count the parent's hits again), and it is
 * enabled only if the environment says the supervisor launched us.
 * System calls only: a child of a threaded process may do no more.
 *
 * Several modules may each have registered this handler, and may share
 * the page and its fd (or not): the first to run for a shared page makes
 * the child's, on the parent's fd number; the others find it there and
 * map it over their own mapping of the old one.
 */
static void
causaltop_atfork_child_(void)
{
	struct causaltop_state_v1_ *st = &causaltop_state_v1_;
	struct causaltop_page *page = st->page, *p2;
	int saved_errno = errno;
	int oldfd = -1, newfd = -1;
	int32_t pid = getpid();
	void *p = MAP_FAILED;
	size_t done = 0;
	struct stat sb;
	uint32_t i;

	if ((st->status & 3) == CAUSALTOP_CREATING_) {
		/* Its maker was another thread, which the child lacks. */
		st->status = CAUSALTOP_NONE_;
		goto out;
	}
	if (st->status != CAUSALTOP_READY_ || st->pid == pid)
		goto out;

	p2 = causaltop_map_ours_(st->fd, &sb);
	if (p2 != NULL) {
		/* Another module's handler has made the child's page. */
		munmap(p2, CAUSALTOP_PAGE_SIZE);
		p = mmap(page, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, st->fd, 0);
		if (p == MAP_FAILED)
			goto fallback;
		goto done;
	}

	/* Touch the fd only if it still is the parent's page: the program
	   may have closed it and reused the number. */
	if (fstat(st->fd, &sb) == 0 && (uint64_t)sb.st_dev == st->dev &&
	    (uint64_t)sb.st_ino == st->ino)
		oldfd = st->fd;

	newfd = causaltop_memfd_();
	if (newfd < 0)
		goto fallback;
	while (done < CAUSALTOP_PAGE_SIZE) {
		ssize_t n = write(newfd, (char *)page + done,
				  CAUSALTOP_PAGE_SIZE - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			goto fallback;
		}
		done += (size_t)n;
	}
	if (fstat(newfd, &sb) < 0)
		goto fallback;
	p = mmap(page, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, newfd, 0);
	if (p == MAP_FAILED)
		goto fallback;

	for (i = 0; i < page->used && i < CAUSALTOP_NSLOTS; i++)
		causaltop_slot_at_(page, i)->count = 0;
	page->enabled = (uint32_t)causaltop_profiled_();
	/* Last: from now on, the other modules' handlers take it for the child's. */
	page->pid = pid;
	/*
	 * On the parent's fd number, so that the child's descriptors are
	 * numbered as they would be without us, and the other modules find
	 * it.  dup2() clears close-on-exec.
	 */
	if (oldfd >= 0 && dup2(newfd, oldfd) == oldfd &&
	    fcntl(oldfd, F_SETFD, FD_CLOEXEC) == 0) {
		close(newfd);
		newfd = oldfd;
	} else if (oldfd >= 0) {
		close(oldfd);
	}
	st->fd = newfd;
done:
	st->dev = (uint64_t)sb.st_dev;
	st->ino = (uint64_t)sb.st_ino;
	st->pid = pid;
	goto out;

fallback:
	/*
	 * No page of its own: a private mapping keeps the cached pointers
	 * valid without writing into the parent's counts, and counting is
	 * off for good.  The parent's fd is closed, so that nobody takes the
	 * parent's page for the child's.
	 */
	if (newfd >= 0)
		close(newfd);
	p = MAP_FAILED;
	if (oldfd >= 0) {
		p = mmap(page, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, oldfd, 0);
		close(oldfd);
	}
#  ifdef MAP_ANONYMOUS
	if (p == MAP_FAILED)
		p = mmap(page, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
#  endif
	if (p != MAP_FAILED)
		page->enabled = 0;
	st->fd = -1;
	st->pid = pid;
	st->status = CAUSALTOP_FAILED_;
out:
	errno = saved_errno;
}

/*
 * Every module registers the fork handler once, at load time, rather than
 * the page's creator at creation: creation may happen in a signal handler,
 * where pthread_atfork() (which locks and allocates) may not be called.
 * And if the module that registered it is unloaded, the others' still run.
 * If registering fails, counting is turned off, rather than let a child
 * count into its parent's page.
 */
static void __attribute__((constructor))
causaltop_register_atfork_(void)
{
	int none = CAUSALTOP_NONE_;

	if (__atomic_exchange_n(&causaltop_atfork_v1_, 1, __ATOMIC_RELAXED))
		return;
	if (pthread_atfork(NULL, NULL, causaltop_atfork_child_) != 0)
		__atomic_compare_exchange_n(&causaltop_state_v1_.status, &none,
					    CAUSALTOP_FAILED_, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

#  ifdef __cplusplus
}
#  endif

# endif /* !CAUSALTOP_DISABLE */
#endif /* CAUSALTOP_H */
