#include "config.h"
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/xmalloc.h"
#include "sym/disasm.h"

/*
 * libcapstone is loaded on the first disassembly, not at startup: its
 * relocation tables and the tables they patch put about 3 MB into the
 * supervisor's resident set at load, and only the TUI's code view needs
 * it (and relocate.c, when a probe is patched in).  The soname follows
 * the API major version (libcapstone.so.4 for 4.x).
 */
#define CAPSTONE_STR_(x)	#x
#define CAPSTONE_STR(x)		CAPSTONE_STR_(x)
#define CAPSTONE_SONAME		"libcapstone.so." CAPSTONE_STR(CS_API_MAJOR)

static struct {
	int state;			/* 0 not tried, 1 loaded, -1 failed */
	char why[256];
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
} capstone;

static bool
capstone_load(const char **why)
{
	void *h;

	if (capstone.state) {
		*why = capstone.why;
		return capstone.state > 0;
	}
	capstone.state = -1;
	h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(capstone.why, sizeof(capstone.why), "capstone: %s", dlerror());
		*why = capstone.why;
		return false;
	}
	/* POSIX: a function pointer converts from dlsym's void * so. */
	*(void **) &capstone.open = dlsym(h, "cs_open");
	*(void **) &capstone.option = dlsym(h, "cs_option");
	*(void **) &capstone.malloc = dlsym(h, "cs_malloc");
	*(void **) &capstone.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **) &capstone.free = dlsym(h, "cs_free");
	*(void **) &capstone.close = dlsym(h, "cs_close");
	if (!capstone.open || !capstone.option || !capstone.malloc ||
	    !capstone.disasm_iter || !capstone.free || !capstone.close) {
		snprintf(capstone.why, sizeof(capstone.why), "capstone: %s lacks the 4.x API",
			 CAPSTONE_SONAME);
		dlclose(h);
		*why = capstone.why;
		return false;
	}
	capstone.state = 1;	/* kept loaded for the rest of the run */
	return true;
}

/* The host's architecture: causaltop profiles programs of its own machine. */
static bool
open_host(csh *cs)
{
#if defined(__x86_64__)
	return capstone.open(CS_ARCH_X86, CS_MODE_64, cs) == CS_ERR_OK;
#elif defined(__aarch64__)
	return capstone.open(CS_ARCH_ARM64, CS_MODE_ARM, cs) == CS_ERR_OK;
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
	if (!capstone_load(why))
		return -1;
	if (!open_host(&cs)) {
		*why = "no disassembler for this machine";
		return -1;
	}
	/* Operand details are not wanted (CS_OPT_DETAIL stays off). */
	insn = capstone.malloc(cs);
	if (!insn) {
		capstone.close(&cs);
		*why = "capstone: out of memory";
		return -1;
	}
	while (len && (size_t) k < max && capstone.disasm_iter(cs, &p, &len, &addr, insn)) {
		struct disasm_insn *d;

		if ((size_t) k == cap)
			*out = xgrowarray(*out, &cap, (size_t) k + 1, sizeof(**out));
		d = &(*out)[k++];
		d->addr = insn->address;
		d->size = insn->size;
		snprintf(d->text, sizeof(d->text), "%s%s%s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", insn->op_str);
	}
	capstone.free(insn, 1);
	capstone.close(&cs);
	return k;
}

struct disasm_detail {
	csh cs;
	cs_insn *insn;
};

struct disasm_detail *
disasm_detail_open(const char **why)
{
	struct disasm_detail *d;

	if (!capstone_load(why))
		return NULL;
	d = xcalloc(1, sizeof(*d));
	if (!open_host(&d->cs)) {
		free(d);
		*why = "no disassembler for this machine";
		return NULL;
	}
	if (capstone.option(d->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(d->insn = capstone.malloc(d->cs))) {
		capstone.close(&d->cs);
		free(d);
		*why = "capstone: cannot decode with details";
		return NULL;
	}
	return d;
}

const struct cs_insn *
disasm_detail_next(struct disasm_detail *d, const uint8_t **code, size_t *len, uint64_t *addr)
{
	if (!*len || !capstone.disasm_iter(d->cs, code, len, addr, d->insn))
		return NULL;
	return d->insn;
}

void
disasm_detail_close(struct disasm_detail *d)
{
	if (!d)
		return;
	capstone.free(d->insn, 1);
	capstone.close(&d->cs);
	free(d);
}
