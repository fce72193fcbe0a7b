#include "config.h"
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "disasm.h"
#include "xmalloc.h"

/* The host's architecture: causaltop profiles programs of its own machine. */
static bool
open_host(csh *cs)
{
#if defined(__x86_64__)
	return cs_open(CS_ARCH_X86, CS_MODE_64, cs) == CS_ERR_OK;
#elif defined(__aarch64__)
	return cs_open(CS_ARCH_ARM64, CS_MODE_ARM, cs) == CS_ERR_OK;
#else
	(void) cs;
	return false;
#endif
}

long
disasm_code(const unsigned char *code, size_t len, uint64_t addr, size_t max,
	    struct disasm_insn **out, const char **why)
{
	const uint8_t *p = code;
	cs_insn *insn;
	size_t cap = 0;
	long k = 0;
	csh cs;

	*out = NULL;
	if (!open_host(&cs)) {
		*why = "no disassembler for this machine";
		return -1;
	}
	/* Operand details are not wanted (CS_OPT_DETAIL stays off). */
	insn = cs_malloc(cs);
	while (len && (size_t) k < max && cs_disasm_iter(cs, &p, &len, &addr, insn)) {
		struct disasm_insn *d;

		if ((size_t) k == cap)
			*out = xgrowarray(*out, &cap, (size_t) k + 1, sizeof(**out));
		d = &(*out)[k++];
		d->addr = insn->address;
		d->size = insn->size;
		snprintf(d->text, sizeof(d->text), "%s%s%s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", insn->op_str);
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return k;
}
