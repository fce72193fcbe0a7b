/*
 * causaltop_abi.h: the layout of the progress page shared by a target
 * program (through causaltop.h, or the Coz shim) and the causaltop
 * supervisor.  Installed; an ABI promise.  See causaltop.h(3).
 *
 * The page is a memfd named CAUSALTOP_MEMFD_NAME, created by the target on
 * first use, kept open (close-on-exec) and sealed against shrinking, so
 * the supervisor finds it through /proc/PID/fd and can map it without
 * fearing SIGBUS.  The supervisor treats every field as untrusted.
 *
 * All multi-byte fields are native-endian; counts are updated with
 * relaxed 64-bit atomic adds and read with 64-bit atomic loads.
 */
#ifndef CAUSALTOP_ABI_H
# define CAUSALTOP_ABI_H

# include <stdint.h>

# define CAUSALTOP_MEMFD_NAME	"causaltop-progress"
# define CAUSALTOP_MAGIC	0x474f5250504f5443ULL	/* "CTOPPROG" little-endian */
# define CAUSALTOP_ABI_VERSION	1
# define CAUSALTOP_PAGE_SIZE	32768u
# define CAUSALTOP_NAME_MAX	104	/* including the NUL */
/*
 * Set (to anything but "" or "0") in the environment of a command the
 * supervisor launches: its page is created with enabled = 1, so that it
 * counts from its start.
 */
# define CAUSALTOP_PROFILED_ENV	"CAUSALTOP_PROFILED"

/* Kinds have Coz's COZ_COUNTER_TYPE_* values. */
enum causaltop_kind {
	CAUSALTOP_KIND_THROUGHPUT = 1,
	CAUSALTOP_KIND_BEGIN = 2,	/* a transaction arrives */
	CAUSALTOP_KIND_END = 3,		/* a transaction departs */
};
/* Or'ed into a slot's kind by the Coz shim, so reports can say so. */
# define CAUSALTOP_KIND_FROM_COZ	0x100u

struct causaltop_slot {			/* 128 bytes */
	uint64_t count;			/* first, as in Coz's coz_counter_t */
	uint64_t backoff;		/* coz_counter_t.backoff; unused */
	uint32_t kind;			/* enum causaltop_kind */
	uint32_t ready;			/* 1 once kind and name are written
					   (store-release; load-acquire) */
	char name[CAUSALTOP_NAME_MAX];	/* NUL-terminated */
};

struct causaltop_page {
	uint64_t magic;			/* CAUSALTOP_MAGIC */
	uint32_t abi_version;		/* CAUSALTOP_ABI_VERSION */
	uint32_t page_size;		/* CAUSALTOP_PAGE_SIZE */
	uint32_t slot_offset;		/* of slots[0] from the page start */
	uint32_t slot_size;		/* sizeof(struct causaltop_slot) */
	uint32_t nslots;		/* capacity */
	uint32_t used;			/* slots claimed so far */
	uint32_t enabled;		/* written by the supervisor: macros
					   count only while it is nonzero */
	uint32_t lock;			/* taken by the target to claim a slot */
	int32_t pid;			/* the process that made the page */
	uint32_t reserved[5];
	/* slots follow at slot_offset */
};

# define CAUSALTOP_SLOT_OFFSET	128u
# define CAUSALTOP_NSLOTS \
	((CAUSALTOP_PAGE_SIZE - CAUSALTOP_SLOT_OFFSET) / sizeof(struct causaltop_slot))

#endif
