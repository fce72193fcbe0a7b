#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "causaltop_abi.h"
#include "perf/progress.h"

#define MEMFD_LINK "/memfd:" CAUSALTOP_MEMFD_NAME " (deleted)"
#define KIND_MASK 0xffu
#define COZ_SHIM_NAME "libcausaltop-coz.so"

struct progress_table {
	struct progress_point **v;
	size_t n, cap;
};

/* What we remember of one slot of the page. */
struct slot_state {
	bool known;			/* kind and name taken */
	bool bad;			/* refused: warned once */
	bool warned_backwards;
	uint64_t last;			/* count at the last poll */
	struct progress_point *point;
	bool arrivals;			/* a BEGIN slot of a latency point */
};

struct progress_page {
	pid_t pid;
	int fd;
	unsigned char *map;
	const struct causaltop_page *hdr;
	uint32_t nslots;		/* validated capacity */
	uint32_t slot_offset;
	bool from_zero;			/* counts before we came are ours */
	struct slot_state *slots;
};

/*
 * The relative path from directory `from` to `to`, both absolute:
 * "/usr/bin" to "/usr/lib/causaltop" is "../lib/causaltop".  Malloc'ed.
 */
static char *
relative_dir(const char *from, const char *to)
{
	size_t common = 0, ups = 0, len;
	const char *rest;
	char *out;

	/* The longest common prefix made of whole components. */
	for (size_t i = 0;; i++) {
		bool end_f = !from[i] || from[i] == '/', end_t = !to[i] || to[i] == '/';

		if (end_f && end_t)
			common = i;
		if (!from[i] || !to[i] || from[i] != to[i])
			break;
	}
	for (const char *c = from + common; *c; c++)
		if (*c == '/' && c[1] && c[1] != '/')
			ups++;
	rest = to + common;
	while (*rest == '/')
		rest++;
	len = 3 * ups + strlen(rest) + 2;
	out = xmalloc(len);
	out[0] = 0;
	for (size_t i = 0; i < ups; i++)
		strcat(out, "../");
	strcat(out, *rest ? rest : ".");
	return out;
}

/*
 * Beside the binary (a build tree); else where the install put it
 * relative to the binary, so that a staged (DESTDIR) or moved install
 * works; else where configure said.
 */
char *
progress_coz_shim_path(void)
{
	char exe[4096], *slash, *path, *rel;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = 0;
		if ((slash = strrchr(exe, '/'))) {
			*slash = 0;
			path = xasprintf("%s/" COZ_SHIM_NAME, exe);
			if (access(path, R_OK) == 0)
				return path;
			free(path);
			rel = relative_dir(CT_BIN_DIR, CT_PRELOAD_DIR);
			path = xasprintf("%s/%s/" COZ_SHIM_NAME, exe, rel);
			free(rel);
			if (access(path, R_OK) == 0)
				return path;
			free(path);
		}
	}
	path = xstrdup(CT_PRELOAD_DIR "/" COZ_SHIM_NAME);
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

struct progress_table *
progress_table_new(void)
{
	return xcalloc(1, sizeof(struct progress_table));
}

void
progress_table_free(struct progress_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i]->name);
		free(t->v[i]);
	}
	free(t->v);
	free(t);
}

struct progress_point *
progress_point(struct progress_table *t, const char *name, enum progress_kind kind,
	       const char *source)
{
	struct progress_point *p;

	/* Few points: a linear search is the simplest fast enough thing. */
	for (size_t i = 0; i < t->n; i++) {
		p = t->v[i];
		if (p->kind == kind && !strcmp(p->name, name) && !strcmp(p->source, source))
			return p;
	}
	if (t->n == t->cap)
		t->v = xgrowarray(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	p = xcalloc(1, sizeof(*p));
	p->name = xstrdup(name);
	p->kind = kind;
	p->source = source;
	p->id = (unsigned) t->n;
	t->v[t->n++] = p;
	return p;
}

struct progress_point *const *
progress_points(const struct progress_table *t, size_t *n)
{
	*n = t->n;
	return t->v;
}

static uint32_t
load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* An aligned 64-bit atomic load cannot tear, whatever the writer does. */
static uint64_t
load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Map and check one candidate fd; NULL (with a warning) if unusable. */
static struct progress_page *
page_open(pid_t pid, const char *fdpath, bool enable, bool from_zero)
{
	struct progress_page *pg;
	const struct causaltop_page *h;
	struct stat st;
	void *map;
	int fd, seals;

	fd = open(fdpath, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror_msg("cannot open the progress page of process %d (%s)", (int) pid, fdpath);
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != CAUSALTOP_PAGE_SIZE) {
		error_msg("warning: process %d has a malformed progress page (size %lld, want %u): "
			  "ignored", (int) pid, (long long) st.st_size, CAUSALTOP_PAGE_SIZE);
		close(fd);
		return NULL;
	}
	/* Only a page that cannot shrink can be mapped without risking SIGBUS. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		error_msg("warning: the progress page of process %d is not sealed against "
			  "shrinking: ignored", (int) pid);
		close(fd);
		return NULL;
	}
	map = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror_msg("cannot map the progress page of process %d", (int) pid);
		close(fd);
		return NULL;
	}
	h = map;
	if (h->magic != CAUSALTOP_MAGIC || h->abi_version != CAUSALTOP_ABI_VERSION ||
	    h->page_size != CAUSALTOP_PAGE_SIZE || h->slot_size != sizeof(struct causaltop_slot) ||
	    h->slot_offset < sizeof(struct causaltop_page) || h->slot_offset % 8 ||
	    h->slot_offset > CAUSALTOP_PAGE_SIZE) {
		error_msg("warning: process %d has a malformed progress page (magic %#llx, "
			  "version %u): ignored", (int) pid, (unsigned long long) h->magic,
			  h->abi_version);
		munmap(map, CAUSALTOP_PAGE_SIZE);
		close(fd);
		return NULL;
	}
	pg = xcalloc(1, sizeof(*pg));
	pg->pid = pid;
	pg->fd = fd;
	pg->map = map;
	pg->hdr = h;
	pg->slot_offset = h->slot_offset;
	/* Capacity from what fits, whatever nslots claims. */
	pg->nslots = (CAUSALTOP_PAGE_SIZE - pg->slot_offset) / sizeof(struct causaltop_slot);
	if (h->nslots < pg->nslots)
		pg->nslots = h->nslots;
	else if (h->nslots > pg->nslots)
		error_msg("warning: the progress page of process %d claims %u slots, "
			  "only %u fit", (int) pid, h->nslots, pg->nslots);
	pg->slots = xcalloc(pg->nslots ? pg->nslots : 1, sizeof(*pg->slots));
	pg->from_zero = from_zero;
	if (enable)
		__atomic_store_n(&((struct causaltop_page *) map)->enabled, 1, __ATOMIC_RELEASE);
	return pg;
}

struct progress_page *
progress_page_find(pid_t pid, bool enable, bool from_zero)
{
	char dirpath[64], fdpath[64 + sizeof(((struct dirent *) 0)->d_name)];
	char target[sizeof(MEMFD_LINK) + 1];
	struct progress_page *pg = NULL;
	struct dirent *de;
	DIR *d;

	snprintf(dirpath, sizeof(dirpath), "/proc/%d/fd", (int) pid);
	if (!(d = opendir(dirpath)))
		return NULL;
	while (!pg && (de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", dirpath, de->d_name);
		n = readlink(fdpath, target, sizeof(target) - 1);
		if (n != (ssize_t) sizeof(MEMFD_LINK) - 1)
			continue;
		target[n] = 0;
		if (strcmp(target, MEMFD_LINK))
			continue;
		pg = page_open(pid, fdpath, enable, from_zero);
		if (!pg)
			break;	/* one page per process: warned about already */
	}
	closedir(d);
	if (pg)
		debug_msg("progress page of process %d found", (int) pid);
	return pg;
}

/* Take kind and name of a slot the target has published. */
static void
slot_learn(struct progress_table *t, struct progress_page *pg, uint32_t i,
	   const struct causaltop_slot *sl)
{
	struct slot_state *ss = &pg->slots[i];
	uint32_t kind = load32(&sl->kind);
	char name[CAUSALTOP_NAME_MAX];
	const char *source = kind & CAUSALTOP_KIND_FROM_COZ ? "coz shim" : "page";

	memcpy(name, sl->name, sizeof(name));
	if (!memchr(name, 0, sizeof(name))) {
		error_msg("warning: process %d: progress slot %u has an unterminated name",
			  (int) pg->pid, i);
		name[sizeof(name) - 1] = 0;
	}
	switch (kind & KIND_MASK) {
	case CAUSALTOP_KIND_THROUGHPUT:
		ss->point = progress_point(t, name, PROGRESS_THROUGHPUT, source);
		break;
	case CAUSALTOP_KIND_BEGIN:
	case CAUSALTOP_KIND_END:
		ss->point = progress_point(t, name, PROGRESS_LATENCY, source);
		ss->arrivals = (kind & KIND_MASK) == CAUSALTOP_KIND_BEGIN;
		break;
	default:
		error_msg("warning: process %d: progress slot %u has unknown kind %u: ignored",
			  (int) pg->pid, i, kind);
		ss->bad = true;
		return;
	}
	ss->known = true;
}

void
progress_page_poll(struct progress_table *t, struct progress_page *pg)
{
	uint32_t used;

	if (!pg)
		return;
	used = load32(&pg->hdr->used);
	if (used > pg->nslots) {
		/* Claims past the end are how the header reports "full". */
		used = pg->nslots;
	}
	for (uint32_t i = 0; i < used; i++) {
		const struct causaltop_slot *sl = (const void *)
			(pg->map + pg->slot_offset + (size_t) i * sizeof(*sl));
		struct slot_state *ss = &pg->slots[i];
		uint64_t now;

		if (ss->bad)
			continue;
		if (!ss->known) {
			if (load32(&sl->ready) != 1)
				continue;	/* claimed, not yet published */
			slot_learn(t, pg, i, sl);
			if (!ss->known)
				continue;
			/*
			 * With -p, what it counted before we came is not ours;
			 * a command we launched counted for us from its start.
			 */
			ss->last = pg->from_zero ? 0 : load64(&sl->count);
		}
		now = load64(&sl->count);
		if (now < ss->last) {
			if (!ss->warned_backwards)
				error_msg("warning: process %d: progress point '%s' went backwards "
					  "(%llu after %llu): decreases ignored", (int) pg->pid,
					  ss->point->name, (unsigned long long) now,
					  (unsigned long long) ss->last);
			ss->warned_backwards = true;
			ss->last = now;
			continue;
		}
		if (ss->arrivals)
			ss->point->arrivals += now - ss->last;
		else
			ss->point->count += now - ss->last;
		ss->last = now;
	}
}

void
progress_page_close(struct progress_table *t, struct progress_page *pg)
{
	if (!pg)
		return;
	progress_page_poll(t, pg);
	/* Stop the target paying for increments nobody reads. */
	__atomic_store_n(&((struct causaltop_page *) pg->map)->enabled, 0, __ATOMIC_RELEASE);
	munmap(pg->map, CAUSALTOP_PAGE_SIZE);
	close(pg->fd);
	free(pg->slots);
	free(pg);
}
