/*
 * What the curve screen shows of a line's code: disasm.c decodes known
 * bytes as capstone should; pchist.c counts samples per (target, pc);
 * sym_func_code reads a function's bytes from its ELF file, equal to
 * what runs in this very process.  libcapstone is loaded by the first
 * disassembly, not at startup.
 * Exit status: 0 pass, 1 fail.
 */
#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym/disasm.h"
#include "sym/lines.h"
#include "sym/pchist.h"
#include "sym/scope.h"
#include "sym/symbolizer.h"
#include "unit.h"

/* A function of known size, kept whole whatever the optimization level. */
static __attribute__((noinline, used)) int
codeview_probe(int a, int b)
{
	int r = a;

	for (int i = 0; i < b; i++)
		r = r * 3 + i;
	return r;
}

/* Is libcapstone mapped into this process? */
static bool
capstone_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char ln[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(ln, sizeof(ln), f))
		found = strstr(ln, "/libcapstone.so") != NULL;
	fclose(f);
	return found;
}

static void
test_disasm(void)
{
#if defined(__x86_64__)
	/* push rbp; mov rbp, rsp; imul rax, rsi; ret */
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x0f, 0xaf, 0xc6, 0xc3 };
	static const char *const want[] = { "push rbp", "mov rbp, rsp", "imul rax, rsi", "ret" };
	static const uint64_t addr[] = { 0x1000, 0x1001, 0x1004, 0x1008 };
	struct disasm_insn *in;
	const char *why = NULL;
	long n;

	check(!capstone_mapped(), "disasm: libcapstone is not loaded before it is needed");
	n = disasm_code(code, sizeof(code), 0x1000, 100, &in, &why);
	check(capstone_mapped(), "disasm: libcapstone is loaded by the first disassembly");

	check(n == 4, "disasm: 4 instructions (%ld%s%s)", n, why ? ": " : "", why ? why : "");
	for (long i = 0; i < n && i < 4; i++)
		check(!strcmp(in[i].text, want[i]) && in[i].addr == addr[i],
		      "disasm: %#llx %s (want %s)", (unsigned long long) in[i].addr, in[i].text,
		      want[i]);
	free(in);
	n = disasm_code(code, sizeof(code), 0x1000, 2, &in, &why);
	check(n == 2, "disasm: stops at max (%ld)", n);
	free(in);
	/* 0x06 is no x86-64 instruction: decoding stops there. */
	n = disasm_code((const unsigned char *) "\x55\x06\x55", 3, 0, 100, &in, &why);
	check(n == 1, "disasm: stops at an invalid byte (%ld)", n);
	free(in);
#else
	printf("skip: disassembly checks are written for x86-64\n");
#endif
}

static void
test_pchist(void)
{
	struct pchist *h = pchist_new();
	struct pchist_entry *e;
	size_t n;

	/* Enough keys to grow the table several times. */
	for (unsigned i = 0; i < 5000; i++)
		pchist_add(h, false, i % 7, 100, 0x4000 + i % 1000);
	pchist_add(h, true, 3, 100, 0x4000);
	e = pchist_of(h, false, 3, &n);
	check(n > 0, "pchist: line 3 has addresses (%zu)", n);
	{
		uint64_t total = 0;
		bool sorted = true;

		for (size_t i = 0; i < n; i++) {
			total += e[i].count;
			sorted = sorted && (!i || e[i - 1].pc < e[i].pc);
		}
		check(total == 5000 / 7 + (3 < 5000 % 7), "pchist: line 3 counted %llu samples",
		      (unsigned long long) total);
		check(sorted, "pchist: entries by address");
	}
	free(e);
	e = pchist_of(h, true, 3, &n);
	check(n == 1 && e[0].pc == 0x4000 && e[0].count == 1 && e[0].tgid == 100,
	      "pchist: functions apart from lines");
	free(e);
	e = pchist_of(h, true, 4, &n);
	check(n == 0 && !e, "pchist: nothing for an unseen target");
	pchist_free(h);
}

static void
test_func_code(void)
{
	struct lines_table *lines = lines_new();
	struct scope *scope = scope_new();
	struct sym_proc *sp = sym_proc_new(getpid(), lines, scope);
	uint64_t pc = (uint64_t) (uintptr_t) codeview_probe + 4, start = 0;
	unsigned char *code = NULL;
	size_t len = 0;

	check(sp != NULL, "sym_proc_new(self)");
	if (!sp)
		goto out;
	check(sym_func_code(sp, pc, &start, &len, &code), "sym_func_code finds codeview_probe");
	check(start == (uint64_t) (uintptr_t) codeview_probe, "it starts at the function (%#llx)",
	      (unsigned long long) start);
	check(len > 8 && len < 4096, "its size is the symbol's (%zu)", len);
	check(code && !memcmp(code, (const void *) (uintptr_t) start, len),
	      "its bytes, from the ELF file, are the ones running");
	free(code);
	check(!sym_func_code(sp, 8, &start, &len, &code) && !code, "no code at address 8");
	sym_proc_free(sp);
out:
	scope_free(scope);
	lines_free(lines);
}

int
main(void)
{
	test_disasm();
	test_pchist();
	test_func_code();
	if (codeview_probe(1, 2) != 10)
		failures++;
	if (failures) {
		printf("%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed\n");
	return 0;
}
