/*
 * Machine code to text with capstone (4.x API), for the host's
 * architecture: what the TUI shows of a line's instructions.  Pure: the
 * bytes come from the caller (symbolizer.h reads them from the ELF file).
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

#endif
