/*
 * Unit test of src/sym/symname.c and of the C++ names in specs
 * (src/sym/probe_spec.c): demangling (C++, Rust's legacy form), the
 * names a symbol answers to, where a spec's location separator is.
 * Demangling needs libstdc++.so.6, which every Debian system has; where
 * it is missing the demangling checks are skipped (exit 77), and said.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "sym/probe_spec.h"
#include "sym/symname.h"
#include "unit.h"

static void
want_demangled(const char *sym, const char *want)
{
	char *d = symname_demangle(sym);

	if (!want)
		CHECK(!d, "%s demangled to '%s', want nothing", sym, d);
	else
		CHECK(d && !strcmp(d, want), "%s demangled to '%s', want '%s'", sym,
		      d ? d : "(null)", want);
	free(d);
}

static void
want_match(const char *sym, const char *spec, bool want)
{
	CHECK(symname_matches(sym, spec) == want, "%s %s '%s', want the opposite", sym,
	      want ? "does not answer to" : "answers to", spec);
}

static void
want_spec(const char *text, enum probe_spec_type type, const char *dso, const char *func)
{
	struct probe_spec sp;

	if (probe_spec_parse(&sp, text)) {
		CHECK(0, "'%s' refused", text);
		return;
	}
	CHECK(sp.type == type, "'%s': type %d, want %d", text, sp.type, type);
	CHECK((!dso && !sp.dso) || (dso && sp.dso && !strcmp(dso, sp.dso)),
	      "'%s': dso '%s', want '%s'", text, sp.dso ? sp.dso : "(null)", dso ? dso : "(null)");
	CHECK(!func || (sp.func && !strcmp(func, sp.func)), "'%s': function '%s', want '%s'",
	      text, sp.func ? sp.func : "(null)", func);
	probe_spec_free(&sp);
}

int
main(void)
{
	/* Separators and names: no demangler needed. */
	CHECK(!symname_colon("app::Queue::push"), "a :: taken for a separator");
	CHECK(!symname_colon("f(std::map<int, int>)"), "a :: in parameters taken for a separator");
	CHECK(symname_colon("libapp.so:Queue::push") == strchr("libapp.so:Queue::push", ':') ||
	      !strncmp(symname_colon("libapp.so:Queue::push"), ":Queue::push", 12),
	      "DSO:Queue::push: separator not found");
	CHECK(!strcmp(symname_colon("src/q.cc:12"), ":12"), "FILE:LINE: separator not found");
	CHECK(symname_valid("app::Queue<int>::push(int) const"), "a C++ name refused");
	CHECK(symname_valid("(anonymous namespace)::f"), "an anonymous namespace refused");
	CHECK(symname_valid("operator new"), "operator new refused");
	CHECK(symname_valid("f(int) [clone .constprop.0]"), "a GCC clone refused");
	CHECK(!symname_valid("work unit"), "two words taken for a name");
	CHECK(!symname_valid("12ab"), "a name starting with a digit");
	CHECK(!symname_valid(""), "an empty name");

	want_spec("app::Queue::push", SPEC_FUNC, NULL, "app::Queue::push");
	want_spec("libapp.so:Queue::push", SPEC_FUNC, "libapp.so", "Queue::push");
	want_spec("Queue<int>::push(int)", SPEC_FUNC, NULL, "Queue<int>::push(int)");
	want_spec("q.cc:12", SPEC_LINE, NULL, NULL);
	want_spec("libapp.so:0x1234", SPEC_ADDR, "libapp.so", NULL);

	/* A C name is itself, matched exactly, never demangled. */
	want_demangled("main", NULL);
	want_demangled("_start", NULL);
	want_match("main", "main", true);
	want_match("work_unit", "work", false);

	{
		char *probe = symname_demangle("_Z1fv");

		if (!probe) {
			printf("unit-symname: no demangler here (libstdc++.so.6): skipped the rest\n");
			return failures ? 1 : 77;
		}
		free(probe);
	}
	want_demangled("_Z19parsec_barrier_waitP16parsec_barrier_t",
		       "parsec_barrier_wait(parsec_barrier_t*)");
	want_demangled("_ZN3app5QueueIiE4pushEi", "app::Queue<int>::push(int)");
	want_demangled("_ZNK3app5Queue4sizeEv", "app::Queue::size() const");
	want_demangled("_ZN12_GLOBAL__N_15IndexIiE3addEj", "(anonymous namespace)::Index<int>::add(unsigned int)");
	/* Rust, legacy: the hash dropped, the escapes decoded. */
	want_demangled("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", "core::ptr::drop_in_place");
	want_demangled("_ZN60_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..Drop$GT$4drop17h0123456789abcdefE",
		       "<alloc::vec::Vec<T> as core::ops::Drop>::drop");
	/* Not a valid mangling: left alone. */
	want_demangled("_Zqqq", NULL);

	want_match("_ZN3app5QueueIiE4pushEi", "app::Queue<int>::push(int)", true);
	want_match("_ZN3app5QueueIiE4pushEi", "app::Queue<int>::push", true);
	want_match("_ZN3app5QueueIiE4pushEi", "app::Queue::push", true);
	want_match("_ZN3app5QueueIiE4pushEi", "Queue::push", true);
	want_match("_ZN3app5QueueIiE4pushEi", "push", true);
	want_match("_ZN3app5QueueIiE4pushEi", "ueue::push", false);
	want_match("_ZN3app5QueueIiE4pushEi", "app::Queue::pop", false);
	want_match("_ZN3app5QueueIiE4pushEi", "_ZN3app5QueueIiE4pushEi", true);
	want_match("_ZNK3app5Queue4sizeEv", "app::Queue::size", true);
	want_match("_Z19parsec_barrier_waitP16parsec_barrier_t", "parsec_barrier_wait", true);
	/* A template instance's return type comes first: "void f<int>(int)". */
	want_match("_Z1fIiEvT_", "f<int>", true);
	want_match("_Z1fIiEvT_", "f", true);
	want_match("_ZN12_GLOBAL__N_15IndexIiE3addEj", "Index::add", true);
	/* GCC's clone of a function answers to the function's names. */
	want_match("_ZN3app5QueueIiE4pushEi.constprop.0", "app::Queue<int>::push(int) [clone .constprop.0]", true);
	want_match("_ZN3app5QueueIiE4pushEi.constprop.0", "Queue::push", true);
	want_match("_ZN3app5QueueIiE4pushEi.cold", "Queue::push", false);
	want_match("_ZN3app5QueueIiE4pushEi.cold", "app::Queue<int>::push(int) [clone .cold]", true);
	want_match("_ZN12_GLOBAL__N_15IndexIiE3addEj", "(anonymous namespace)::Index<int>::add", true);
	return failures ? 1 : 0;
}
