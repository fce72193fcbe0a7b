/*
 * The jump pad of an in-target progress counter, as gdb's fast
 * tracepoints build theirs: the whole instructions at a probe, 5 bytes or
 * more, are replaced by a jmp to a pad that counts, runs them relocated
 * and jumps back.  x86-64 only.  Pure: the function's bytes come from the
 * caller, and the pad and the patch go back to it.
 *
 * What the caller (the ptrace side) must do, since no bytes tell it:
 * - write code[] at pad_addr before patch[] at addr, with every thread of
 *   the target stopped, and refuse while a thread's pc is strictly inside
 *   (addr, addr + displaced): it would resume in the middle of the jmp;
 *   the same for a signal frame's saved pc there (its handler returns to
 *   it).  Restore orig[] the same way, and unmap the pad only when no
 *   thread's pc, nor a saved one, is inside it;
 * - know that only jumps from inside [func_addr, func_addr + func_len)
 *   are seen: a FUNC.cold part that jumps back, an exception's landing
 *   pad (reached by the unwinder) or another entry point inside the
 *   displaced bytes are not;
 * - pass RELOC_SHSTK when the target runs with a shadow stack (CET,
 *   "x86_Thread_features: shstk" in /proc/PID/status).
 */
#ifndef CT_RELOCATE_H
# define CT_RELOCATE_H

# include <stddef.h>
# include <stdint.h>

# define RELOC_PAD_MAX		128
/* 4 bytes short of the jmp's 5, then the longest instruction (15). */
# define RELOC_DISPLACED_MAX	19

/* reloc_build's flags */
# define RELOC_ENTRY	0x1	/* addr is the function's entry: flags are dead (ABI) */
# define RELOC_SHSTK	0x2	/* a shadow stack: a displaced call cannot be relocated */

struct reloc_pad {
	uint8_t code[RELOC_PAD_MAX];	/* the pad, to be written at pad_addr */
	size_t len;
	size_t displaced;		/* bytes of original code replaced, >= 5 */
	uint8_t orig[RELOC_DISPLACED_MAX];	/* the bytes there (displaced of them) */
	uint8_t patch[RELOC_DISPLACED_MAX];	/* jmp rel32 to the pad, int3 up to displaced */
};

/*
 * func[0..func_len) are the bytes of the whole function that contains
 * addr, which starts at func_addr (its ELF symbol's value and size).
 * The pad counts with a locked increment of the 8 bytes at counter_addr
 * (aligned: a locked access across cache lines is slow, or a SIGBUS under
 * split-lock detection).  With RELOC_ENTRY it is only that; otherwise
 * (a FILE:LINE start, where the flags and the red zone may be live) it
 * steps over the red zone and saves the flags around it.
 * Returns 0, or -1 with *why (static, valid until the next call; says
 * what was refused and where).
 */
int reloc_build(const uint8_t *func, size_t func_len, uint64_t func_addr, uint64_t addr,
		unsigned flags, uint64_t pad_addr, uint64_t counter_addr,
		struct reloc_pad *pad, const char **why);

#endif
