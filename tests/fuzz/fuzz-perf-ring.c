/*
 * libFuzzer harness of the perf ring reader and the sample parser.
 * Input: data_head (8 bytes), data_tail (8), sample_type (8), the ring's
 * size as a power of two (1 byte: 64 to 4096 bytes), then the ring's
 * bytes.  Every record delivered is parsed; a parsed callchain and stack
 * copy are read whole (ASan checks they lie within the record).
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perf_ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
on_record(void *ctx, const struct perf_event_header *rec)
{
	uint64_t type = *(const uint64_t *) ctx;
	volatile uint64_t sum = 0;
	struct ct_sample s;

	if (!perf_parse_sample(rec, type, &s))
		return;
	for (uint64_t i = 0; i < s.nr; i++) {
		uint64_t v;

		memcpy(&v, s.chain + i, sizeof(v));
		sum += v;
	}
	for (uint64_t i = 0; i < s.stack_size; i++)
		sum += s.stack[i];
	sum += s.ip + s.pid + s.tid + s.time + s.cpu + s.regs_abi + s.regs[CT_REG_SP];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *meta;
	struct perf_ring r;
	unsigned char *ring;
	uint64_t type;
	size_t dsz;

	if (size < 25)
		return 0;
	meta = calloc(1, sizeof(*meta));
	memcpy(&meta->data_head, data, 8);
	memcpy(&meta->data_tail, data + 8, 8);
	/* The sample_type bits the parser knows, so that layouts vary. */
	memcpy(&type, data + 16, 8);
	dsz = (size_t) 64 << (data[24] % 7);
	/* Exactly dsz bytes: reading past the ring is an ASan error. */
	ring = calloc(1, dsz);
	memcpy(ring, data + 25, size - 25 < dsz ? size - 25 : dsz);
	perf_ring_init(&r, meta, ring, dsz);
	perf_ring_read(&r, on_record, &type);
	perf_ring_fini(&r);
	free(ring);
	free(meta);
	return 0;
}
