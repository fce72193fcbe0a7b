/*
 * Unit test of src/sym/symname.c, src/sym/rustv0.c and of the C++ names
 * in specs (src/sym/probe_spec.c): demangling (C++, Rust's legacy and v0
 * forms), the names a symbol answers to, where a spec's location
 * separator is.  C++ and legacy Rust demangling need libstdc++.so.6,
 * which every Debian system has; where it is missing those checks are
 * skipped (exit 77), and said.  Rust's v0 form needs nothing.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "sym/probe_spec.h"
#include "sym/rustv0.h"
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
want_brief(const char *name, const char *want)
{
	char *b = symname_brief(name);

	CHECK(!strcmp(b, want), "brief of %s: '%s', want '%s'", name, b, want);
	free(b);
}

/*
 * Rust v0 symbols and their alternate ("{:#}") demangling.  From
 * rustc-demangle's own tests (github.com/rust-lang/rustc-demangle,
 * src/v0.rs, mod tests: t_nohash!, t_nohash_type! with its "_RMC0"
 * prefix, t_const! with its "_RIC0K...E") and from Linux perf's
 * tools/perf/tests/demangle-rust-v0-test.c (the rustc dev guide's
 * examples, checked against rustc-demangle).
 */
static const struct {
	const char *sym, *want;
} v0_vectors[] = {
	/* rustc-demangle, src/v0.rs */
	{ "_RNvC6_123foo3bar", "123foo::bar" },
	{ "_RC4f128", "f128" },
	{ "_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y",
	  "utf8_idents::საჭმელად_გემრიელი_სადილი" },
	{ "_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_", "cc::spawn::{closure#0}::{closure#0}" },
	{ "_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_4iter8iterator"
	  "8Iterator9rpositionNCNgNpB9_6memchr7memrchrs_0E0Bb_",
	  "<core::slice::Iter<u8> as core::iter::iterator::Iterator>::rposition::"
	  "<core::slice::memchr::memrchr::{closure#1}>::{closure#0}" },
	{ "_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_"
	  "ECs1iopQbuBiw2_3std",
	  "alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>" },
	{ "_RMC0INtC8arrayvec8ArrayVechKj7b_E", "<arrayvec::ArrayVec<u8, 123>>" },
	{ "_RIC0Kj7b_E", "::<123>" },
	{ "_RIC0KpE", "::<_>" },
	{ "_RIC0Khb_E", "::<11>" },
	{ "_RIC0Koff00ff00ff00ff00ff_E", "::<0xff00ff00ff00ff00ff>" },
	{ "_RIC0Ks98_E", "::<152>" },
	{ "_RIC0Kanb_E", "::<-11>" },
	{ "_RIC0Kb0_E", "::<false>" },
	{ "_RIC0Kb1_E", "::<true>" },
	{ "_RIC0Kc76_E", "::<'v'>" },
	{ "_RIC0Kc22_E", "::<'\"'>" },
	{ "_RIC0Kca_E", "::<'\\n'>" },
	{ "_RIC0Kc2202_E", "::<'∂'>" },
	{ "_RMCs4fqI2P2rA04_13const_genericINtB0_8UnsignedKhb_E", "<const_generic::Unsigned<11>>" },
	{ "_RMCs4fqI2P2rA04_13const_genericINtB0_6SignedKanb_E", "<const_generic::Signed<-11>>" },
	{ "_RMCs4fqI2P2rA04_13const_genericINtB0_4BoolKb0_E", "<const_generic::Bool<false>>" },
	{ "_RMCs4fqI2P2rA04_13const_genericINtB0_4CharKca_E", "<const_generic::Char<'\\n'>>" },
	{ "_RNvNvMCs4fqI2P2rA04_13const_genericINtB4_3FooKpE3foo3FOO",
	  "<const_generic::Foo<_>>::foo::FOO" },
	{ "_RMC0TTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E",
	  "<((((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _)))), "
	  "((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _))))), "
	  "(((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _)))), "
	  "((((_, _), (_, _)), ((_, _), (_, _))), (((_, _), (_, _)), ((_, _), (_, _))))))>" },
	{ "_RC3foo.llvm.9D1C9369", "foo" },
	{ "_RC3foo.llvm.9D1C9369@@16", "foo" },
	{ "_RNvC9backtrace3foo.llvm.A5310EB9", "backtrace::foo" },
	{ "_RNvNtNtNtNtCs92dm3009vxr_4rand4rngs7adapter9reseeding4fork23FORK_HANDLER_REGISTERED.0.0",
	  "rand::rngs::adapter::reseeding::fork::FORK_HANDLER_REGISTERED.0.0" },
	/* Linux perf, tools/perf/tests/demangle-rust-v0-test.c */
	{ "_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
	  "<std::path::PathBuf>::new" },
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ "_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "<mycrate::Example>::foo" },
	{ "_RNvXCs15kBYyAo9fc_7mycrateNtB2_7ExampleNtB2_5Trait3foo",
	  "<mycrate::Example as mycrate::Trait>::foo" },
	{ "_RNvMCs7qp2U7fqm6G_7mycrateNtB2_7Example3foo", "<mycrate::Example>::foo" },
	{ "_RNvMs_Cs7qp2U7fqm6G_7mycrateNtB4_7Example3bar", "<mycrate::Example>::bar" },
	{ "_RNvYNtCs15kBYyAo9fc_7mycrate7ExampleNtB4_5Trait7exampleB4_",
	  "<mycrate::Example as mycrate::Trait>::example" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4main0B3_", "mycrate::main::{closure#0}" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4mains_0B3_", "mycrate::main::{closure#1}" },
	{ "_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_", "mycrate::example::<i32, 1>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleFG0_RL1_hRL0_tEuEB2_",
	  "mycrate::example::<for<'a, 'b> fn(&'a u8, &'b u16)>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleKy12345678_EB2_", "mycrate::example::<305419896>" },
	{ "_RNvNvMCsd9PVOYlP1UU_7mycrateINtB4_7ExamplepKpE3foo14EXAMPLE_STATIC",
	  "<mycrate::Example<_, _>>::foo::EXAMPLE_STATIC" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleAtj8_EB2_", "mycrate::example::<[u16; 8]>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleNtB2_7ExampleBw_EB2_",
	  "mycrate::example::<mycrate::Example, mycrate::Example>" },
	{ "_RINvMsY_NtCseXNvpPnDBDp_3std4pathNtB6_4Path3neweECs7qp2U7fqm6G_7mycrate",
	  "<std::path::Path>::new::<str>" },
	{ "_RNvNvNvCs7qp2U7fqm6G_7mycrate7EXAMPLE7___getit5___KEY",
	  "mycrate::EXAMPLE::__getit::__KEY" },
};

/* Refused, for the caller to show them mangled: none may crash or hang. */
static const char *const v0_refused[] = {
	/* rustc-demangle decodes these (unstable const generics, pattern types). */
	"_RIC0Ke616263_E", "_RIC0KRe616263_E", "_RIC0KTh1_b0_E", "_RMC0WmRm1_m9_",
	/* Truncated, or not v0 at all. */
	"_R", "_RN", "_Rv", "_RNvC3foo", "_RNvC3foo3ba", "_RIC0Kh12E", "_RIC0KhxyE",
	"_RNvC3foo3bar$x", "_RC3foo.b ar", "_RC3fooXYZ", "_RC3f\xc3\xbc",
	/* Lengths and numbers past the symbol, or past 64 bits. */
	"_RNvC3foo99999999999999999999999999999bar", "_RNvC3foo18446744073709551617x",
	"_RNvCszzzzzzzzzzzzzzzzzz_3foo3bar", "_RNvC3fooBzzzzzzzzzzzzzzzzzz_",
	/* Backrefs to themselves, forwards, and round (caught by the depth cap). */
	"_RNvB1_3foo", "_RNvB9_3foo", "_RNvB_3foo", "_RIB_E", "_RMC0B3_",
	/* A lifetime no binder bound; bad bool and char constants. */
	"_RIC0RL1_pE", "_RIC0Kb2_E", "_RIC0Kcd800_E", "_RIC0Kc110000_E",
	/* Bad or empty punycode, an ASCII part past 128 characters. */
	"_RNvC1xu3a_A", "_RNvC1xu2a_", "_RNvC1xu5_zzzz",
	/* A binder of too many lifetimes for the output cap. */
	"_RIC0FGzzzzzzzzzzz_EuE",
};

/* pre, leaf n times, post (malloc'd). */
static char *
v0_repeat(const char *pre, const char *leaf, unsigned n, const char *post)
{
	size_t lp = strlen(pre), ll = strlen(leaf);
	char *s = malloc(lp + ll * n + strlen(post) + 1);

	memcpy(s, pre, lp);
	for (unsigned i = 0; i < n; i++)
		memcpy(s + lp + ll * i, leaf, ll);
	strcpy(s + lp + ll * n, post);
	return s;
}

static void
test_rustv0(void)
{
	char *sym, *want, *d;

	for (size_t i = 0; i < sizeof(v0_vectors) / sizeof(v0_vectors[0]); i++)
		want_demangled(v0_vectors[i].sym, v0_vectors[i].want);
	for (size_t i = 0; i < sizeof(v0_refused) / sizeof(v0_refused[0]); i++)
		want_demangled(v0_refused[i], NULL);

	/* rustc-demangle's recursion_limit_leaks: depth is given back. */
	sym = v0_repeat("_RIC0p", "Rp", 400, "E");
	want = v0_repeat("::<_", ", &_", 400, ">");
	want_demangled(sym, want);
	free(sym);
	free(want);
	sym = v0_repeat("_RIC0p", "C1x", 400, "E");
	want = v0_repeat("::<_", ", x", 400, ">");
	want_demangled(sym, want);
	free(sym);
	free(want);
	/* Nesting: 150 references deep is fine, 100000 is not. */
	sym = v0_repeat("_RIC0", "R", 150, "pE");
	want = v0_repeat("::<", "&", 150, "_>");
	want_demangled(sym, want);
	free(sym);
	free(want);
	sym = v0_repeat("_RIC0", "R", 100000, "pE");
	want_demangled(sym, NULL);
	free(sym);
	sym = v0_repeat("_R", "NvNv", 5000, "C1x");
	want_demangled(sym, NULL);
	free(sym);
	/*
	 * rustc-demangle's exponential explosion, 40 levels instead of 6:
	 * each "B<k>_E" closes a tuple with a copy of the one inside it, so
	 * 2^40 "_", refused at the output cap.
	 */
	sym = v0_repeat("_RMC0", "T", 40, "p");
	for (int k = 40 + 2; k >= 3; k--) {
		size_t len = strlen(sym);

		sym = realloc(sym, len + 5);
		snprintf(sym + len, 5, "B%c_E", k < 10 ? '0' + k : k < 36 ? 'a' + k - 10 : 'A' + k - 36);
	}
	d = rustv0_demangle(sym, true);
	CHECK(!d, "2^40 tuples demangled");
	free(d);
	free(sym);

	/* Only ThinLTO's ".llvm.<hex>" goes; another suffix only on request. */
	d = rustv0_demangle("_RNvC7mycrate3foo.constprop.0", false);
	CHECK(d && !strcmp(d, "mycrate::foo"), "suffix kept: %s", d ? d : "(null)");
	free(d);
	d = rustv0_demangle("_RNvC7mycrate3foo.llvm.xyz", true);
	CHECK(d && !strcmp(d, "mycrate::foo.llvm.xyz"), "not ThinLTO's: %s", d ? d : "(null)");
	free(d);

	want_match("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example", true);
	want_match("_RNvCs15kBYyAo9fc_7mycrate7example", "example", true);
	want_match("_RNvCs15kBYyAo9fc_7mycrate7example", "xample", false);
	want_match("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::other", false);
	want_match("_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_", "mycrate::example", true);
	want_match("_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_", "example", true);
	want_match("_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_", "example::<i32, 1>", true);
	want_match("_RINvCs7qp2U7fqm6G_7mycrate7exampleFG0_RL1_hRL0_tEuEB2_", "mycrate::example",
		   true);
	want_match("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "Example::foo", true);
	want_match("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "mycrate::Example::foo", true);
	want_match("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "<mycrate::Example>::foo", true);
	want_match("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "Example::bar", false);
	want_match("_RNvXCs15kBYyAo9fc_7mycrateNtB2_7ExampleNtB2_5Trait3foo", "foo", true);
	want_match("_RNvXCs15kBYyAo9fc_7mycrateNtB2_7ExampleNtB2_5Trait3foo",
		   "<mycrate::Example as mycrate::Trait>::foo", true);
	want_match("_RNCNvCsgStHSCytQ6I_7mycrate4main0B3_", "main::{closure#0}", true);
	want_match("_RNCNvCsgStHSCytQ6I_7mycrate4main0B3_", "main", false);
	want_match("_RNvC9backtrace3foo.llvm.A5310EB9", "backtrace::foo", true);
	want_match("_RNvNtNtNtNtCs92dm3009vxr_4rand4rngs7adapter9reseeding4fork"
		   "23FORK_HANDLER_REGISTERED.0.0", "fork::FORK_HANDLER_REGISTERED", true);
	want_match("_RNvC7mycrate3foo.cold", "foo", false);
	want_match("_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y",
		   "utf8_idents::საჭმელად_გემრიელი_სადილი", true);
	want_match("_RNvC3foo3ba", "ba", false);

	want_brief("mycrate::example::<i32, 1>", "mycrate::example");
	want_brief("mycrate::example::<for<'a, 'b> fn(&'a u8, &'b u16) -> u8>", "mycrate::example");
	want_brief("<mycrate::Example<_, _>>::foo::EXAMPLE_STATIC", "mycrate::Example::foo::EXAMPLE_STATIC");
	want_brief("<std::path::Path>::new::<str>", "std::path::Path::new");
	want_brief("<core::slice::Iter<u8> as core::iter::iterator::Iterator>::rposition::"
		   "<core::slice::memchr::memrchr::{closure#1}>::{closure#0}",
		   "<core::slice::Iter as core::iter::iterator::Iterator>::rposition::{closure#0}");
	want_brief("<[u8]>::len", "<[u8]>::len");
	want_brief("const_generic::f::<'>', '<'>", "const_generic::f");
	want_brief("<alloc::vec::Vec<T> as core::ops::Drop>::drop",
		   "<alloc::vec::Vec as core::ops::Drop>::drop");
	want_brief("mycrate::main::{closure#0}", "mycrate::main::{closure#0}");
	want_brief("(anonymous namespace)::Index<std::string, Policy>::add(unsigned int, int)",
		   "Index::add");
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
	want_demangled("_Run", NULL);
	want_demangled("_RTLD_next", NULL);
	test_rustv0();

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
