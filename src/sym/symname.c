#include "config.h"
#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "sym/rustv0.h"
#include "sym/symname.h"

/*
 * The C++ runtime's demangler, loaded when a mangled name first shows
 * up, as capstone is (disasm.c): no C++ runtime linked into a C program
 * for it, and a C program's session never loads it.  Its soname has been
 * libstdc++.so.6 since GCC 3.4.
 */
#define CXXRT_SONAME	"libstdc++.so.6"

static struct {
	int state;		/* 0: not tried, 1: loaded, -1: unavailable */
	char *(*demangle)(const char *mangled, char *buf, size_t *len, int *status);
} cxxrt;

static bool
cxxrt_load(void)
{
	void *h;

	if (cxxrt.state)
		return cxxrt.state > 0;
	cxxrt.state = -1;
	if (!(h = dlopen(CXXRT_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		debug_msg("names stay mangled: %s", dlerror());
		return false;
	}
	/* POSIX: a function pointer converts from dlsym's void * so. */
	*(void **) &cxxrt.demangle = dlsym(h, "__cxa_demangle");
	if (!cxxrt.demangle) {
		debug_msg("names stay mangled: no __cxa_demangle in %s", CXXRT_SONAME);
		dlclose(h);
		return false;
	}
	cxxrt.state = 1;
	return true;
}

/* Rust's legacy escapes in a path segment: $LT$ is '<', $u20$ ' '. */
static const struct {
	const char *esc;
	char c;
} rust_escapes[] = {
	{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
	{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
};

/* "...::h0123456789abcdef": a legacy Rust symbol's hash. */
static bool
rust_hash_at(const char *s, size_t len)
{
	if (len < 20 || strncmp(s + len - 19, "::h", 3))
		return false;
	for (size_t i = len - 16; i < len; i++)
		if (!isxdigit((unsigned char) s[i]))
			return false;
	return true;
}

/* In place: the hash dropped, the escapes decoded, ".." as "::". */
static void
rust_tidy(char *s)
{
	size_t len = strlen(s), o = 0;

	len -= 19;
	for (size_t i = 0; i < len;) {
		size_t k;

		if (s[i] == '.' && s[i + 1] == '.') {
			s[o++] = ':';
			s[o++] = ':';
			i += 2;
			continue;
		}
		/* "_$LT$...": the '_' only kept an identifier from starting with '$'. */
		if (s[i] == '_' && s[i + 1] == '$' && (o == 0 || (o >= 2 && s[o - 1] == ':' &&
							       s[o - 2] == ':'))) {
			i++;
			continue;
		}
		if (s[i] != '$') {
			s[o++] = s[i++];
			continue;
		}
		for (k = 0; k < sizeof(rust_escapes) / sizeof(rust_escapes[0]); k++) {
			size_t n = strlen(rust_escapes[k].esc);

			if (i + n <= len && !strncmp(s + i, rust_escapes[k].esc, n)) {
				s[o++] = rust_escapes[k].c;
				i += n;
				break;
			}
		}
		if (k < sizeof(rust_escapes) / sizeof(rust_escapes[0]))
			continue;
		/* $uXX$: a character by its code, ASCII only here. */
		if (s[i + 1] == 'u' && isxdigit((unsigned char) s[i + 2]) &&
		    isxdigit((unsigned char) s[i + 3]) && s[i + 4] == '$' && i + 5 <= len) {
			char hex[3] = { s[i + 2], s[i + 3], 0 };
			long c = strtol(hex, NULL, 16);

			if (c >= 0x20 && c < 0x7f) {
				s[o++] = (char) c;
				i += 5;
				continue;
			}
		}
		s[o++] = s[i++];
	}
	s[o] = 0;
}

char *
symname_demangle(const char *name)
{
	char *d;
	int status = -1;

	/* Rust's v0 form needs no C++ runtime: ours, as rustc-demangle shows it. */
	if (name && !strncmp(name, "_R", 2))
		return rustv0_demangle(name, true);
	/* Only mangled names: a C symbol never starts with _Z. */
	if (!name || strncmp(name, "_Z", 2) || !cxxrt_load())
		return NULL;
	d = cxxrt.demangle(name, NULL, NULL, &status);
	if (status || !d) {
		free(d);
		return NULL;
	}
	if (!strncmp(name, "_ZN", 3) && rust_hash_at(d, strlen(d)))
		rust_tidy(d);
	return d;
}

/*
 * The end of a demangled function's name: where its parameter list
 * starts.  The list is the last balanced "(...)" (a name may hold
 * parentheses of its own: "(anonymous namespace)::f()", "operator()").
 */
static size_t
name_end(const char *d)
{
	size_t len = strlen(d);
	int depth = 0;

	/* What may follow the list: " const", " &", "[abi:cxx11]", ... */
	while (len && d[len - 1] != ')') {
		len--;
	}
	if (!len)
		return strlen(d);
	for (size_t i = len; i-- > 0;) {
		if (d[i] == ')')
			depth++;
		else if (d[i] == '(' && --depth == 0)
			return i;
	}
	return strlen(d);
}

/* The spec's last identifier: "push" of "ns::Queue<int>::push(int)". */
static bool
last_ident(const char *spec, const char **id, size_t *len)
{
	const char *end = spec + strlen(spec), *p;

	/* Before a parameter list or a template's arguments at the end. */
	for (p = spec; *p && *p != '(' && *p != '<'; p++)
		;
	end = p;
	for (p = end; p > spec && (isalnum((unsigned char) p[-1]) || p[-1] == '_'); p--)
		;
	*id = p;
	*len = (size_t) (end - p);
	return *len > 0;
}

/*
 * A demangled function's name as users write it: no parameter list, no
 * return type (a template instance's "void f<int>(int)"), and with
 * drop_templates no template arguments either.  malloc'd.
 */
static char *
plain_name(const char *d, bool drop_templates)
{
	size_t n = name_end(d), start = 0, o = 0;
	char *out = xmalloc(n + 1);
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i] == '(' || d[i] == '<')
			depth++;
		else if ((d[i] == ')' || d[i] == '>') && depth > 0)
			depth--;
		else if (d[i] == ' ' && !depth)
			start = i + 1;
	}
	depth = 0;
	for (size_t i = start; i < n; i++) {
		if (drop_templates && d[i] == '<') {
			depth++;
			continue;
		}
		if (drop_templates && d[i] == '>' && depth > 0) {
			depth--;
			continue;
		}
		if (!depth)
			out[o++] = d[i];
	}
	out[o] = 0;
	return out;
}

/*
 * A demangled Rust name: an impl's "<Type as Trait>::f" or a generic
 * "f::<T>", which a C++ name never spells so.
 */
static bool
rust_like(const char *d)
{
	return d[0] == '<' || strstr(d, "::<");
}

/* Does d[i] open generic arguments (after a name, or "::"), not "<T as Trait>"? */
static bool
rust_args_at(const char *d, size_t i)
{
	return i > 0 && (isalnum((unsigned char) d[i - 1]) || d[i - 1] == '_' ||
			 d[i - 1] == ':');
}

/*
 * A demangled Rust name without generic arguments ("::<...>", a type's
 * "<...>"), and an inherent impl's "<app::Queue>::push" as the path
 * users write, "app::Queue::push".  malloc'd.
 */
static char *
rust_plain(const char *d)
{
	size_t n = strlen(d), o = 0, k;
	char *out = xmalloc(n + 1);
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		size_t span = 1;

		/* "->" of a fn type closes nothing, nor does a char constant '>'. */
		if (d[i] == '-' && d[i + 1] == '>') {
			span = 2;
		} else if (d[i] == '\'' && (d[i + 1] == '<' || d[i + 1] == '>') &&
			   d[i + 2] == '\'') {
			span = 3;
		} else if (d[i] == '<' && (depth || rust_args_at(d, i))) {
			/* "f::<T>" loses its "::" with its arguments. */
			if (!depth++ && o >= 2 && !strncmp(out + o - 2, "::", 2))
				o -= 2;
			continue;
		} else if (d[i] == '>' && depth) {
			depth--;
			continue;
		}
		if (!depth) {
			memcpy(out + o, d + i, span);
			o += span;
		}
		i += span - 1;
	}
	out[o] = 0;
	/* "<path>::": an inherent impl's self type is a plain path. */
	for (k = 1; k < o && (isalnum((unsigned char) out[k]) || out[k] == '_' ||
			      out[k] == ':'); k++)
		;
	if (out[0] == '<' && k > 1 && out[k] == '>' && out[k + 1] == ':') {
		memmove(out + k, out + k + 1, o - k);
		memmove(out, out + 1, o - 1);
	}
	return out;
}

char *
symname_brief(const char *name)
{
	static const char anon[] = "(anonymous namespace)::";
	char *b, *p;

	if (!strchr(name, '(') && !strchr(name, '<'))
		return xstrdup(name);
	b = rust_like(name) ? rust_plain(name) : plain_name(name, true);
	while ((p = strstr(b, anon)))
		memmove(p, p + sizeof(anon) - 1, strlen(p + sizeof(anon) - 1) + 1);
	if (!*b) {
		free(b);
		return xstrdup(name);
	}
	return b;
}

/* form is spec, or ends with "::" spec: "Queue::push" of "app::Queue::push". */
static bool
form_matches(const char *form, const char *spec)
{
	size_t fl = strlen(form), sl = strlen(spec);

	if (fl == sl)
		return !strcmp(form, spec);
	return fl > sl + 2 && !strcmp(form + fl - sl, spec) &&
	       !strncmp(form + fl - sl - 2, "::", 2);
}

/*
 * A Rust v0 symbol answers to its demangled name, to it without a
 * clone's ".suffix", and to that without generic arguments.
 */
static bool
rust_v0_matches(const char *name, const char *spec)
{
	char *d, *plain;
	bool match;

	if (!(d = rustv0_demangle(name, true)))
		return false;
	match = form_matches(d, spec);
	if (!match && strchr(name, '.')) {
		free(d);
		if (!(d = rustv0_demangle(name, false)))
			return false;
		match = form_matches(d, spec);
	}
	if (!match) {
		plain = rust_plain(d);
		match = form_matches(plain, spec);
		free(plain);
	}
	free(d);
	return match;
}

bool
symname_matches(const char *name, const char *spec)
{
	const char *id;
	char *d, *hay, *plain;
	size_t idlen;
	bool match;

	if (!strcmp(name, spec))
		return true;
	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2))
		return false;
	/*
	 * GCC's cold part of a function ("[clone .cold]") is no entry: it
	 * answers only to a spec that names it.
	 */
	if (strstr(name, ".cold") && !strstr(spec, ".cold"))
		return false;
	/*
	 * A mangled name spells each identifier out: "4push" (not operators).
	 * So does Rust's v0 form its punycode ones' ASCII characters, all
	 * together, and last_ident takes only ASCII ones.
	 */
	if (last_ident(spec, &id, &idlen) && strncmp(id, "operator", idlen)) {
		hay = xasprintf("%.*s", (int) idlen, id);
		match = strstr(name, hay) != NULL;
		free(hay);
		if (!match)
			return false;
	}
	if (name[1] == 'R')
		return rust_v0_matches(name, spec);
	if (!(d = symname_demangle(name)))
		return false;
	match = form_matches(d, spec);
	if (!match) {
		plain = plain_name(d, false);
		match = form_matches(plain, spec);
		free(plain);
	}
	if (!match) {
		plain = plain_name(d, true);
		match = form_matches(plain, spec);
		free(plain);
	}
	free(d);
	return match;
}

const char *
symname_colon(const char *spec)
{
	const char *last = NULL;
	int depth = 0;

	for (const char *p = spec; *p; p++) {
		if (*p == '(' || *p == '<')
			depth++;
		else if ((*p == ')' || *p == '>') && depth > 0)
			depth--;
		else if (*p == ':' && p[1] == ':')
			p++;
		else if (*p == ':' && !depth)
			last = p;
	}
	return last;
}

bool
symname_valid(const char *s)
{
	const char *start = s, *last = NULL;
	int depth = 0;

	/* Starts as a name does: "f", "~T", "(anonymous namespace)::f". */
	if (!(isalpha((unsigned char) *s) || *s == '_' || *s == '~' || *s == '(') ||
	    isspace((unsigned char) s[strlen(s) - 1]))
		return false;
	for (; *s; s++) {
		if (!isprint((unsigned char) *s))
			return false;
		/* [] too: GCC's clones are "f(int) [clone .constprop.0]". */
		if (*s == '(' || *s == '<' || *s == '[')
			depth++;
		else if ((*s == ')' || *s == '>' || *s == ']') && depth > 0)
			depth--;
		/*
		 * A blank outside (), <> and [] only after a parameter list
		 * (" const") or in an operator ("operator new"): "work unit"
		 * is two words, not a name.
		 */
		if (*s == ' ' && !depth && !(last && (*last == ')' || *last == ']')) &&
		    !strstr(start, "operator"))
			return false;
		if (*s != ' ')
			last = s;
	}
	return true;
}
