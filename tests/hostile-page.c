/*
 * hostile-page MODE: publish a progress page that is wrong in one way,
 * bump what can be bumped for 0.4 s, exit 0.  causaltop must survive every
 * mode with a warning, and never harm the target.
 *   magic      wrong magic number
 *   size       a page of the wrong size
 *   unsealed   a good page that could be shrunk under the reader
 *   nslots     nslots and used far past what fits; two good slots
 *   name       a slot name without its NUL
 *   kind       a slot of unknown kind, and a good one
 *   backwards  a count that goes down, then up again: once causaltop has
 *              enabled the page, count for 0.3 s, drop to 5, hold 0.3 s
 *              (so that polls see both sides), then count on
 *   scribble   a good page, then random bytes all over it, repeatedly
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "causaltop_abi.h"
#include "tests.h"

static struct causaltop_slot *
slot(void *page, unsigned i)
{
	return (struct causaltop_slot *) ((char *) page + CAUSALTOP_SLOT_OFFSET) + i;
}

static void
publish(void *page, unsigned i, uint32_t kind, const char *name)
{
	struct causaltop_slot *s = slot(page, i);

	s->kind = kind;
	strncpy(s->name, name, sizeof(s->name) - 1);
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "magic";
	size_t size = strcmp(mode, "size") ? CAUSALTOP_PAGE_SIZE : 4096;
	int fd = memfd_create(CAUSALTOP_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct causaltop_page *h;
	double end;
	unsigned seed = 1;

	if (fd < 0 || ftruncate(fd, size) < 0)
		fail_exit(99, "memfd");
	if (strcmp(mode, "unsealed") &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		fail_exit(99, "seals");
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		fail_exit(99, "mmap");
	h->magic = strcmp(mode, "magic") ? CAUSALTOP_MAGIC : 0xdeadbeef;
	h->abi_version = CAUSALTOP_ABI_VERSION;
	h->page_size = CAUSALTOP_PAGE_SIZE;
	h->slot_offset = CAUSALTOP_SLOT_OFFSET;
	h->slot_size = sizeof(struct causaltop_slot);
	h->nslots = CAUSALTOP_NSLOTS;
	h->pid = getpid();
	if (size == CAUSALTOP_PAGE_SIZE) {
		publish(h, 0, CAUSALTOP_KIND_THROUGHPUT, "good");
		if (!strcmp(mode, "name")) {
			memset(slot(h, 1)->name, 'A', sizeof(slot(h, 1)->name));
			slot(h, 1)->kind = CAUSALTOP_KIND_THROUGHPUT;
			__atomic_store_n(&slot(h, 1)->ready, 1, __ATOMIC_RELEASE);
		} else if (!strcmp(mode, "kind")) {
			publish(h, 1, 77, "strange");
		} else {
			publish(h, 1, CAUSALTOP_KIND_THROUGHPUT, "second");
		}
		__atomic_store_n(&h->used, 2, __ATOMIC_RELEASE);
		if (!strcmp(mode, "nslots")) {
			h->nslots = 0xffffffffu;
			__atomic_store_n(&h->used, 0xffffffffu, __ATOMIC_RELEASE);
		}
	}

	if (!strcmp(mode, "backwards")) {
		double t = mono_now() + 10;

		/* Found and enabled by causaltop: its polls start now. */
		while (!__atomic_load_n(&h->enabled, __ATOMIC_ACQUIRE) && mono_now() < t)
			;
		for (t = mono_now() + 0.3; mono_now() < t; )
			__atomic_fetch_add(&slot(h, 0)->count, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&slot(h, 0)->count, 5, __ATOMIC_RELAXED);
		for (t = mono_now() + 0.3; mono_now() < t; )
			;
	}
	end = mono_now() + 0.4;
	while (mono_now() < end) {
		if (size != CAUSALTOP_PAGE_SIZE)
			continue;
		if (!strcmp(mode, "scribble") && mono_now() > end - 0.25) {
			unsigned char *p = (unsigned char *) h;

			for (size_t k = 0; k < CAUSALTOP_PAGE_SIZE; k++)
				p[k] = (unsigned char) rand_r(&seed);
			continue;
		}
		__atomic_fetch_add(&slot(h, 0)->count, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&slot(h, 1)->count, 1, __ATOMIC_RELAXED);
	}
	return 0;
}
