#include "config.h"
#include <string.h>
#include <stdlib.h>
#include "base/xmalloc.h"
#include "perf/perf_ring.h"

void
perf_ring_init(struct perf_ring *r, struct perf_event_mmap_page *meta,
	       unsigned char *data, size_t data_size)
{
	r->meta = meta;
	r->data = data;
	r->data_size = data_size;
	r->scratch = xmalloc(data_size);
	r->bad_records = 0;
}

void
perf_ring_fini(struct perf_ring *r)
{
	free(r->scratch);
	r->scratch = NULL;
}

size_t
perf_ring_read(struct perf_ring *r, perf_ring_cb cb, void *ctx)
{
	/* Pairs with the kernel's store of data_head after writing records. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	uint64_t start = tail;
	size_t mask = r->data_size - 1;
	size_t n = 0;

	while (tail < head) {
		size_t off = tail & mask;
		struct perf_event_header hdr;
		const struct perf_event_header *rec;

		/* The header itself may straddle the end of the buffer. */
		if (off + sizeof(hdr) <= r->data_size) {
			memcpy(&hdr, r->data + off, sizeof(hdr));
		} else {
			size_t first = r->data_size - off;

			memcpy(&hdr, r->data + off, first);
			memcpy((char *) &hdr + first, r->data, sizeof(hdr) - first);
		}
		/*
		 * One read never goes round the ring more than once: a head
		 * further than that is not the kernel's (found by fuzzing).
		 */
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail ||
		    hdr.size > r->data_size || tail - start + hdr.size > r->data_size) {
			/* Cannot resynchronize inside a ring: drop the rest. */
			r->bad_records++;
			tail = head;
			break;
		}
		/* The kernel's records are 8-byte aligned; others are copied. */
		if (off + hdr.size <= r->data_size && off % 8 == 0) {
			rec = (const void *) (r->data + off);
		} else if (off + hdr.size <= r->data_size) {
			memcpy(r->scratch, r->data + off, hdr.size);
			rec = (const void *) r->scratch;
		} else {
			size_t first = r->data_size - off;

			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, hdr.size - first);
			rec = (const void *) r->scratch;
		}
		cb(ctx, rec);
		tail += hdr.size;
		n++;
	}
	/* Tell the kernel the space is free only after we are done reading. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

bool
perf_parse_sample(const struct perf_event_header *hdr, uint64_t sample_type,
		  struct ct_sample *s)
{
	const unsigned char *p = (const void *) (hdr + 1);
	const unsigned char *end = (const unsigned char *) hdr + hdr->size;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	/* Else end - p is negative, and every length check below passes. */
	if (hdr->size < sizeof(*hdr))
		return false;
# define TAKE(dst) do { \
		if ((size_t) (end - p) < sizeof(dst)) \
			return false; \
		memcpy(&(dst), p, sizeof(dst)); \
		p += sizeof(dst); \
	} while (0)
	/* Field order is fixed by the ABI (linux/perf_event.h). */
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		TAKE(v);
	if (sample_type & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (sample_type & PERF_SAMPLE_TID) {
		TAKE(s->pid);
		TAKE(s->tid);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (sample_type & PERF_SAMPLE_ADDR)
		TAKE(v);
	if (sample_type & PERF_SAMPLE_ID)
		TAKE(v);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		TAKE(v);
	if (sample_type & PERF_SAMPLE_CPU) {
		uint32_t res;

		TAKE(s->cpu);
		TAKE(res);
	}
	if (sample_type & PERF_SAMPLE_PERIOD)
		TAKE(v);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		TAKE(s->nr);
		if (s->nr > (size_t) (end - p) / sizeof(uint64_t))
			return false;
		s->chain = (const uint64_t *) p;
		p += s->nr * sizeof(uint64_t);
	}
	/* No PERF_SAMPLE_RAW nor BRANCH_STACK: they would come here. */
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		TAKE(s->regs_abi);
		/* ABI_NONE (a kernel thread): no registers follow. */
		if (s->regs_abi)
			TAKE(s->regs);
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;

		TAKE(size);
		/* Size 0 (no user stack): neither data nor dyn_size follow. */
		if (size) {
			if (size > (size_t) (end - p))
				return false;
			s->stack = p;
			p += size;
			TAKE(dyn);
			/* dyn_size: how much of the copy is stack, the rest zeroes. */
			s->stack_size = dyn < size ? dyn : size;
		}
	}
# undef TAKE
	(void) v;
	return true;
}
