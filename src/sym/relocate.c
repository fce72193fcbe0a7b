#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "sym/relocate.h"

#if defined(__x86_64__)

# include <capstone/capstone.h>
# include "sym/disasm.h"

/* Bytes of the jmp rel32 that goes to the pad and comes back from it. */
# define JMP_LEN	5

struct reloc {
	const uint8_t *func;
	size_t func_len;
	uint64_t func_addr, addr, pad_addr, counter_addr;
	unsigned flags;
	struct disasm_detail *dd;
	struct reloc_pad *pad;
	const char **why;
};

static char reloc_why[256];

static int __attribute__((format(printf, 2, 3)))
refuse(struct reloc *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reloc_why, sizeof(reloc_why), fmt, ap);
	va_end(ap);
	*r->why = reloc_why;
	return -1;
}

static bool
in_group(const cs_insn *insn, uint8_t group)
{
	for (unsigned i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == group)
			return true;
	return false;
}

/* The displacement from next (an instruction's end) to target, if it fits. */
static bool
rel32(uint64_t next, uint64_t target, int32_t *rel)
{
	int64_t d = (int64_t) (target - next);

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (int32_t) d;
	return true;
}

/* x86 is little-endian, as the host that runs this. */
static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Where the next byte of the pad will run. */
static uint64_t
pad_here(const struct reloc *r)
{
	return r->pad_addr + r->pad->len;
}

static int
emit(struct reloc *r, const void *bytes, size_t n)
{
	/*
	 * Cannot happen (the prologue's 23 bytes, at most 19 displaced ones
	 * made at most 3.6 times longer, a jmp): a guard.
	 */
	if (r->pad->len + n > RELOC_PAD_MAX)
		return refuse(r, "the pad for 0x%" PRIx64 " would pass %d bytes", r->addr,
			      RELOC_PAD_MAX);
	memcpy(r->pad->code + r->pad->len, bytes, n);
	r->pad->len += n;
	return 0;
}

/* jmp rel32, or jcc rel32 (0F 80+cc) when cc >= 0, from the pad to target. */
static int
emit_branch(struct reloc *r, int cc, uint64_t target, const cs_insn *insn)
{
	uint8_t b[6];
	size_t n = 0;
	int32_t rel;

	if (cc >= 0) {
		b[n++] = 0x0f;
		b[n++] = (uint8_t) (0x80 | cc);
	} else {
		b[n++] = 0xe9;
	}
	if (!rel32(pad_here(r) + n + 4, target, &rel)) {
		if (!insn)
			return refuse(r, "the pad at 0x%" PRIx64 " is out of a jmp's reach of 0x%"
				      PRIx64, r->pad_addr, target);
		return refuse(r, "the target 0x%" PRIx64 " of the %s at 0x%" PRIx64
			      " is out of a jmp's reach of the pad at 0x%" PRIx64, target,
			      insn->mnemonic, insn->address, r->pad_addr);
	}
	put32(b + n, (uint32_t) rel);
	return emit(r, b, n + 4);
}

/* lock incq [rip + disp32] on the counter. */
static int
emit_count(struct reloc *r)
{
	uint8_t b[8] = { 0xf0, 0x48, 0xff, 0x05 };
	int32_t rel;

	if (!rel32(pad_here(r) + sizeof(b), r->counter_addr, &rel))
		return refuse(r, "the counter at 0x%" PRIx64 " is out of reach of the pad at 0x%"
			      PRIx64 " (more than 2 GB)", r->counter_addr, r->pad_addr);
	put32(b + 4, (uint32_t) rel);
	return emit(r, b, sizeof(b));
}

/*
 * Off a function's entry, the flags may be live (a cmp before its jcc)
 * and so may the 128 bytes below rsp (the red zone: a leaf's locals).
 * lea does not touch the flags; pushfq, past the red zone, saves them
 * from the locked increment.
 */
static int
emit_count_saving(struct reloc *r)
{
	static const uint8_t down[] = {
		0x48, 0x8d, 0x64, 0x24, 0x80,	/* lea rsp, [rsp - 128] */
		0x9c,				/* pushfq */
	};
	static const uint8_t up[] = {
		0x9d,				/* popfq */
		0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,	/* lea rsp, [rsp + 128] */
	};

	if (emit(r, down, sizeof(down)) < 0 || emit_count(r) < 0)
		return -1;
	return emit(r, up, sizeof(up));
}

/*
 * The return address of a relocated call, pushed without touching the
 * flags: push imm32 sign-extends, so the high half is written after.
 */
static int
emit_push_return(struct reloc *r, uint64_t ret)
{
	uint8_t b[13] = { 0x68, 0, 0, 0, 0, 0xc7, 0x44, 0x24, 0x04 };

	put32(b + 1, (uint32_t) ret);		/* push imm32 */
	put32(b + 9, (uint32_t) (ret >> 32));	/* mov dword [rsp + 4], imm32 */
	return emit(r, b, sizeof(b));
}

/* A memory operand addressed from rip (or eip, with a 67 prefix)? */
static bool
rip_relative(const cs_insn *insn, bool *eip)
{
	const cs_x86 *x = &insn->detail->x86;
	bool rip = false;

	*eip = false;
	for (unsigned i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (x->operands[i].mem.base == X86_REG_RIP)
			rip = true;
		if (x->operands[i].mem.base == X86_REG_EIP)
			*eip = rip = true;
	}
	/* mod 00, rm 101: in 64-bit mode, [rip + disp32], whatever capstone's operands say. */
	if (x->encoding.modrm_offset && (x->modrm & 0xc7) == 0x05)
		rip = true;
	return rip;
}

/*
 * Copy an instruction into the pad, its RIP-relative displacement (if
 * any) made to reach the same address from there.  modrm_reg >= 0
 * replaces the ModRM reg field (an indirect call's /2 made a jmp's /4).
 */
static int
emit_insn(struct reloc *r, const cs_insn *insn, int modrm_reg)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t b[16];
	bool eip;

	memcpy(b, insn->bytes, insn->size);
	if (modrm_reg >= 0)
		b[x->encoding.modrm_offset] = (uint8_t) ((b[x->encoding.modrm_offset] & 0xc7) |
							 modrm_reg << 3);
	if (rip_relative(insn, &eip)) {
		unsigned off = x->encoding.disp_offset;
		uint64_t abs;
		int32_t disp;

		if (eip || x->addr_size != 8)
			return refuse(r, "the %s at 0x%" PRIx64 " addresses from eip: not"
				      " relocated", insn->mnemonic, insn->address);
		if (!off || x->encoding.disp_size != 4 || off + 4u > insn->size)
			return refuse(r, "the RIP-relative %s at 0x%" PRIx64
				      ": capstone shows no 32-bit displacement",
				      insn->mnemonic, insn->address);
		memcpy(&disp, b + off, sizeof(disp));
		if (disp != x->disp)
			return refuse(r, "the RIP-relative %s at 0x%" PRIx64
				      ": capstone's displacement is not the bytes'",
				      insn->mnemonic, insn->address);
		abs = insn->address + insn->size + (uint64_t) (int64_t) disp;
		if (!rel32(pad_here(r) + insn->size, abs, &disp))
			return refuse(r, "the RIP-relative operand 0x%" PRIx64 " of the %s at 0x%"
				      PRIx64 " is out of reach of the pad at 0x%" PRIx64, abs,
				      insn->mnemonic, insn->address, r->pad_addr);
		put32(b + off, (uint32_t) disp);
	}
	return emit(r, b, insn->size);
}

/* A direct branch's target (capstone gives it absolute), or false. */
static bool
direct_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (!in_group(insn, X86_GRP_BRANCH_RELATIVE) && !in_group(insn, X86_GRP_JUMP) &&
	    !in_group(insn, X86_GRP_CALL))
		return false;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t) x->operands[0].imm;
	return true;
}

/*
 * A call, always the last displaced instruction (the return address
 * must be where the original code goes on).  Relocated as gdb does: the
 * original return address pushed, then a jmp to the callee.  Not a call
 * from the pad: a return address inside the pad has no unwind info, and a
 * C++ exception thrown under it, a backtrace, a sampling profiler's
 * unwind would stop there.  A shadow stack would see the push: refused.
 */
static int
emit_call(struct reloc *r, const cs_insn *insn, bool last, bool direct, uint64_t target)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t ret = insn->address + insn->size;

	if (r->flags & RELOC_SHSTK)
		return refuse(r, "the call at 0x%" PRIx64 " is among the %zu bytes replaced: with"
			      " a shadow stack its return address cannot be the original's",
			      insn->address, r->pad->displaced);
	if (!last)
		return refuse(r, "the call at 0x%" PRIx64 " is among the %zu bytes replaced and"
			      " would return inside them", insn->address, r->pad->displaced);
	if (x->prefix[2] || x->prefix[3])
		return refuse(r, "the call at 0x%" PRIx64 " has an operand- or address-size"
			      " prefix: not relocated", insn->address);
	if (direct) {
		if (x->opcode[0] != 0xe8)
			return refuse(r, "the call at 0x%" PRIx64 " is of a form not relocated",
				      insn->address);
		if (emit_push_return(r, ret) < 0)
			return -1;
		return emit_branch(r, -1, target, insn);
	}
	/* call r/m64 (FF /2) becomes jmp r/m64 (FF /4) after the push. */
	if (x->opcode[0] != 0xff || !x->encoding.modrm_offset || (x->modrm >> 3 & 7) != 2)
		return refuse(r, "the call at 0x%" PRIx64 " (%s) is of a form not relocated",
			      insn->address, insn->op_str);
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_MEM &&
		    (o->mem.base == X86_REG_RSP || o->mem.index == X86_REG_RSP))
			return refuse(r, "the call at 0x%" PRIx64 " (%s) reads through rsp,"
				      " which the pushed return address moves", insn->address,
				      insn->op_str);
	}
	if (emit_push_return(r, ret) < 0)
		return -1;
	return emit_insn(r, insn, 4);
}

/*
 * One displaced instruction into the pad.  *falls: whether the code
 * after it in the pad can run (it cannot after a jmp, ret or call).
 */
static int
relocate_insn(struct reloc *r, const cs_insn *insn, bool last, bool *falls)
{
	const cs_x86 *x = &insn->detail->x86;
	const char *m = insn->mnemonic;
	uint64_t at = insn->address, target;

	*falls = true;
	switch (insn->id) {
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
		return refuse(r, "a %s at 0x%" PRIx64 " is among the %zu bytes replaced: a rel8"
			      " branch with no rel32 form", m, at, r->pad->displaced);
	case X86_INS_XBEGIN:
		return refuse(r, "an xbegin at 0x%" PRIx64 " is among the %zu bytes replaced:"
			      " its abort address is not relocated", at, r->pad->displaced);
	case X86_INS_INT3:
		return refuse(r, "an int3 at 0x%" PRIx64 " is among the %zu bytes replaced:"
			      " a breakpoint (patched already?)", at, r->pad->displaced);
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:
	case X86_INS_INTO:
		/* The kernel, a tracer, seccomp's instruction_pointer see its address. */
		return refuse(r, "a system call (%s) at 0x%" PRIx64 " is among the %zu bytes"
			      " replaced: its address is seen", m, at, r->pad->displaced);
	case X86_INS_UD0:
	case X86_INS_UD2:
	case X86_INS_UD2B:
	case X86_INS_HLT:
		/* Here to fault: a handler that reads the faulting address would see the pad's. */
		return refuse(r, "a %s at 0x%" PRIx64 " is among the %zu bytes replaced: it"
			      " faults on purpose", m, at, r->pad->displaced);
	case X86_INS_RET:
		/*
		 * Copied: the pad leaves rsp and the stack as they were before
		 * the displaced instructions run, so it returns to the caller
		 * as it would have from here.
		 */
		*falls = false;
		return emit_insn(r, insn, -1);
	case X86_INS_LJMP:
	case X86_INS_LCALL:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return refuse(r, "a far transfer (%s) at 0x%" PRIx64 " is among the %zu bytes"
			      " replaced", m, at, r->pad->displaced);
	default:
		break;
	}
	if (in_group(insn, X86_GRP_INT) || in_group(insn, X86_GRP_PRIVILEGE))
		return refuse(r, "a %s at 0x%" PRIx64 " is among the %zu bytes replaced: it traps"
			      " in user mode", m, at, r->pad->displaced);
	if (insn->id == X86_INS_CALL) {
		bool direct = direct_target(insn, &target);

		*falls = false;
		return emit_call(r, insn, last, direct, direct ? target : 0);
	}
	if (direct_target(insn, &target)) {
		int cc = -1;

		if (x->prefix[2] || x->prefix[3])
			return refuse(r, "the %s at 0x%" PRIx64 " has an operand- or address-size"
				      " prefix: not relocated", m, at);
		if (insn->id == X86_INS_JMP && (x->opcode[0] == 0xeb || x->opcode[0] == 0xe9))
			*falls = false;
		else if ((x->opcode[0] & 0xf0) == 0x70)
			cc = x->opcode[0] & 0xf;
		else if (x->opcode[0] == 0x0f && (x->opcode[1] & 0xf0) == 0x80)
			cc = x->opcode[1] & 0xf;
		else
			return refuse(r, "a %s at 0x%" PRIx64 " is among the %zu bytes replaced: a"
				      " relative branch of a form not relocated", m, at,
				      r->pad->displaced);
		return emit_branch(r, cc, target, insn);
	}
	/* An indirect jmp (through the GOT: scan_function let no other pass). */
	if (in_group(insn, X86_GRP_JUMP))
		*falls = false;
	return emit_insn(r, insn, -1);
}

/*
 * The whole function, decoded from its start: addr must start an
 * instruction, and nothing in the function may jump strictly inside the
 * bytes replaced.  Sets pad->displaced.
 */
static int
scan_function(struct reloc *r)
{
	const uint8_t *p = r->func;
	size_t n = r->func_len;
	uint64_t a = r->func_addr, end = r->func_addr + r->func_len;
	uint64_t min_target = UINT64_MAX, min_from = 0;	/* the lowest target past addr */
	char min_what[32] = "";
	size_t displaced = 0;
	bool started = false;

	while (n) {
		const cs_insn *insn;
		uint64_t at = a, target;

		insn = disasm_detail_next(r->dd, &p, &n, &a);
		if (!insn)
			return refuse(r, "cannot decode the instruction at 0x%" PRIx64
				      ", before the function's end at 0x%" PRIx64
				      ": what jumps where is unknown", at, end);
		if (at < r->addr && a > r->addr)
			return refuse(r, "0x%" PRIx64 " is inside the %s at 0x%" PRIx64
				      ", not at an instruction's start", r->addr, insn->mnemonic,
				      at);
		if (at == r->addr)
			started = true;
		if (started && displaced < JMP_LEN)
			displaced += insn->size;
		if (direct_target(insn, &target)) {
			if (target > r->addr && target < min_target) {
				min_target = target;
				min_from = at;
				snprintf(min_what, sizeof(min_what), "%s", insn->mnemonic);
			}
		} else if (in_group(insn, X86_GRP_JUMP)) {
			const cs_x86 *x = &insn->detail->x86;

			/* jmp [rip + x], a tail call through the GOT, goes out of the function. */
			if (x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
			    x->operands[0].mem.base != X86_REG_RIP ||
			    x->operands[0].mem.index != X86_REG_INVALID)
				return refuse(r, "an indirect jump at 0x%" PRIx64 " (%s %s): a jump"
					      " table or computed jump could land inside the bytes"
					      " replaced at 0x%" PRIx64, at, insn->mnemonic,
					      insn->op_str, r->addr);
		}
	}
	if (!started || displaced < JMP_LEN)
		return refuse(r, "the function ends %" PRIu64 " bytes after the probe at 0x%"
			      PRIx64 ": too short to patch", end - r->addr, r->addr);
	if (min_target < r->addr + displaced)
		return refuse(r, "a %s at 0x%" PRIx64 " lands inside the %zu bytes replaced at 0x%"
			      PRIx64 " (at 0x%" PRIx64 ")", min_what, min_from, displaced, r->addr,
			      min_target);
	r->pad->displaced = displaced;
	return 0;
}

/* The displaced instructions into the pad, then the jmp back. */
static int
relocate(struct reloc *r)
{
	const uint8_t *p = r->func + (r->addr - r->func_addr);
	size_t n = r->pad->displaced;
	uint64_t a = r->addr;
	bool falls = true;

	while (n) {
		const cs_insn *insn;
		uint64_t at = a;

		insn = disasm_detail_next(r->dd, &p, &n, &a);
		if (!insn)	/* decoded once already by scan_function */
			return refuse(r, "cannot decode the instruction at 0x%" PRIx64, at);
		if (relocate_insn(r, insn, !n, &falls) < 0)
			return -1;
	}
	if (falls)
		return emit_branch(r, -1, r->addr + r->pad->displaced, NULL);
	return 0;
}

int
reloc_build(const uint8_t *func, size_t func_len, uint64_t func_addr, uint64_t addr,
	    unsigned flags, uint64_t pad_addr, uint64_t counter_addr,
	    struct reloc_pad *pad, const char **why)
{
	struct reloc r = {
		.func = func, .func_len = func_len, .func_addr = func_addr, .addr = addr,
		.pad_addr = pad_addr, .counter_addr = counter_addr, .flags = flags,
		.pad = pad, .why = why,
	};
	int32_t rel;
	int ret;

	memset(pad, 0, sizeof(*pad));
	if (addr < func_addr || addr - func_addr >= func_len)
		return refuse(&r, "0x%" PRIx64 " is outside the function at 0x%" PRIx64
			      " (%zu bytes)", addr, func_addr, func_len);
	if ((flags & RELOC_ENTRY) && addr != func_addr)
		return refuse(&r, "0x%" PRIx64 " is not the entry of the function at 0x%" PRIx64
			      ": its flags may be live", addr, func_addr);
	if (func_addr + func_len - addr < JMP_LEN)
		return refuse(&r, "the function ends %" PRIu64 " bytes after the probe at 0x%"
			      PRIx64 ": too short to patch", func_addr + func_len - addr, addr);
	if (counter_addr % 8)
		return refuse(&r, "the counter at 0x%" PRIx64 " is not 8-byte aligned",
			      counter_addr);
	if (!rel32(addr + JMP_LEN, pad_addr, &rel))
		return refuse(&r, "the pad at 0x%" PRIx64 " is out of a jmp's reach of 0x%" PRIx64
			      " (more than 2 GB)", pad_addr, addr);
	r.dd = disasm_detail_open(why);
	if (!r.dd)
		return -1;
	ret = scan_function(&r);
	if (!ret)
		ret = flags & RELOC_ENTRY ? emit_count(&r) : emit_count_saving(&r);
	if (!ret)
		ret = relocate(&r);
	disasm_detail_close(r.dd);
	if (ret < 0)
		return -1;
	memcpy(pad->orig, func + (addr - func_addr), pad->displaced);
	/* int3s after the jmp: a jump the checks missed traps, not runs half an instruction. */
	pad->patch[0] = 0xe9;
	put32(pad->patch + 1, (uint32_t) rel);
	memset(pad->patch + JMP_LEN, 0xcc, pad->displaced - JMP_LEN);
	return 0;
}

#else

int
reloc_build(const uint8_t *func, size_t func_len, uint64_t func_addr, uint64_t addr,
	    unsigned flags, uint64_t pad_addr, uint64_t counter_addr,
	    struct reloc_pad *pad, const char **why)
{
	(void) func;
	(void) func_len;
	(void) func_addr;
	(void) addr;
	(void) flags;
	(void) pad_addr;
	(void) counter_addr;
	memset(pad, 0, sizeof(*pad));
	*why = "code patching: x86-64 only";
	return -1;
}

#endif
