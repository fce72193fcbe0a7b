/*
 * Unit test of src/sym/relocate.c: the jump pads of in-target counters,
 * proven by running them in this very process.  Hand-assembled
 * functions (bytes below, with their assembly) are copied into an RWX
 * region, a pad built for a probe in each is written there and the
 * probe's bytes patched: the function must return what it did before,
 * the counter must count each pass exactly, and the original bytes must
 * come back whole.  Then functions of this program, compiled by gcc at
 * -O2, are patched in place (their text page made writable for the
 * while), the pad within 2 GB of them.  And what must be refused is.
 * Exit status: 0 pass, 1 fail.
 */
#include "config.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <inttypes.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym/disasm.h"
#include "sym/relocate.h"
#include "unit.h"

#if defined(__x86_64__)

# ifndef MAP_FIXED_NOREPLACE
#  define MAP_FIXED_NOREPLACE	0x100000	/* Linux 4.17 */
# endif

typedef long (*fn2)(long, long);

/*
 * One RWX region: functions in slots of 256 bytes below 32 KB, pads of
 * 128 bytes from 32 KB on (so a RIP-relative displacement really
 * changes), counters at the top.
 */
# define REGION_LEN	0x10000
# define SLOT_LEN	256
# define PADS_AT	0x8000
# define COUNTERS_AT	0xf000

static uint8_t *region;
static unsigned slots_used, pads_used, counters_used;

static uint8_t *
new_slot(void)
{
	uint8_t *s = region + SLOT_LEN * slots_used++;

	if (s + SLOT_LEN > region + PADS_AT)
		abort();	/* more fixtures than slots: make the region larger */
	memset(s, 0xcc, SLOT_LEN);
	return s;
}

static uint8_t *
new_pad(void)
{
	uint8_t *p = region + PADS_AT + RELOC_PAD_MAX * pads_used++;

	if (p + RELOC_PAD_MAX > region + COUNTERS_AT)
		abort();
	return p;
}

static volatile uint64_t *
new_counter(void)
{
	volatile uint64_t *c = (volatile uint64_t *) (region + COUNTERS_AT) + counters_used++;

	if ((uint8_t *) (c + 1) > region + REGION_LEN)
		abort();
	*c = 0;
	return c;
}

static uint64_t
addr_of(const void *p)
{
	return (uint64_t) (uintptr_t) p;
}

static fn2
fn_at(void *p)
{
	fn2 f;

	/* POSIX: a function pointer converts from a data pointer so. */
	*(void **) &f = p;
	return f;
}

/*
 * len bytes within 2 GB of near: a jmp rel32 and a RIP-relative
 * operand must reach from one to the other.
 */
static void *
map_near(const void *near, size_t len)
{
	uint64_t base = addr_of(near) & ~(uint64_t) 0xfffff;

	for (int64_t k = 1; k < 1024; k++) {
		for (int sign = -1; sign <= 1; sign += 2) {
			uint64_t hint = base + (uint64_t) (sign * k * 0x100000);
			void *p = mmap((void *) (uintptr_t) hint, len,
				       PROT_READ | PROT_WRITE | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

			if (p == MAP_FAILED)
				continue;
			if (addr_of(p) == hint)
				return p;
			munmap(p, len);	/* a kernel that took the hint as a hint */
		}
	}
	return NULL;
}

static const long args[][2] = {
	{ 0, 0 }, { 1, 2 }, { -3, 5 }, { 7, -7 }, { 100, 3 }, { 5, 100 }, { -1, -1 },
	{ 12345, 678 }, { 10, 10 }, { 11, -2 }, { 0x100000000, 1 }, { -1000, 999 },
};
# define NARGS		(sizeof(args) / sizeof(args[0]))
# define CALLS		1200	/* 100 rounds of args */

/* A hand-assembled function, with what follows it in its slot. */
struct fixture {
	const char *name;
	const uint8_t *code;
	size_t size;		/* bytes copied: the function, its helpers, its data */
	size_t func_len;	/* the function's own (its symbol's size) */
	size_t probe;		/* the probe's offset */
	unsigned flags;
	size_t ptr_at, ptr_to;	/* if ptr_at: a pointer to code + ptr_to there */
	size_t displaced;	/* what the pad must displace */
};

static uint8_t *
place(const struct fixture *fx)
{
	uint8_t *s = new_slot();

	memcpy(s, fx->code, fx->size);
	if (fx->ptr_at) {
		uint64_t to = addr_of(s + fx->ptr_to);

		memcpy(s + fx->ptr_at, &to, sizeof(to));
	}
	return s;
}

/* Calls f CALLS times, cycling through args: how many results differ from want. */
static unsigned
mismatches(fn2 f, const long *want)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < CALLS; i++)
		bad += f(args[i % NARGS][0], args[i % NARGS][1]) != want[i % NARGS];
	return bad;
}

/*
 * Build, patch, run CALLS times, count, restore, run again.  Returns the
 * slot (its data may be checked after), NULL when the build failed.
 */
static uint8_t *
run_fixture(const struct fixture *fx, struct reloc_pad *pad)
{
	uint8_t *s = place(fx), *p = new_pad(), *at = s + fx->probe;
	volatile uint64_t *count = new_counter();
	fn2 f = fn_at(s);
	long want[NARGS];
	const char *why = "";
	unsigned bad;
	bool fill = true;

	for (size_t i = 0; i < NARGS; i++)
		want[i] = f(args[i][0], args[i][1]);
	if (reloc_build(s, fx->func_len, addr_of(s), addr_of(at), fx->flags, addr_of(p),
			addr_of((const void *) count), pad, &why) < 0) {
		check(false, "%s: pad built (%s)", fx->name, why);
		return NULL;
	}
	check(pad->displaced == fx->displaced, "%s: %zu bytes displaced (want %zu)", fx->name,
	      pad->displaced, fx->displaced);
	for (size_t i = 5; i < pad->displaced; i++)
		fill = fill && pad->patch[i] == 0xcc;
	check(pad->patch[0] == 0xe9 && fill && !memcmp(pad->orig, at, pad->displaced),
	      "%s: the patch is a jmp then int3s, orig the bytes there", fx->name);
	memcpy(p, pad->code, pad->len);
	memcpy(at, pad->patch, pad->displaced);

	bad = mismatches(f, want);
	check(!bad && *count == CALLS, "%s: patched, %u calls: %u wrong results, counted %" PRIu64
	      " (pad %zu bytes)", fx->name, CALLS, bad, *count, pad->len);

	memcpy(at, pad->orig, pad->displaced);
	check(!memcmp(s, fx->code, fx->func_len),
	      "%s: restored, the bytes are the original's", fx->name);
	bad = mismatches(f, want);
	check(!bad && *count == CALLS, "%s: restored: %u wrong results, the counter still %" PRIu64,
	      fx->name, bad, *count);
	return s;
}

/* 1. Entries as gcc -O2 writes them. */
static void
test_entries(void)
{
	static const uint8_t f1a[] = {
		0xf3, 0x0f, 0x1e, 0xfa,		/* endbr64 */
		0x55,				/* push rbp */
		0x48, 0x89, 0xe5,		/* mov rbp, rsp */
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x0f, 0xaf, 0xc6,		/* imul rax, rsi */
		0x48, 0x83, 0xc0, 0x07,		/* add rax, 7 */
		0x5d,				/* pop rbp */
		0xc3,				/* ret */
	};
	static const uint8_t f1b[] = {
		0x53,				/* push rbx */
		0x48, 0x89, 0xfb,		/* mov rbx, rdi */
		0x48, 0x83, 0xec, 0x10,		/* sub rsp, 16 */
		0x48, 0x89, 0x74, 0x24, 0x08,	/* mov [rsp + 8], rsi */
		0x48, 0x8d, 0x04, 0x5b,		/* lea rax, [rbx + rbx*2] */
		0x48, 0x03, 0x44, 0x24, 0x08,	/* add rax, [rsp + 8] */
		0x48, 0x83, 0xc4, 0x10,		/* add rsp, 16 */
		0x5b,				/* pop rbx */
		0xc3,				/* ret */
	};
	const struct fixture fx[] = {
		{ "endbr64; push rbp", f1a, sizeof(f1a), sizeof(f1a), 0, RELOC_ENTRY, 0, 0, 5 },
		{ "push rbx; mov rbx, rdi; sub rsp", f1b, sizeof(f1b), sizeof(f1b), 0,
		  RELOC_ENTRY, 0, 0, 8 },
	};
	struct reloc_pad pad;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		run_fixture(&fx[i], &pad);
	/* The entry pad: lock incq [rip + d], nothing around it. */
	check(pad.code[0] == 0xf0 && pad.code[1] == 0x48 && pad.code[2] == 0xff &&
	      pad.code[3] == 0x05, "entry pad: starts with lock incq [rip + d]");
}

/* 2. RIP-relative operands among the displaced instructions. */
static void
test_rip_relative(void)
{
	static const uint8_t f2a[] = {
		0x48, 0x8b, 0x05, 0x08, 0x00, 0x00, 0x00,	/* mov rax, [rip + k] */
		0x48, 0x0f, 0xaf, 0xc7,				/* imul rax, rdi */
		0x48, 0x01, 0xf0,				/* add rax, rsi */
		0xc3,						/* ret */
		0x43, 0x42, 0x0f, 0, 0, 0, 0, 0,		/* k: .quad 1000003 */
	};
	static const uint8_t f2b[] = {
		0x48, 0x8d, 0x05, 0x0b, 0x00, 0x00, 0x00,	/* lea rax, [rip + t] */
		0x83, 0xe7, 0x07,				/* and edi, 7 */
		0x48, 0x8b, 0x04, 0xf8,				/* mov rax, [rax + rdi*8] */
		0x48, 0x01, 0xf0,				/* add rax, rsi */
		0xc3,						/* ret */
		/* t: .quad 2, 3, 5, 7, 11, 13, 17, 19 */
		2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
		5, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,
		11, 0, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0,
		17, 0, 0, 0, 0, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0,
	};
	/* A store: the displacement comes before an immediate, rip is past both. */
	static const uint8_t f2c[] = {
		0x48, 0xc7, 0x05, 0x0e, 0x00, 0x00, 0x00,	/* mov qword [rip + s], 42 */
		0x2a, 0x00, 0x00, 0x00,
		0x48, 0x8b, 0x05, 0x07, 0x00, 0x00, 0x00,	/* mov rax, [rip + s] */
		0x48, 0x01, 0xf8,				/* add rax, rdi */
		0x48, 0x29, 0xf0,				/* sub rax, rsi */
		0xc3,						/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,				/* s: .quad 0 */
	};
	/* A PLT entry's shape: jmp [rip + p], p pointing at g. */
	static const uint8_t f2d[] = {
		0xff, 0x25, 0x05, 0x00, 0x00, 0x00,		/* jmp [rip + p] */
		0x48, 0x8d, 0x04, 0xb7,				/* g: lea rax, [rdi + rsi*4] */
		0xc3,						/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,				/* p: .quad g */
	};
	/* A tail call through the GOT after the displaced bytes: not a jump table. */
	static const uint8_t f2e[] = {
		0x48, 0x89, 0xf8,				/* mov rax, rdi */
		0x48, 0x01, 0xc6,				/* add rsi, rax */
		0xff, 0x25, 0x05, 0x00, 0x00, 0x00,		/* jmp [rip + p] */
		0x48, 0x8d, 0x04, 0xb7,				/* g: lea rax, [rdi + rsi*4] */
		0xc3,						/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,				/* p: .quad g */
	};
	const struct fixture fx[] = {
		{ "mov rax, [rip + k]", f2a, sizeof(f2a), 15, 0, RELOC_ENTRY, 0, 0, 7 },
		{ "lea rax, [rip + table]", f2b, sizeof(f2b), 18, 0, RELOC_ENTRY, 0, 0, 7 },
		{ "mov qword [rip + s], imm32", f2c, sizeof(f2c), 25, 0, RELOC_ENTRY, 0, 0, 11 },
		{ "jmp [rip + p] (a PLT entry)", f2d, sizeof(f2d), 6, 0, RELOC_ENTRY, 11, 6, 6 },
		{ "jmp [rip + p] after the probe", f2e, sizeof(f2e), 12, 0, RELOC_ENTRY, 17, 12,
		  6 },
	};
	struct reloc_pad pad;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		run_fixture(&fx[i], &pad);
		/* The displaced instruction follows the 8 bytes of the increment. */
		if (i < 4)
			check(memcmp(pad.code + 8, fx[i].code, pad.displaced) != 0,
			      "%s: the displacement was rewritten", fx[i].name);
	}
}

/* 3. Relative branches among the displaced instructions. */
static void
test_branches(void)
{
	static const uint8_t f3a[] = {
		0x85, 0xff,			/* test edi, edi */
		0x74, 0x05,			/* je 1f */
		0x48, 0x8d, 0x04, 0x37,		/* lea rax, [rdi + rsi] */
		0xc3,				/* ret */
		0x48, 0x89, 0xf0,		/* 1: mov rax, rsi */
		0x48, 0xf7, 0xd8,		/* neg rax */
		0xc3,				/* ret */
	};
	static const uint8_t f3b[] = {
		0x48, 0x83, 0xff, 0x0a,		/* cmp rdi, 10 */
		0x0f, 0x8f, 0x05, 0, 0, 0,	/* jg 1f (rel32) */
		0x48, 0x8d, 0x46, 0x01,		/* lea rax, [rsi + 1] */
		0xc3,				/* ret */
		0x48, 0x8d, 0x04, 0x77,		/* 1: lea rax, [rdi + rsi*2] */
		0xc3,				/* ret */
	};
	static const uint8_t f3c[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0xeb, 0x08,			/* jmp 1f */
		0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff,	/* mov rax, -1 */
		0xc3,				/* ret */
		0x48, 0x01, 0xf0,		/* 1: add rax, rsi */
		0xc3,				/* ret */
	};
	/* Dead bytes after the jmp are displaced too; it jumps to their end. */
	static const uint8_t f3d[] = {
		0x31, 0xc0,			/* xor eax, eax */
		0xeb, 0x03,			/* jmp 1f */
		0x0f, 0x1f, 0x00,		/* nop dword [rax] */
		0x48, 0x8d, 0x04, 0x37,		/* 1: lea rax, [rdi + rsi] */
		0xc3,				/* ret */
	};
	const struct fixture fx[] = {
		{ "test; je rel8; lea", f3a, sizeof(f3a), sizeof(f3a), 0, RELOC_ENTRY, 0, 0, 8 },
		{ "cmp; jg rel32", f3b, sizeof(f3b), sizeof(f3b), 0, RELOC_ENTRY, 0, 0, 10 },
		{ "mov; jmp rel8", f3c, sizeof(f3c), sizeof(f3c), 0, RELOC_ENTRY, 0, 0, 5 },
		{ "xor; jmp rel8 over a nop", f3d, sizeof(f3d), sizeof(f3d), 0, RELOC_ENTRY, 0, 0,
		  7 },
	};
	struct reloc_pad pad;
	long taken = 0, not_taken = 0;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		run_fixture(&fx[i], &pad);
	/* test edi, edi: args has first arguments with low halves zero and not. */
	for (size_t i = 0; i < NARGS; i++)
		*((uint32_t) args[i][0] ? &not_taken : &taken) += 1;
	check(taken && not_taken, "args take the je both ways (%ld taken, %ld not)", taken,
	      not_taken);
}

/*
 * 4. A call among the displaced instructions.  g records its return
 * address: the original's, after the call, not one in the pad.
 */
static void
test_calls(void)
{
	static const uint8_t f4a[] = {
		0x53,				/* push rbx */
		0xe8, 0x06, 0, 0, 0,		/* call g */
		0x5b,				/* pop rbx */
		0x48, 0x83, 0xc0, 0x01,		/* add rax, 1 */
		0xc3,				/* ret */
		0x48, 0x8b, 0x0c, 0x24,		/* g: mov rcx, [rsp] */
		0x48, 0x89, 0x0d, 0x08, 0, 0, 0,	/* mov [rip + r], rcx */
		0x48, 0x8d, 0x04, 0x7f,		/* lea rax, [rdi + rdi*2] */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0xc3,				/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,		/* r: .quad 0 */
	};
	static const uint8_t f4b[] = {
		0x53,				/* push rbx */
		0xff, 0x15, 0x19, 0, 0, 0,	/* call [rip + p] */
		0x5b,				/* pop rbx */
		0x48, 0x83, 0xc0, 0x01,		/* add rax, 1 */
		0xc3,				/* ret */
		0x48, 0x8b, 0x0c, 0x24,		/* g: mov rcx, [rsp] */
		0x48, 0x89, 0x0d, 0x10, 0, 0, 0,	/* mov [rip + r], rcx */
		0x48, 0x8d, 0x04, 0x7f,		/* lea rax, [rdi + rdi*2] */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0xc3,				/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,		/* p: .quad g */
		0, 0, 0, 0, 0, 0, 0, 0,		/* r: .quad 0 */
	};
	static const uint8_t f4c[] = {
		0x48, 0x8b, 0x05, 0x1e, 0, 0, 0,	/* mov rax, [rip + p] */
		0x53,				/* push rbx	<- probe */
		0x31, 0xdb,			/* xor ebx, ebx */
		0xff, 0xd0,			/* call rax */
		0x5b,				/* pop rbx */
		0x48, 0x83, 0xc0, 0x01,		/* add rax, 1 */
		0xc3,				/* ret */
		0x48, 0x8b, 0x0c, 0x24,		/* g: mov rcx, [rsp] */
		0x48, 0x89, 0x0d, 0x10, 0, 0, 0,	/* mov [rip + r], rcx */
		0x48, 0x8d, 0x04, 0x7f,		/* lea rax, [rdi + rdi*2] */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0xc3,				/* ret */
		0, 0, 0, 0, 0, 0, 0, 0,		/* p: .quad g */
		0, 0, 0, 0, 0, 0, 0, 0,		/* r: .quad 0 */
	};
	const struct {
		struct fixture fx;
		size_t ret_at;		/* r */
		size_t ret_to;		/* the original return address */
	} cs[] = {
		{ { "push rbx; call rel32", f4a, sizeof(f4a), 12, 0, RELOC_ENTRY, 0, 0, 6 },
		  31, 6 },
		{ { "call rel32 off the entry", f4a, sizeof(f4a), 12, 1, 0, 0, 0, 5 }, 31, 6 },
		{ { "push rbx; call [rip + p]", f4b, sizeof(f4b), 13, 0, RELOC_ENTRY, 32, 13, 7 },
		  40, 7 },
		{ { "push rbx; xor; call rax", f4c, sizeof(f4c), 18, 7, 0, 37, 18, 5 }, 45, 12 },
	};
	struct reloc_pad pad;

	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		uint8_t *s = run_fixture(&cs[i].fx, &pad);
		uint64_t ret;

		if (!s)
			continue;
		/* The last call ran unpatched: run one patched, then look. */
		memcpy(s + cs[i].fx.probe, pad.patch, pad.displaced);
		memset(s + cs[i].ret_at, 0, 8);
		check(fn_at(s)(4, 5) == 18, "%s: patched again, right", cs[i].fx.name);
		memcpy(&ret, s + cs[i].ret_at, sizeof(ret));
		memcpy(s + cs[i].fx.probe, pad.orig, pad.displaced);
		check(ret == addr_of(s + cs[i].ret_to),
		      "%s: the callee's return address is the original's (+%#" PRIx64 ")",
		      cs[i].fx.name, ret - addr_of(s));
	}
}

/*
 * 5. Off the entry, between a cmp and its jl, in a leaf that keeps its
 * arguments in the red zone across the probe.  The pad's increment
 * changes the flags (SF and OF both 0: "not less"), and a push without
 * the step down would overwrite [rsp - 8].
 */
static void
test_live_flags(void)
{
	static const uint8_t f5[] = {
		0x48, 0x89, 0x7c, 0x24, 0xf8,	/* mov [rsp - 8], rdi */
		0x48, 0x89, 0x74, 0x24, 0xf0,	/* mov [rsp - 16], rsi */
		0x48, 0x39, 0xf7,		/* cmp rdi, rsi */
		0x7c, 0x0b,			/* jl 1f	<- probe */
		0x48, 0x8b, 0x44, 0x24, 0xf8,	/* mov rax, [rsp - 8] */
		0x48, 0x2b, 0x44, 0x24, 0xf0,	/* sub rax, [rsp - 16] */
		0xc3,				/* ret */
		0x48, 0x8b, 0x44, 0x24, 0xf0,	/* 1: mov rax, [rsp - 16] */
		0x48, 0x2b, 0x44, 0x24, 0xf8,	/* sub rax, [rsp - 8] */
		0x48, 0x05, 0xe8, 0x03, 0, 0,	/* add rax, 1000 */
		0xc3,				/* ret */
	};
	const struct fixture fx = {
		"cmp | jl, red zone live", f5, sizeof(f5), sizeof(f5), 13, 0, 0, 0, 7
	};
	struct reloc_pad pad;
	uint8_t *s, *p;
	volatile uint64_t *count;
	const char *why = "";
	long want[NARGS];
	unsigned bad;

	s = run_fixture(&fx, &pad);
	if (!s)
		return;
	/*
	 * The control: the entry's pad, which saves nothing, at the same
	 * place (as if the function began there) gets some results wrong.
	 * So the flags are live there, and the pad above kept them.
	 */
	for (size_t i = 0; i < NARGS; i++)
		want[i] = fn_at(s)(args[i][0], args[i][1]);
	p = new_pad();
	count = new_counter();
	if (reloc_build(s + 13, sizeof(f5) - 13, addr_of(s + 13), addr_of(s + 13), RELOC_ENTRY,
			addr_of(p), addr_of((const void *) count), &pad, &why) < 0) {
		check(false, "control: pad built (%s)", why);
		return;
	}
	memcpy(p, pad.code, pad.len);
	memcpy(s + 13, pad.patch, pad.displaced);
	bad = mismatches(fn_at(s), want);
	memcpy(s + 13, pad.orig, pad.displaced);
	check(bad > 0, "control: a pad that does not save the flags there gets %u of %u wrong",
	      bad, CALLS);
}

/*
 * 6. Refusals: -1, and a why that says what and where.  at: the offset
 * of the instruction the why must name (SIZE_MAX: none).  The pad and
 * the counter may be placed anywhere, they are not run.
 */
static void
want_refused(const char *name, const uint8_t *code, size_t len, size_t probe, unsigned flags,
	     int64_t pad_off, int64_t counter_off, size_t at, const char *want)
{
	uint8_t *s = new_slot();
	struct reloc_pad pad;
	const char *why = "";
	char where[32] = "";
	int ret;

	memcpy(s, code, len);
	ret = reloc_build(s, len, addr_of(s), addr_of(s + probe), flags,
			  addr_of(s) + (uint64_t) pad_off, addr_of(s) + (uint64_t) counter_off,
			  &pad, &why);
	if (at != SIZE_MAX)
		snprintf(where, sizeof(where), "0x%" PRIx64, addr_of(s + at));
	check(ret == -1 && strstr(why, want) && strstr(why, where),
	      "refused: %s: %s", name, ret ? why : "(built)");
}

static void
test_refusals(void)
{
	/* 1: the jg's target, inside the 7 bytes replaced */
	static const uint8_t r_back[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x83, 0xc0, 0x01,		/* 1: add rax, 1 */
		0x48, 0x83, 0xee, 0x01,		/* sub rsi, 1 */
		0x7f, 0xf6,			/* jg 1b */
		0xc3,				/* ret */
	};
	/* the je's target, inside the bytes replaced, from among them */
	static const uint8_t r_inner[] = {
		0x85, 0xff,			/* test edi, edi */
		0x74, 0x00,			/* je 1f */
		0xff, 0xc0,			/* 1: inc eax */
		0xc3,				/* ret */
	};
	static const uint8_t r_jmp_reg[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0x48, 0x8d, 0x0d, 0x02, 0, 0, 0,	/* lea rcx, [rip + 1f] */
		0xff, 0xe1,			/* jmp rcx */
		0xc3,				/* 1: ret */
	};
	static const uint8_t r_jmp_table[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x83, 0xe7, 0x03,		/* and edi, 3 */
		0xff, 0x24, 0xfd, 0x00, 0x10, 0, 0,	/* jmp [rdi*8 + 0x1000] */
		0xc3,				/* ret */
	};
	static const uint8_t r_loop[] = {
		0x31, 0xc0,			/* xor eax, eax */
		0x48, 0xff, 0xc0,		/* 1: inc rax	<- probe */
		0xe2, 0xfb,			/* loop 1b */
		0xc3,				/* ret */
	};
	static const uint8_t r_jrcxz[] = {
		0x31, 0xc0,			/* xor eax, eax */
		0xe3, 0x02,			/* jrcxz 1f */
		0xff, 0xc0,			/* inc eax */
		0xc3,				/* 1: ret */
	};
	/* its operand is 1 GB below: 2.5 GB from a pad 1.5 GB above */
	static const uint8_t r_far[] = {
		0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0xc0,	/* mov rax, [rip - 0x40000000] */
		0xc3,						/* ret */
	};
	static const uint8_t r_call_mid[] = {
		0xff, 0xd0,			/* call rax */
		0x48, 0x83, 0xc0, 0x01,		/* add rax, 1 */
		0xc3,				/* ret */
	};
	static const uint8_t r_call_rsp[] = {
		0x53,				/* push rbx */
		0xff, 0x54, 0x24, 0x08,		/* call [rsp + 8] */
		0x5b,				/* pop rbx */
		0xc3,				/* ret */
	};
	static const uint8_t r_call[] = {
		0x53,				/* push rbx */
		0xe8, 0x00, 0, 0, 0,		/* call 1f */
		0x5b,				/* 1: pop rbx */
		0xc3,				/* ret */
	};
	static const uint8_t r_int3[] = {
		0x90,				/* nop */
		0xcc,				/* int3 */
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0xc3,				/* ret */
	};
	static const uint8_t r_syscall[] = {
		0x31, 0xc0,			/* xor eax, eax */
		0xb0, 0x27,			/* mov al, 39 */
		0x0f, 0x05,			/* syscall */
		0xc3,				/* ret */
	};
	static const uint8_t r_ud2[] = {
		0x31, 0xc0,			/* xor eax, eax */
		0x0f, 0x0b,			/* ud2 */
		0x90,				/* nop */
		0xc3,				/* ret */
	};
	static const uint8_t r_bad[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0x06,				/* (no instruction in 64-bit mode) */
		0xc3,				/* ret */
	};
	static const uint8_t r_plain[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x01, 0xf0,		/* add rax, rsi */
		0xc3,				/* ret */
	};
	static const uint8_t r_ret[] = {
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x5d,				/* pop rbp	<- probe */
		0xc3,				/* ret */
	};
	const int64_t pad = PADS_AT, counter = COUNTERS_AT;	/* in the region, roughly */
	const int64_t gb = 0x40000000;

	want_refused("a jump from below into the bytes replaced", r_back, sizeof(r_back), 0,
		     RELOC_ENTRY, pad, counter, 11, "lands inside the 7 bytes replaced");
	want_refused("a je among them into them", r_inner, sizeof(r_inner), 0, RELOC_ENTRY, pad,
		     counter, 2, "lands inside the 6 bytes replaced");
	want_refused("2 bytes left in the function", r_ret, sizeof(r_ret), 3, 0, pad, counter,
		     SIZE_MAX, "ends 2 bytes after the probe");
	want_refused("a jmp rcx in the function", r_jmp_reg, sizeof(r_jmp_reg), 0, RELOC_ENTRY,
		     pad, counter, 13, "a jump table");
	want_refused("a jump through a table", r_jmp_table, sizeof(r_jmp_table), 0, RELOC_ENTRY,
		     pad, counter, 6, "a jump table");
	want_refused("a loop among the displaced", r_loop, sizeof(r_loop), 2, 0, pad, counter, 5,
		     "a loop at");
	want_refused("a jrcxz among the displaced", r_jrcxz, sizeof(r_jrcxz), 0, RELOC_ENTRY,
		     pad, counter, 2, "a jrcxz at");
	want_refused("a RIP-relative operand 2.5 GB from the pad", r_far, sizeof(r_far), 0,
		     RELOC_ENTRY, gb * 3 / 2, gb * 3 / 2 + 64, 0, "out of reach of the pad");
	want_refused("the counter 3 GB from the pad", r_plain, sizeof(r_plain), 0, RELOC_ENTRY, pad,
		     pad + 3 * gb, SIZE_MAX, "the counter at");
	want_refused("the pad 3 GB from the probe", r_plain, sizeof(r_plain), 0, RELOC_ENTRY,
		     3 * gb, 3 * gb + 64, SIZE_MAX, "out of a jmp's reach");
	want_refused("a counter not 8-byte aligned", r_plain, sizeof(r_plain), 0, RELOC_ENTRY, pad,
		     counter + 4, SIZE_MAX, "not 8-byte aligned");
	want_refused("a call that would return inside", r_call_mid, sizeof(r_call_mid), 0,
		     RELOC_ENTRY, pad, counter, 0, "would return inside them");
	want_refused("a call through [rsp + 8]", r_call_rsp, sizeof(r_call_rsp), 0, RELOC_ENTRY,
		     pad, counter, 1, "reads through rsp");
	want_refused("a call with a shadow stack", r_call, sizeof(r_call), 0,
		     RELOC_ENTRY | RELOC_SHSTK, pad, counter, 1, "shadow stack");
	want_refused("an int3 among the displaced", r_int3, sizeof(r_int3), 0, RELOC_ENTRY, pad,
		     counter, 1, "an int3 at");
	want_refused("a syscall among the displaced", r_syscall, sizeof(r_syscall), 0,
		     RELOC_ENTRY, pad, counter, 4, "a system call (syscall)");
	want_refused("a ud2 among the displaced", r_ud2, sizeof(r_ud2), 0, RELOC_ENTRY, pad,
		     counter, 2, "faults on purpose");
	want_refused("bytes that decode to nothing", r_bad, sizeof(r_bad), 0, RELOC_ENTRY, pad,
		     counter, 6, "cannot decode");
	want_refused("an address inside an instruction", r_plain, sizeof(r_plain), 1, 0, pad,
		     counter, 0, "not at an instruction's start");
	want_refused("RELOC_ENTRY off the entry", r_plain, sizeof(r_plain), 3, RELOC_ENTRY, pad,
		     counter, SIZE_MAX, "is not the entry");
	want_refused("an address outside the function", r_plain, sizeof(r_plain), sizeof(r_plain),
		     0, pad, counter, SIZE_MAX, "outside the function");
}

/*
 * 7. gcc's own output: functions of this program at -O2, patched where
 * they run.  noipa: called as written, never cloned or inlined.
 */
long reloc_real_step(long n);
long reloc_real_steps(long n, long limit);
long reloc_real_mix(long a, long b);
long reloc_real_hash(long s, long k);
int main(void);

static long real_calls;			/* reloc_real_step's */
static void *real_ret;			/* its return address, the last call's */
static bool real_bt;			/* take a backtrace at the next call */
static void *real_frames[32];
static int real_nframes;

__attribute__((noipa, optimize("O2"))) long
reloc_real_step(long n)
{
	real_calls++;
	real_ret = __builtin_return_address(0);
	if (real_bt) {
		real_bt = false;
		real_nframes = backtrace(real_frames, 32);
	}
	return n & 1 ? 3 * n + 1 : n / 2;
}

__attribute__((noipa, optimize("O2"))) long
reloc_real_steps(long n, long limit)
{
	long k = 0;

	while (n != 1 && k < limit) {
		n = reloc_real_step(n);
		k++;
	}
	return k * 1000 + n;
}

__attribute__((noipa, optimize("O2"))) long
reloc_real_mix(long a, long b)
{
	long d = a > b ? a - b : b - a;

	return ((a * 31 + b) ^ (a >> 3)) % 1009 + d * (b & 7);
}

__attribute__((noipa, optimize("O2"))) long
reloc_real_hash(long s, long k)
{
	const unsigned char *p = (const unsigned char *) (uintptr_t) s;
	unsigned long h = (unsigned long) k;

	while (*p)
		h = h * 33 + *p++;
	return (long) h;
}

/* A function's size from its dynamic symbol (the test links with -rdynamic). */
static size_t
func_size(const void *fn)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!dladdr1(fn, &info, (void **) &sym, RTLD_DL_SYMENT) || !sym ||
	    info.dli_saddr != fn)
		return 0;
	return sym->st_size;
}

static bool
text_writable(const void *fn, size_t len, bool w)
{
	uint64_t pg = (uint64_t) sysconf(_SC_PAGESIZE);
	uint64_t a = addr_of(fn) & ~(pg - 1), e = (addr_of(fn) + len + pg - 1) & ~(pg - 1);

	return !mprotect((void *) (uintptr_t) a, e - a,
			 PROT_READ | PROT_EXEC | (w ? PROT_WRITE : 0));
}

struct real_args {
	long a, b;
};

/*
 * Patch fn at probe (an entry, or the head of its loop) in place, run
 * it on each of args rounds times, and restore it.  want_count: how many
 * passes the counter must show, from how many calls (entry) or from the
 * steps the function took (its loop head: reloc_real_step's calls).
 */
static void
real_case(const char *name, void *fn, uint64_t probe, unsigned flags,
	  const struct real_args *a, size_t na, unsigned rounds, bool per_step)
{
	size_t len = func_size(fn);
	uint8_t *copy, *p = new_pad();
	volatile uint64_t *count = new_counter();
	long want[16], calls0;
	struct reloc_pad pad;
	const char *why = "";
	unsigned bad = 0;
	fn2 f = fn_at(fn);

	if (!len || na > 16) {
		check(false, "%s: its size from the dynamic symbol table", name);
		return;
	}
	copy = malloc(len);
	memcpy(copy, fn, len);
	for (size_t i = 0; i < na; i++)
		want[i] = f(a[i].a, a[i].b);
	if (reloc_build(fn, len, addr_of(fn), probe, flags, addr_of(p),
			addr_of((const void *) count), &pad, &why) < 0) {
		check(false, "%s (+%#" PRIx64 " of %zu bytes): pad built (%s)", name,
		      probe - addr_of(fn), len, why);
		free(copy);
		return;
	}
	if (!text_writable(fn, len, true)) {
		check(false, "%s: mprotect its text writable: %m", name);
		free(copy);
		return;
	}
	memcpy(p, pad.code, pad.len);
	memcpy((void *) (uintptr_t) probe, pad.patch, pad.displaced);
	calls0 = real_calls;
	for (unsigned r = 0; r < rounds; r++)
		for (size_t i = 0; i < na; i++)
			bad += f(a[i].a, a[i].b) != want[i];
	calls0 = real_calls - calls0;
	{
		uint64_t expect = per_step ? (uint64_t) calls0 : (uint64_t) rounds * na;

		check(!bad && *count == expect, "%s (+%#" PRIx64 ", %zu bytes displaced): %u calls:"
		      " %u wrong, counted %" PRIu64 " of %" PRIu64, name, probe - addr_of(fn),
		      pad.displaced, rounds * (unsigned) na, bad, *count, expect);
	}
	memcpy((void *) (uintptr_t) probe, pad.orig, pad.displaced);
	check(!memcmp(fn, copy, len), "%s: restored, its bytes are the original's", name);
	text_writable(fn, len, false);
	bad = 0;
	for (size_t i = 0; i < na; i++)
		bad += f(a[i].a, a[i].b) != want[i];
	check(!bad && *count == (per_step ? (uint64_t) calls0 : (uint64_t) rounds * na),
	      "%s: restored, right and no longer counted", name);
	free(copy);
}

/*
 * In fn as capstone decodes it: the head of its loop (where a jump goes
 * back to), or with rip, its first instruction that addresses from rip.
 */
static uint64_t
find_in(const void *fn, bool rip)
{
	struct disasm_insn *in = NULL;
	size_t len = func_size(fn);
	const char *why = "";
	uint64_t at = 0;
	long n;

	n = disasm_code(fn, len, addr_of(fn), 10000, &in, &why);
	for (long i = 0; i < n && !at; i++) {
		const char *op = strchr(in[i].text, ' ');
		uint64_t t;

		if (rip) {
			if (strstr(in[i].text, "[rip "))
				at = in[i].addr;
			continue;
		}
		if (in[i].text[0] != 'j' || !op || strncmp(op, " 0x", 3))
			continue;
		t = strtoull(op + 1, NULL, 16);
		if (t >= addr_of(fn) && t < in[i].addr)
			at = t;
	}
	free(in);
	return at;
}

static bool
inside(const void *pc, const void *fn)
{
	return addr_of(pc) >= addr_of(fn) && addr_of(pc) < addr_of(fn) + func_size(fn);
}

static void
test_real(void)
{
	static const struct real_args steps[] = {
		{ 27, 200 }, { 7, 50 }, { 1, 10 }, { 97, 30 }, { 6, 3 }, { 0, 5 }, { -3, 40 },
	};
	static const struct real_args mix[] = {
		{ 0, 0 }, { 1, 2 }, { -3, 5 }, { 7, -7 }, { 100, 3 }, { 5, 100 }, { 12345, 678 },
	};
	static const char *const strs[] = { "", "a", "causaltop", "jump pad", "x86-64" };
	struct real_args hash[5];
	uint64_t head;
	long r;

	for (size_t i = 0; i < 5; i++)
		hash[i] = (struct real_args) { (long) (uintptr_t) strs[i], (long) i * 7 };
	real_case("reloc_real_steps, entry", (void *) reloc_real_steps,
		  addr_of((void *) reloc_real_steps), RELOC_ENTRY, steps, 7, 50, false);
	real_case("reloc_real_mix, entry", (void *) reloc_real_mix,
		  addr_of((void *) reloc_real_mix), RELOC_ENTRY, mix, 7, 100, false);
	real_case("reloc_real_hash, entry", (void *) reloc_real_hash,
		  addr_of((void *) reloc_real_hash), RELOC_ENTRY, hash, 5, 100, false);
	real_case("reloc_real_step, entry", (void *) reloc_real_step,
		  addr_of((void *) reloc_real_step), RELOC_ENTRY, mix, 7, 100, false);

	/* Off the entry, where the first RIP-relative operand is: flags saved. */
	head = find_in((void *) reloc_real_step, true);
	check(head != 0, "reloc_real_step has a RIP-relative operand");
	if (head)
		real_case("reloc_real_step, its first RIP-relative instruction",
			  (void *) reloc_real_step, head, 0, mix, 7, 100, false);

	/* The head of the loop runs once a step: counted off the entry. */
	head = find_in((void *) reloc_real_steps, false);
	check(head != 0, "reloc_real_steps has a loop (a jump back)");
	if (head)
		real_case("reloc_real_steps, its loop's head", (void *) reloc_real_steps, head, 0,
			  steps, 7, 50, true);

	/*
	 * Unwinding through a patched function: the return address the callee
	 * sees is in the caller, and a backtrace goes on from there.
	 */
	{
		void *fn = (void *) reloc_real_steps;
		size_t len = func_size(fn);
		uint8_t *p = new_pad();
		volatile uint64_t *count = new_counter();
		struct reloc_pad pad;
		const char *why = "";
		int in_fn = -1, in_main = -1;
		long want = reloc_real_steps(27, 3);

		if (!head || reloc_build(fn, len, addr_of(fn), head, 0, addr_of(p),
					 addr_of((const void *) count), &pad, &why) < 0 ||
		    !text_writable(fn, len, true))
			return;
		memcpy(p, pad.code, pad.len);
		memcpy((void *) (uintptr_t) head, pad.patch, pad.displaced);
		real_bt = true;
		r = reloc_real_steps(27, 3);
		memcpy((void *) (uintptr_t) head, pad.orig, pad.displaced);
		text_writable(fn, len, false);
		/* Past backtrace's own frames (an interceptor's, under ASan). */
		for (int i = 0; i < real_nframes; i++) {
			if (in_fn < 0 && inside(real_frames[i], fn))
				in_fn = i;
			if (in_main < 0 && inside(real_frames[i], (void *) main))
				in_main = i;
		}
		check(r == want && *count == 3, "patched at its loop: 27, 3 steps: %ld (want %ld),"
		      " counted %" PRIu64 " (want 3)", r, want, *count);
		check(inside(real_ret, fn), "the callee returns into reloc_real_steps (%p)",
		      real_ret);
		check(in_fn >= 1 && in_main > in_fn && inside(real_frames[in_fn - 1],
							     (void *) reloc_real_step),
		      "backtrace from the callee: %d frames, reloc_real_step, reloc_real_steps"
		      " (%d), on to main (%d)", real_nframes, in_fn, in_main);
	}
}

int
main(void)
{
	region = map_near((void *) reloc_real_steps, REGION_LEN);
	if (!region) {
		printf("FAIL: no RWX region within 2 GB of the text: %m\n");
		return 1;
	}
	test_entries();
	test_rip_relative();
	test_branches();
	test_calls();
	test_live_flags();
	test_refusals();
	test_real();
	munmap(region, REGION_LEN);
	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}

#else

int
main(void)
{
	uint8_t code[16] = { 0 };
	struct reloc_pad pad;
	const char *why = "";

	check(reloc_build(code, sizeof(code), 0x1000, 0x1000, RELOC_ENTRY, 0x2000, 0x3000, &pad,
			  &why) == -1 && !strcmp(why, "code patching: x86-64 only"),
	      "refused off x86-64: %s", why);
	if (failures)
		return 1;
	printf("all checks passed\n");
	return 0;
}

#endif
