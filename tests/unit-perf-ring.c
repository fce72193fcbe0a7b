/*
 * Unit test of src/perf/perf_ring.c on synthetic rings: a fake
 * perf_event_mmap_page and a 256-byte data area allocated to its exact
 * size, so that AddressSanitizer catches any read past either end.
 * Records in order, records and headers wrapping around the end of the
 * buffer, data_tail catching up with data_head, malformed headers, and
 * perf_parse_sample on whole, truncated and lying records.
 */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perf/perf_ring.h"
#include "unit.h"

#define DATA_SIZE 256
#define MAX_RECS 16

/* A ring, its writer's state, and what the reader delivered. */
struct fake {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	struct perf_ring ring;
	size_t nrecs;
	unsigned char *recs[MAX_RECS];	/* copies of delivered records */
	size_t rec_size[MAX_RECS];
};

static void
fake_init(struct fake *f, uint64_t pos)
{
	memset(f, 0, sizeof(*f));
	f->meta = calloc(1, sizeof(*f->meta));
	/* Exact size: any access past the end is an ASan error. */
	f->data = malloc(DATA_SIZE);
	if (!f->meta || !f->data) {
		perror("malloc");
		exit(99);
	}
	/* Poison, so that stale bytes never pass for a valid record. */
	memset(f->data, 0xa5, DATA_SIZE);
	f->meta->data_head = pos;
	f->meta->data_tail = pos;
	perf_ring_init(&f->ring, f->meta, f->data, DATA_SIZE);
}

static void
fake_reset_delivered(struct fake *f)
{
	for (size_t i = 0; i < f->nrecs; i++)
		free(f->recs[i]);
	f->nrecs = 0;
}

static void
fake_fini(struct fake *f)
{
	fake_reset_delivered(f);
	perf_ring_fini(&f->ring);
	free(f->meta);
	free(f->data);
}

/* Append len bytes at data_head, wrapping as the kernel does. */
static void
fake_write(struct fake *f, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t head = f->meta->data_head;

	for (size_t i = 0; i < len; i++)
		f->data[(head + i) & (DATA_SIZE - 1)] = p[i];
	f->meta->data_head = head + len;
}

/* A record of type and size whose payload bytes are seed, seed+1, ... */
static unsigned char *
make_record(uint32_t type, uint16_t size, unsigned char seed)
{
	unsigned char *rec = malloc(size);
	struct perf_event_header hdr = { .type = type, .misc = 0, .size = size };

	if (!rec) {
		perror("malloc");
		exit(99);
	}
	memcpy(rec, &hdr, sizeof(hdr));
	for (size_t i = sizeof(hdr); i < size; i++)
		rec[i] = (unsigned char) (seed + i);
	return rec;
}

static void
collect(void *ctx, const struct perf_event_header *rec)
{
	struct fake *f = ctx;
	size_t size = rec->size;

	if (f->nrecs == MAX_RECS) {
		fprintf(stderr, "unit-perf-ring: too many records delivered\n");
		exit(1);
	}
	f->recs[f->nrecs] = malloc(size);
	if (!f->recs[f->nrecs]) {
		perror("malloc");
		exit(99);
	}
	/* Reads the whole record: ASan checks it lies in valid memory. */
	memcpy(f->recs[f->nrecs], rec, size);
	f->rec_size[f->nrecs] = size;
	f->nrecs++;
}

static void
check_tail_caught_up(const struct fake *f, const char *what)
{
	CHECK(f->meta->data_tail == f->meta->data_head,
	      "%s: data_tail %" PRIu64 " != data_head %" PRIu64, what,
	      (uint64_t) f->meta->data_tail, (uint64_t) f->meta->data_head);
}

/* Write records of the given sizes from pos, read, compare. */
static void
roundtrip(const char *what, uint64_t pos, const uint16_t *sizes, size_t n)
{
	struct fake f;
	unsigned char *want[MAX_RECS];
	size_t got;

	fake_init(&f, pos);
	for (size_t i = 0; i < n; i++) {
		want[i] = make_record(PERF_RECORD_SAMPLE + (uint32_t) i, sizes[i],
				      (unsigned char) (17 * i + 1));
		fake_write(&f, want[i], sizes[i]);
	}
	got = perf_ring_read(&f.ring, collect, &f);
	CHECK(got == n, "%s: perf_ring_read returned %zu, want %zu", what, got, n);
	CHECK(f.nrecs == n, "%s: %zu records delivered, want %zu", what, f.nrecs, n);
	for (size_t i = 0; i < n && i < f.nrecs; i++) {
		CHECK(f.rec_size[i] == sizes[i], "%s: record %zu has size %zu, want %u",
		      what, i, f.rec_size[i], (unsigned) sizes[i]);
		CHECK(f.rec_size[i] == sizes[i] && !memcmp(f.recs[i], want[i], sizes[i]),
		      "%s: record %zu delivered with wrong contents", what, i);
	}
	CHECK(f.ring.bad_records == 0, "%s: %" PRIu64 " bad records", what,
	      f.ring.bad_records);
	check_tail_caught_up(&f, what);

	/* Nothing new: nothing delivered, tail unchanged. */
	fake_reset_delivered(&f);
	got = perf_ring_read(&f.ring, collect, &f);
	CHECK(got == 0 && f.nrecs == 0, "%s: second read delivered %zu records",
	      what, got);
	check_tail_caught_up(&f, what);

	for (size_t i = 0; i < n; i++)
		free(want[i]);
	fake_fini(&f);
}

static void
test_in_order(void)
{
	static const uint16_t sizes[] = { 8, 16, 40, 64, 24 };

	roundtrip("in order", 0, sizes, 5);
	/* Positions are free-running 64-bit counters, not offsets. */
	roundtrip("in order, far position", 7 * (uint64_t) DATA_SIZE + 48, sizes, 5);
	roundtrip("in order, near 2^32", (1ULL << 32) - 2 * DATA_SIZE, sizes, 5);
}

static void
test_wrap(void)
{
	/* The second record starts at 224 and ends at 16 (mod 256). */
	static const uint16_t wrap[] = { 24, 48, 16 };
	/* A record as big as the whole buffer, starting mid-way. */
	static const uint16_t whole[] = { DATA_SIZE };
	/* The header itself straddles the end: 4 bytes, then 4 more. */
	static const uint16_t straddle[] = { 20, 36 };
	/* Exactly at the end: the next record starts at offset 0. */
	static const uint16_t edge[] = { 32, 40 };

	roundtrip("record wraps", 200, wrap, 3);
	roundtrip("record wraps, far position", 11 * (uint64_t) DATA_SIZE + 200, wrap, 3);
	roundtrip("record of the buffer's size", 136, whole, 1);
	roundtrip("header straddles the end", 232, straddle, 2);
	roundtrip("header straddles the end by 2 bytes", 254, straddle + 1, 1);
	roundtrip("record ends at the end", 224, edge, 2);
}

/*
 * A ring holding good records, then a malformed header: the good ones
 * are delivered, the bad one counted, the tail moved to the head, and
 * the function returns (an alarm catches an endless loop).
 */
static void
bad_header(const char *what, uint64_t pos, size_t ngood, uint16_t bad_size,
	   size_t bad_extra, uint64_t head_extra)
{
	struct fake f;
	struct perf_event_header hdr = {
		.type = PERF_RECORD_SAMPLE, .misc = 0, .size = bad_size,
	};
	unsigned char junk[64];
	size_t got;

	fake_init(&f, pos);
	for (size_t i = 0; i < ngood; i++) {
		unsigned char *rec = make_record(PERF_RECORD_SAMPLE, 24, (unsigned char) i);

		fake_write(&f, rec, 24);
		free(rec);
	}
	fake_write(&f, &hdr, sizeof(hdr));
	memset(junk, 0, sizeof(junk));
	if (bad_extra > sizeof(junk))
		bad_extra = sizeof(junk);
	fake_write(&f, junk, bad_extra);
	/* A head beyond what was written (a corrupt or lying head). */
	f.meta->data_head += head_extra;

	got = perf_ring_read(&f.ring, collect, &f);
	CHECK(got == ngood && f.nrecs == ngood,
	      "%s: delivered %zu records (returned %zu), want %zu", what,
	      f.nrecs, got, ngood);
	CHECK(f.ring.bad_records == 1, "%s: bad_records %" PRIu64 ", want 1", what,
	      f.ring.bad_records);
	check_tail_caught_up(&f, what);

	/* The ring is usable again afterwards. */
	fake_reset_delivered(&f);
	{
		unsigned char *rec = make_record(PERF_RECORD_SAMPLE, 32, 99);

		fake_write(&f, rec, 32);
		got = perf_ring_read(&f.ring, collect, &f);
		CHECK(got == 1 && f.nrecs == 1 && f.rec_size[0] == 32 &&
		      !memcmp(f.recs[0], rec, 32),
		      "%s: the record after recovery was not delivered intact", what);
		free(rec);
	}
	check_tail_caught_up(&f, what);
	fake_fini(&f);
}

static void
test_bad_headers(void)
{
	bad_header("size 0", 0, 0, 0, 16, 0);
	bad_header("size 0 after good records", 0, 2, 0, 16, 0);
	bad_header("size 0, header straddling the end", 228, 1, 0, 8, 0);
	bad_header("size 4 (shorter than a header)", 0, 1, 4, 16, 0);
	bad_header("size 7 (shorter than a header)", 0, 1, 7, 16, 0);
	bad_header("size larger than head - tail", 0, 1, 64, 16, 0);
	bad_header("size larger than head - tail, wrapped", 200, 1, 120, 24, 0);
	bad_header("size larger than the buffer", 0, 0, 4096, 0, 8192);
	bad_header("size 65535", 100, 1, 65535, 0, 1 << 20);
}

/*
 * head - tail larger than the ring: no kernel writes that, and reading
 * would go round the ring on stale records for as long as the gap is.
 */
static void
count_rec(void *ctx, const struct perf_event_header *rec)
{
	++*(size_t *) ctx;
}

static void
test_overrun(void)
{
	struct fake f;
	unsigned char *rec = make_record(PERF_RECORD_SAMPLE, 16, 0);
	size_t n, seen = 0;

	fake_init(&f, 0);
	for (size_t i = 0; i < DATA_SIZE / 16; i++)
		fake_write(&f, rec, 16);
	f.meta->data_head = (uint64_t) 1 << 40;
	n = perf_ring_read(&f.ring, count_rec, &seen);
	CHECK(n == DATA_SIZE / 16 && seen == n && f.ring.bad_records == 1,
	      "overrun: %zu records, %llu bad", n, (unsigned long long) f.ring.bad_records);
	CHECK(f.meta->data_tail == (uint64_t) 1 << 40, "overrun: tail %llu",
	      (unsigned long long) f.meta->data_tail);
	free(rec);
	fake_fini(&f);
}

/* head - tail smaller than a header: nothing to read past what exists. */
static void
test_short_tail(void)
{
	struct fake f;
	uint32_t partial = 0x10;
	size_t got;

	fake_init(&f, 252);
	fake_write(&f, &partial, sizeof(partial));
	got = perf_ring_read(&f.ring, collect, &f);
	CHECK(got == 0 && f.nrecs == 0, "partial header: %zu records delivered", got);
	check_tail_caught_up(&f, "partial header");
	fake_fini(&f);
}

/* Build a PERF_RECORD_SAMPLE the way the kernel lays it out. */
struct sample_spec {
	uint64_t sample_type;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t nr;			/* the nr field written */
	size_t nchain;			/* entries actually present */
	const uint64_t *chain;
	/* PERF_SAMPLE_REGS_USER and STACK_USER, when in sample_type */
	uint64_t regs_abi;		/* 0: no registers follow */
	uint64_t regs[CT_SAMPLE_NREGS];
	uint64_t stack_size;		/* the size field; 0: nothing follows */
	const unsigned char *stack;	/* stack_size bytes */
	uint64_t dyn_size;
};

/* Bytes the spec's registers and stack take after the callchain. */
static size_t
tail_bytes(const struct sample_spec *sp)
{
	size_t n = 0;

	if (sp->sample_type & PERF_SAMPLE_REGS_USER)
		n += 8 + (sp->regs_abi ? sizeof(sp->regs) : 0);
	if (sp->sample_type & PERF_SAMPLE_STACK_USER)
		n += 8 + (sp->stack_size ? sp->stack_size + 8 : 0);
	return n;
}

static unsigned char *
build_sample(const struct sample_spec *sp, size_t *len)
{
	uint64_t words[64];
	size_t n = 1;			/* words[0] is the header */
	struct perf_event_header hdr = { .type = PERF_RECORD_SAMPLE };
	unsigned char *rec;

	memset(words, 0, sizeof(words));
	if (sp->sample_type & PERF_SAMPLE_IDENTIFIER)
		words[n++] = 0x1d1d1d1dULL;
	if (sp->sample_type & PERF_SAMPLE_IP)
		words[n++] = sp->ip;
	if (sp->sample_type & PERF_SAMPLE_TID)
		words[n++] = (uint64_t) sp->pid | (uint64_t) sp->tid << 32;
	if (sp->sample_type & PERF_SAMPLE_TIME)
		words[n++] = sp->time;
	if (sp->sample_type & PERF_SAMPLE_ADDR)
		words[n++] = 0xadd7ULL;
	if (sp->sample_type & PERF_SAMPLE_ID)
		words[n++] = 0x1dULL;
	if (sp->sample_type & PERF_SAMPLE_STREAM_ID)
		words[n++] = 0x5157ULL;
	if (sp->sample_type & PERF_SAMPLE_CPU)
		words[n++] = (uint64_t) sp->cpu | 0xdeadULL << 32;	/* cpu, res */
	if (sp->sample_type & PERF_SAMPLE_PERIOD)
		words[n++] = 1000000;
	if (sp->sample_type & PERF_SAMPLE_CALLCHAIN) {
		words[n++] = sp->nr;
		for (size_t i = 0; i < sp->nchain; i++)
			words[n++] = sp->chain[i];
	}
	if (sp->sample_type & PERF_SAMPLE_REGS_USER) {
		words[n++] = sp->regs_abi;
		if (sp->regs_abi)
			for (size_t i = 0; i < CT_SAMPLE_NREGS; i++)
				words[n++] = sp->regs[i];
	}
	if (sp->sample_type & PERF_SAMPLE_STACK_USER) {
		words[n++] = sp->stack_size;
		if (sp->stack_size) {
			memcpy(&words[n], sp->stack, sp->stack_size);
			n += (sp->stack_size + 7) / 8;
			words[n++] = sp->dyn_size;
		}
	}
	*len = n * sizeof(uint64_t);
	hdr.size = (uint16_t) *len;
	memcpy(&words[0], &hdr, sizeof(hdr));
	rec = malloc(*len);
	if (!rec) {
		perror("malloc");
		exit(99);
	}
	memcpy(rec, words, *len);
	return rec;
}

static const uint64_t chain5[] = {
	(uint64_t) PERF_CONTEXT_USER, 0x55555555a123ULL, 0x55555555b456ULL,
	0x7f0011223344ULL, 0x55555555c789ULL,
};

static void
check_decoded(const char *what, const struct sample_spec *sp,
	      const unsigned char *rec, const struct ct_sample *s)
{
	CHECK(s->ip == sp->ip, "%s: ip %#" PRIx64 ", want %#" PRIx64, what,
	      s->ip, sp->ip);
	CHECK(s->pid == sp->pid && s->tid == sp->tid, "%s: pid/tid %u/%u, want %u/%u",
	      what, s->pid, s->tid, sp->pid, sp->tid);
	CHECK(s->time == sp->time, "%s: time %" PRIu64 ", want %" PRIu64, what,
	      s->time, sp->time);
	if (sp->sample_type & PERF_SAMPLE_CPU)
		CHECK(s->cpu == sp->cpu, "%s: cpu %u, want %u", what, s->cpu, sp->cpu);
	CHECK(s->nr == sp->nr, "%s: nr %" PRIu64 ", want %" PRIu64, what, s->nr, sp->nr);
	if (s->nr != sp->nr)
		return;
	if (sp->nr) {
		const unsigned char *c = (const unsigned char *) s->chain;
		size_t hdr_len = ((const struct perf_event_header *) rec)->size;

		/* The chain points into the record, before regs and stack. */
		CHECK(c == rec + hdr_len - tail_bytes(sp) - sp->nr * sizeof(uint64_t),
		      "%s: chain does not point at the record's chain", what);
		for (uint64_t i = 0; i < sp->nr; i++)
			CHECK(s->chain[i] == sp->chain[i], "%s: chain[%" PRIu64 "] %#" PRIx64
			      ", want %#" PRIx64, what, i, s->chain[i], sp->chain[i]);
	}
	CHECK(s->regs_abi == ((sp->sample_type & PERF_SAMPLE_REGS_USER) ? sp->regs_abi : 0),
	      "%s: regs abi %" PRIu64 ", want %" PRIu64, what, s->regs_abi, sp->regs_abi);
	if (s->regs_abi)
		for (size_t i = 0; i < CT_SAMPLE_NREGS; i++)
			CHECK(s->regs[i] == sp->regs[i], "%s: regs[%zu] %#" PRIx64
			      ", want %#" PRIx64, what, i, s->regs[i], sp->regs[i]);
	if ((sp->sample_type & PERF_SAMPLE_STACK_USER) && sp->stack_size) {
		uint64_t want = sp->dyn_size < sp->stack_size ? sp->dyn_size : sp->stack_size;
		size_t hdr_len = ((const struct perf_event_header *) rec)->size;

		CHECK(s->stack_size == want, "%s: stack %" PRIu64 " bytes, want %" PRIu64,
		      what, s->stack_size, want);
		/* The copy is in the record, just before dyn_size. */
		CHECK(s->stack == rec + hdr_len - 8 - sp->stack_size,
		      "%s: stack does not point at the record's copy", what);
		CHECK(s->stack_size > sp->stack_size || !memcmp(s->stack, sp->stack, s->stack_size),
		      "%s: the stack copy differs", what);
	} else {
		CHECK(s->stack_size == 0, "%s: %" PRIu64 " bytes of stack, want none",
		      what, s->stack_size);
	}
}

static void
parse_ok(const char *what, const struct sample_spec *sp)
{
	size_t len;
	unsigned char *rec = build_sample(sp, &len);
	struct ct_sample s;
	bool ok;

	memset(&s, 0x5a, sizeof(s));
	ok = perf_parse_sample((const void *) rec, sp->sample_type, &s);
	CHECK(ok, "%s: a whole record was rejected", what);
	if (ok)
		check_decoded(what, sp, rec, &s);

	/*
	 * Every shorter size claimed by the header must be rejected, from
	 * a buffer of exactly that size (ASan: no read past it).
	 */
	for (size_t cut = sizeof(struct perf_event_header); cut < len; cut++) {
		unsigned char *shorter = malloc(cut);
		struct perf_event_header hdr;

		if (!shorter) {
			perror("malloc");
			exit(99);
		}
		memcpy(shorter, rec, cut);
		memcpy(&hdr, shorter, sizeof(hdr));
		hdr.size = (uint16_t) cut;
		memcpy(shorter, &hdr, sizeof(hdr));
		ok = perf_parse_sample((const void *) shorter, sp->sample_type, &s);
		CHECK(!ok, "%s: a record truncated to %zu of %zu bytes was accepted",
		      what, cut, len);
		free(shorter);
	}
	free(rec);
}

static void
parse_bad_nr(const char *what, struct sample_spec sp, uint64_t nr)
{
	size_t len;
	unsigned char *rec;
	struct ct_sample s;

	sp.nr = nr;
	rec = build_sample(&sp, &len);
	CHECK(!perf_parse_sample((const void *) rec, sp.sample_type, &s),
	      "%s: callchain nr %" PRIu64 " with %zu entries present was accepted",
	      what, nr, sp.nchain);
	free(rec);
}

static void
test_parse(void)
{
	struct sample_spec sp = {
		.sample_type = CT_SAMPLE_TYPE,
		.ip = 0x55555555a123ULL,
		.pid = 4242, .tid = 4243,
		.time = 123456789012345ULL,
		.nr = 5, .nchain = 5, .chain = chain5,
	};

	parse_ok("CT_SAMPLE_TYPE", &sp);

	sp.sample_type = CT_SAMPLE_TYPE | PERF_SAMPLE_CPU;
	sp.cpu = 3;
	parse_ok("CT_SAMPLE_TYPE | CPU", &sp);

	/* Fields causaltop does not use are skipped in ABI order. */
	sp.sample_type = CT_SAMPLE_TYPE | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_PERIOD;
	sp.cpu = 1;
	parse_ok("every field up to the callchain", &sp);

	/* What DWARF unwinding needs (unwind.c): registers, a stack copy. */
	if (CT_SAMPLE_UNWIND) {
		static const unsigned char stack[32] = "return addresses and spills";

		sp.sample_type = CT_SAMPLE_TYPE | PERF_SAMPLE_CPU | CT_SAMPLE_UNWIND;
		sp.regs_abi = PERF_SAMPLE_REGS_ABI_64;
		sp.regs[CT_REG_BP] = 0x7ffc00001000ULL;
		sp.regs[CT_REG_SP] = 0x7ffc00000f00ULL;
		sp.regs[CT_REG_IP] = sp.ip;
		sp.stack = stack;
		sp.stack_size = sizeof(stack);
		sp.dyn_size = 24;
		parse_ok("registers and 24 of 32 bytes of stack", &sp);
		/* dyn_size is the kernel's; never more than the copy. */
		sp.dyn_size = 1000;
		parse_ok("dyn_size past the copy", &sp);
		sp.dyn_size = sizeof(stack);
		sp.sample_type = CT_SAMPLE_TYPE | CT_SAMPLE_UNWIND;
		parse_ok("registers and stack, no cpu", &sp);
		/* A kernel thread: ABI_NONE, no registers; no user stack. */
		sp.regs_abi = 0;
		sp.stack_size = 0;
		parse_ok("no registers, stack size 0", &sp);
		sp.regs_abi = PERF_SAMPLE_REGS_ABI_64;
		sp.stack_size = sizeof(stack);
		sp.nr = sp.nchain = 0;
		parse_ok("registers and stack, empty callchain", &sp);
		sp.stack_size = 0;
		sp.nr = sp.nchain = 5;
	}

	sp.sample_type = CT_SAMPLE_TYPE;
	sp.nr = sp.nchain = 0;
	parse_ok("empty callchain", &sp);

	sp.nr = sp.nchain = 1;
	parse_ok("one-entry callchain", &sp);

	sp.nchain = 2;
	parse_bad_nr("nr one more than present", sp, 3);
	parse_bad_nr("nr far more than present", sp, 1000);
	/* nr * 8 wraps around to a small number. */
	parse_bad_nr("nr * 8 overflows to 8", sp, (1ULL << 61) + 1);
	parse_bad_nr("nr 2^64 - 1", sp, UINT64_MAX);
	sp.sample_type = CT_SAMPLE_TYPE | PERF_SAMPLE_CPU;
	parse_bad_nr("CPU, nr one more than present", sp, 3);

	/*
	 * A header claiming less than itself: the record ends before the
	 * first field, whatever follows the header in memory.
	 */
	for (uint16_t size = 0; size < sizeof(struct perf_event_header); size++) {
		struct perf_event_header *hdr = malloc(sizeof(*hdr));
		struct ct_sample s;

		if (!hdr) {
			perror("malloc");
			exit(99);
		}
		hdr->type = PERF_RECORD_SAMPLE;
		hdr->misc = 0;
		hdr->size = size;
		CHECK(!perf_parse_sample(hdr, CT_SAMPLE_TYPE, &s),
		      "a header of size %u was accepted", (unsigned) size);
		free(hdr);
	}
}

/* A sample record wrapped around the ring decodes as if contiguous. */
static void
test_parse_wrapped(void)
{
	struct sample_spec sp = {
		.sample_type = CT_SAMPLE_TYPE | PERF_SAMPLE_CPU,
		.ip = 0x7f0011223344ULL,
		.pid = 7, .tid = 9,
		.time = 42,
		.cpu = 1,
		.nr = 5, .nchain = 5, .chain = chain5,
	};
	struct fake f;
	size_t len;
	unsigned char *rec = build_sample(&sp, &len);
	struct ct_sample s;

	fake_init(&f, 5 * (uint64_t) DATA_SIZE + 216);
	fake_write(&f, rec, len);
	CHECK(perf_ring_read(&f.ring, collect, &f) == 1 && f.nrecs == 1,
	      "wrapped sample: %zu records delivered", f.nrecs);
	if (f.nrecs == 1) {
		bool ok = perf_parse_sample((const void *) f.recs[0], sp.sample_type, &s);

		CHECK(ok, "wrapped sample: rejected by perf_parse_sample");
		if (ok)
			check_decoded("wrapped sample", &sp, f.recs[0], &s);
	}
	check_tail_caught_up(&f, "wrapped sample");
	free(rec);
	fake_fini(&f);
}

int
main(void)
{
	/* An endless loop in the reader is a failure, not a hang. */
	alarm(20);
	test_in_order();
	test_wrap();
	test_bad_headers();
	test_short_tail();
	test_overrun();
	test_parse();
	test_parse_wrapped();
	if (failures) {
		fprintf(stderr, "unit-perf-ring: %d check(s) failed\n", failures);
		return 1;
	}
	printf("unit-perf-ring: all checks passed\n");
	return 0;
}
