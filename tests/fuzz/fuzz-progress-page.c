/*
 * libFuzzer harness of the progress page reader (src/perf/progress.c), on a
 * real sealed memfd of this process, found as causaltop finds a
 * target's.  Input: a flags byte, then bytes laid over a valid page
 * (from offset 0 if flags bit 0, else over the slots only, keeping the
 * header valid), and after a 0xff 0xff separator, writes (offset 2
 * bytes, value 8 bytes) made between polls: a target that changes the
 * page under the reader.
 */
#define _GNU_SOURCE
#include "config.h"
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "causaltop_abi.h"
#include "perf/progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
template(unsigned char *page)
{
	struct causaltop_page *h = (void *) page;

	memset(page, 0, CAUSALTOP_PAGE_SIZE);
	h->magic = CAUSALTOP_MAGIC;
	h->abi_version = CAUSALTOP_ABI_VERSION;
	h->page_size = CAUSALTOP_PAGE_SIZE;
	h->slot_offset = CAUSALTOP_SLOT_OFFSET;
	h->slot_size = sizeof(struct causaltop_slot);
	h->nslots = CAUSALTOP_NSLOTS;
	h->used = 4;
	h->pid = getpid();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = NULL, *body, *end = data + size;
	struct progress_table *t;
	struct progress_page *pg;
	unsigned char *page;
	size_t off, len;
	int fd;

	if (size < 1)
		return 0;
	for (const uint8_t *q = data + 1; q + 1 < end; q++)
		if (q[0] == 0xff && q[1] == 0xff) {
			sep = q;
			break;
		}
	body = data + 1;
	len = (size_t) ((sep ? sep : end) - body);
	fd = memfd_create(CAUSALTOP_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, CAUSALTOP_PAGE_SIZE) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		abort();
	page = mmap(NULL, CAUSALTOP_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED)
		abort();
	template(page);
	off = data[0] & 1 ? 0 : CAUSALTOP_SLOT_OFFSET;
	if (len > CAUSALTOP_PAGE_SIZE - off)
		len = CAUSALTOP_PAGE_SIZE - off;
	memcpy(page + off, body, len);

	t = progress_table_new();
	pg = progress_page_find(getpid(), data[0] & 2, data[0] & 4);
	progress_page_poll(t, pg);
	for (const uint8_t *w = sep ? sep + 2 : end; w + 10 <= end; w += 10) {
		uint64_t v;
		uint16_t o;

		memcpy(&o, w, 2);
		memcpy(&v, w + 2, 8);
		memcpy(page + (o % (CAUSALTOP_PAGE_SIZE / 8)) * 8, &v, 8);
		progress_page_poll(t, pg);
	}
	progress_page_close(t, pg);
	progress_table_free(t);
	munmap(page, CAUSALTOP_PAGE_SIZE);
	close(fd);
	return 0;
}
