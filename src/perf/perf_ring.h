/*
 * Reader of a perf_event mmap ring: the documented head/tail protocol
 * (acquire data_head, consume, release data_tail), records that wrap
 * around the end of the buffer copied out whole, and a parser for the
 * sample records causaltop asks for.  Pure: no syscalls, so the unit test
 * can feed it synthetic rings.
 */
#ifndef CT_PERF_RING_H
# define CT_PERF_RING_H

# include <stdbool.h>
# include <stddef.h>
# include <stdint.h>
# include <linux/perf_event.h>

struct perf_ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t data_size;		/* a power of two */
	unsigned char *scratch;		/* data_size bytes, for wrapped records */
	uint64_t bad_records;		/* headers that made no sense */
};

/* Use meta and data (data_size bytes, power of two) as a ring. */
void perf_ring_init(struct perf_ring *, struct perf_event_mmap_page *meta,
		    unsigned char *data, size_t data_size);
void perf_ring_fini(struct perf_ring *);

/*
 * Called for each record, contiguous in memory even if it wrapped.  The
 * pointer is valid during the call only.
 */
typedef void (*perf_ring_cb)(void *ctx, const struct perf_event_header *rec);

/* Consume every record present; returns how many. */
size_t perf_ring_read(struct perf_ring *, perf_ring_cb, void *ctx);

/*
 * What the DWARF unwinder needs of a sample (unwind.c): frame and stack
 * pointers, the pc, and a copy of the top of the user stack.  x86-64
 * only; elsewhere CT_SAMPLE_UNWIND is 0 and chains are the kernel's.
 */
# if defined(__x86_64__)
#  include <asm/perf_regs.h>
#  define CT_SAMPLE_UNWIND	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#  define CT_SAMPLE_REGS_MASK	((1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | \
				 (1ULL << PERF_REG_X86_IP))
# else
#  define CT_SAMPLE_UNWIND	0
#  define CT_SAMPLE_REGS_MASK	0
# endif
/* Index in ct_sample.regs: the mask's bits in ascending order. */
enum { CT_REG_BP, CT_REG_SP, CT_REG_IP, CT_SAMPLE_NREGS };

/* A PERF_RECORD_SAMPLE as causaltop requests it. */
struct ct_sample {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t ip;
	uint32_t cpu;
	uint64_t nr;			/* callchain entries (user only) */
	const uint64_t *chain;		/* within the record: valid as it is */
	/* With CT_SAMPLE_UNWIND: the user registers and top of stack. */
	uint64_t regs_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: no regs */
	uint64_t regs[CT_SAMPLE_NREGS];	/* CT_REG_* */
	uint64_t stack_size;		/* bytes copied from regs[CT_REG_SP] on */
	const unsigned char *stack;	/* within the record, unaligned */
};

/* The sample_type causaltop always uses; PERF_SAMPLE_CPU is optional. */
# define CT_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CALLCHAIN)

/*
 * Decode a PERF_RECORD_SAMPLE written with sample_type.  Returns false if
 * the record is too short for what it claims (never reads past it).
 */
bool perf_parse_sample(const struct perf_event_header *, uint64_t sample_type,
		       struct ct_sample *);

#endif
