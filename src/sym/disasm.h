/*
 * Machine code to text with capstone (4.x API), for the host's
 * architecture: what the TUI shows of a line's instructions; and decoded
 * with capstone's operand details for relocate.c.  Pure: the bytes come
 * from the caller (symbolizer.h reads them from the ELF file).  The only
 * loader of libcapstone: nobody else links or opens it.
 */
#ifndef CT_DISASM_H
# define CT_DISASM_H

# include <stddef.h>
# include <stdint.h>

# define DISASM_TEXT 200	/* capstone: mnemonic 32 + operands 160 */

struct disasm_insn {
	uint64_t addr;
	unsigned size;
	char text[DISASM_TEXT];	/* "mov rax, qword ptr [rbp - 8]" */
};

/*
 * Decode len bytes of code that runs at addr, up to max instructions.
 * Returns how many (*out malloc'ed, NULL when none); -1 with *why when
 * there is no disassembler for this machine or capstone fails.  Decoding
 * stops at the first invalid instruction.
 */
long disasm_code(const unsigned char *code, size_t len, uint64_t addr, size_t max,
		 struct disasm_insn **out, const char **why);

/*
 * Instruction by instruction with capstone's details (CS_OPT_DETAIL), for
 * code that must know what an instruction does.  The caller includes
 * <capstone/capstone.h> to read them; it does not link capstone.
 * disasm_detail_open: NULL with *why as disasm_code's.
 * disasm_detail_next: decodes the instruction at *code (at most *len bytes,
 * running at *addr) and steps the three past it, as cs_disasm_iter does;
 * NULL at the end or at invalid bytes.  The instruction is the handle's
 * own, overwritten by the next call.
 */
struct cs_insn;
struct disasm_detail;

struct disasm_detail *disasm_detail_open(const char **why);
const struct cs_insn *disasm_detail_next(struct disasm_detail *d, const uint8_t **code,
					 size_t *len, uint64_t *addr);
void disasm_detail_close(struct disasm_detail *d);

#endif
