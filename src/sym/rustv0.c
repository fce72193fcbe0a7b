/*
 * Rust v0 demangling, after rustc-demangle's src/v0.rs: the same grammar,
 * the same alternate output.  Symbols come from untrusted binaries: every
 * read is bounded by the symbol's length, a backref must point before
 * itself, and nesting, work and output are capped; past any of these, or
 * on anything malformed, the whole symbol is refused (NULL).
 *
 * Not decoded (refused): constants other than integers, bool, char and
 * the placeholder (str, references, arrays, tuples and ADTs need unstable
 * const generics), pattern types ('W'), punycode identifiers of more than
 * 128 characters (rustc-demangle shows those as "punycode{...}").  A char
 * constant is escaped as Rust's escape_debug does for ASCII and for the
 * C1 controls; other non-ASCII characters are printed as they are.
 */
#include "config.h"
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "sym/rustv0.h"

/* rustc-demangle allows 500 levels; fewer keep the C stack small. */
#define V0_MAX_DEPTH	200
/* Backrefs can make the output exponential in the symbol's length. */
#define V0_MAX_OUT	65536
#define V0_MAX_STEPS	200000
/* As rustc-demangle: the longest punycode identifier it decodes. */
#define V0_MAX_PUNY	128

struct v0 {
	const char *s;		/* the symbol after "_R": backrefs count from here */
	size_t len;		/* its length, without a ".llvm.<hex>" ending */
	size_t pos;
	unsigned depth, steps;
	unsigned skip;		/* > 0: parse only (no output, no backref followed) */
	unsigned bound;		/* lifetimes bound by the binders around */
	bool err;
	char *out;
	size_t olen, ocap;
};

struct v0_ident {
	const char *ascii, *puny;
	size_t alen, plen;
};

/* How a path is printed: a type's, a value's ("f::<T>"), a dyn trait's. */
enum v0_mode { V0_TYPE, V0_VALUE, V0_DYN };

static bool v0_path(struct v0 *p, enum v0_mode mode);
static void v0_type(struct v0 *p);
static void v0_const(struct v0 *p);

static void
v0_put(struct v0 *p, const char *str, size_t n)
{
	if (p->err || p->skip)
		return;
	if (n > V0_MAX_OUT - p->olen) {
		p->err = true;
		return;
	}
	if (p->olen + n + 1 > p->ocap)
		p->out = xgrowarray(p->out, &p->ocap, p->olen + n + 1, 1);
	memcpy(p->out + p->olen, str, n);
	p->olen += n;
}

static void
v0_puts(struct v0 *p, const char *str)
{
	v0_put(p, str, strlen(str));
}

static void
v0_putu(struct v0 *p, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	v0_puts(p, buf);
}

static void
v0_put_utf8(struct v0 *p, uint32_t c)
{
	static const unsigned char lead[5] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	char b[4];

	for (size_t k = n - 1; k > 0; k--, c >>= 6)
		b[k] = (char) (0x80 | (c & 0x3f));
	b[0] = (char) (lead[n] | c);
	v0_put(p, b, n);
}

static int
v0_peek(const struct v0 *p)
{
	return p->pos < p->len ? (unsigned char) p->s[p->pos] : -1;
}

/* The next character, or -1 (and the error) at the end. */
static int
v0_next(struct v0 *p)
{
	int c = p->err ? -1 : v0_peek(p);

	if (c < 0)
		p->err = true;
	else
		p->pos++;
	return c;
}

static bool
v0_eat(struct v0 *p, int c)
{
	if (p->err || v0_peek(p) != c)
		return false;
	p->pos++;
	return true;
}

static int
v0_digit62(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 36;
	return -1;
}

/* <base-62-number>: "_" is 0, "<digits>_" their value plus 1. */
static uint64_t
v0_int62(struct v0 *p)
{
	uint64_t x = 0;
	int d;

	if (v0_eat(p, '_'))
		return 0;
	while (!p->err && !v0_eat(p, '_')) {
		d = v0_digit62(v0_next(p));
		if (d < 0 || x > (UINT64_MAX - (uint64_t) d) / 62)
			p->err = true;
		else
			x = x * 62 + (uint64_t) d;
	}
	if (x == UINT64_MAX)
		p->err = true;
	return p->err ? 0 : x + 1;
}

/* tag <base-62-number>, plus 1; 0 without the tag. */
static uint64_t
v0_opt_int62(struct v0 *p, int tag)
{
	uint64_t x;

	if (!v0_eat(p, tag))
		return 0;
	if ((x = v0_int62(p)) == UINT64_MAX)
		p->err = true;
	return p->err ? 0 : x + 1;
}

/* One more level of nesting, within the caps. */
static bool
v0_enter(struct v0 *p)
{
	if (p->err)
		return false;
	if (++p->steps > V0_MAX_STEPS || p->depth >= V0_MAX_DEPTH) {
		p->err = true;
		return false;
	}
	p->depth++;
	return true;
}

static void
v0_leave(struct v0 *p)
{
	p->depth--;
}

/*
 * After a 'B': move to where the backref points, which must be before
 * the 'B' itself (so chains of them end); false when not to follow it.
 */
static bool
v0_jump(struct v0 *p, size_t *saved)
{
	size_t at = p->pos - 1;
	uint64_t i = v0_int62(p);

	if (!p->err && i >= at)
		p->err = true;
	if (p->err || p->skip || !v0_enter(p))
		return false;
	*saved = p->pos;
	p->pos = (size_t) i;
	return true;
}

static void
v0_back(struct v0 *p, size_t saved)
{
	p->pos = saved;
	v0_leave(p);
}

static void
v0_follow(struct v0 *p, void (*fn)(struct v0 *))
{
	size_t saved;

	if (v0_jump(p, &saved)) {
		fn(p);
		v0_back(p, saved);
	}
}

/* Items up to their 'E', sep between them; how many. */
static unsigned
v0_list(struct v0 *p, void (*fn)(struct v0 *), const char *sep)
{
	unsigned n = 0;

	while (!p->err && !v0_eat(p, 'E')) {
		if (n++)
			v0_puts(p, sep);
		fn(p);
	}
	return n;
}

/*
 * [u] <decimal length> [_] <bytes>: the '_' only keeps an identifier
 * that starts with a digit or '_' apart from the length.  With 'u', the
 * last '_' separates the ASCII characters from the punycode deltas.
 */
static bool
v0_ident(struct v0 *p, struct v0_ident *id)
{
	bool puny = v0_eat(p, 'u');
	int c = p->err ? -1 : v0_peek(p);
	size_t n, k;

	if (c < '0' || c > '9') {
		p->err = true;
		return false;
	}
	p->pos++;
	n = (size_t) (c - '0');
	while (n && n <= p->len && (c = v0_peek(p)) >= '0' && c <= '9') {
		n = n * 10 + (size_t) (c - '0');
		p->pos++;
	}
	v0_eat(p, '_');
	if (n > p->len - p->pos) {
		p->err = true;
		return false;
	}
	*id = (struct v0_ident) { .ascii = p->s + p->pos, .alen = n };
	p->pos += n;
	if (!puny)
		return true;
	for (k = n; k > 0 && id->ascii[k - 1] != '_'; k--)
		;
	id->puny = id->ascii + k;
	id->plen = n - k;
	id->alen = k ? k - 1 : 0;
	if (!id->plen)
		p->err = true;
	return !p->err;
}

/* One variable-length delta of RFC 3492 (base 36, t_min 1, t_max 26). */
static bool
v0_puny_delta(const char **q, const char *end, uint64_t bias, uint64_t *delta)
{
	uint64_t w = 1, t, d;
	int c;

	*delta = 0;
	for (uint64_t k = 36;; k += 36) {
		if (*q == end)
			return false;
		c = (unsigned char) *(*q)++;
		if (c >= 'a' && c <= 'z')
			d = (uint64_t) (c - 'a');
		else if (c >= '0' && c <= '9')
			d = (uint64_t) (c - '0' + 26);
		else
			return false;
		if (d && w > (UINT64_MAX - *delta) / d)
			return false;
		*delta += d * w;
		t = k <= bias ? 1 : k - bias > 26 ? 26 : k - bias;
		if (d < t)
			return true;
		if (w > UINT64_MAX / (36 - t))
			return false;
		w *= 36 - t;
	}
}

static uint64_t
v0_puny_adapt(uint64_t delta, size_t len, bool first)
{
	uint64_t k = 0;

	delta /= first ? 700 : 2;
	delta += delta / len;
	for (; delta > 35 * 26 / 2; k += 36)
		delta /= 35;
	return k + 36 * delta / (delta + 38);
}

/* RFC 3492 decoding, into code points: false if invalid or too long. */
static bool
v0_puny_decode(const struct v0_ident *id, uint32_t *out, size_t *nout)
{
	const char *q = id->puny, *end = id->puny + id->plen;
	uint64_t n = 0x80, bias = 72, i = 0, delta;
	size_t len;

	if (id->alen > V0_MAX_PUNY)
		return false;
	for (len = 0; len < id->alen; len++)
		out[len] = (unsigned char) id->ascii[len];
	for (bool first = true; q < end; first = false) {
		if (!v0_puny_delta(&q, end, bias, &delta) || len == V0_MAX_PUNY ||
		    delta > UINT64_MAX - i)
			return false;
		i += delta;
		/* A Rust char: nothing past U+10FFFF, no surrogate. */
		if (i / (len + 1) > 0x10ffff - n)
			return false;
		n += i / (len + 1);
		i %= len + 1;
		if (n >= 0xd800 && n <= 0xdfff)
			return false;
		memmove(out + i + 1, out + i, (len - i) * sizeof(*out));
		out[i++] = (uint32_t) n;
		bias = v0_puny_adapt(delta, ++len, first);
	}
	*nout = len;
	return true;
}

static void
v0_put_ident(struct v0 *p, const struct v0_ident *id)
{
	uint32_t cps[V0_MAX_PUNY];
	size_t n = 0;

	if (!id->plen) {
		v0_put(p, id->ascii, id->alen);
	} else if (!p->err && !p->skip) {
		if (!v0_puny_decode(id, cps, &n))
			p->err = true;
		for (size_t k = 0; k < n && !p->err; k++)
			v0_put_utf8(p, cps[k]);
	}
}

/* 'a for the innermost lifetime bound, as rustc-demangle names them. */
static void
v0_lifetime(struct v0 *p, uint64_t lt)
{
	char buf[32];
	uint64_t d = p->bound - lt;

	if (p->err || p->skip)
		return;
	if (lt > p->bound)
		p->err = true;
	else if (!lt)
		v0_puts(p, "'_");
	else if (d < 26)
		snprintf(buf, sizeof(buf), "'%c", (char) ('a' + d));
	else
		snprintf(buf, sizeof(buf), "'_%" PRIu64, d);
	if (lt && !p->err)
		v0_puts(p, buf);
}

/* [G <n>]: "for<'a, ...> "; how many lifetimes it bound. */
static unsigned
v0_binder(struct v0 *p)
{
	uint64_t n = v0_opt_int62(p, 'G');
	unsigned k;

	if (p->err || p->skip || !n)
		return 0;
	v0_puts(p, "for<");
	for (k = 0; k < n && !p->err; k++) {
		if (k)
			v0_puts(p, ", ");
		p->bound++;
		v0_lifetime(p, 1);
	}
	v0_puts(p, "> ");
	return k;
}

static void
v0_generic_arg(struct v0 *p)
{
	if (v0_eat(p, 'L'))
		v0_lifetime(p, v0_int62(p));
	else if (v0_eat(p, 'K'))
		v0_const(p);
	else
		v0_type(p);
}

/* N <namespace> <path> [s <n>] <ident>: "{closure#0}" for 'C'. */
static void
v0_path_nested(struct v0 *p, bool in_value)
{
	struct v0_ident id;
	uint64_t dis;
	int ns = v0_next(p);
	char tag[2] = { (char) ns, 0 };

	if (!((ns >= 'A' && ns <= 'Z') || (ns >= 'a' && ns <= 'z'))) {
		p->err = true;
		return;
	}
	v0_path(p, in_value ? V0_VALUE : V0_TYPE);
	dis = v0_opt_int62(p, 's');
	if (!v0_ident(p, &id))
		return;
	if (ns >= 'a') {
		/* Implementation-specific namespaces show the name only. */
		if (id.alen || id.plen)
			v0_puts(p, "::");
		v0_put_ident(p, &id);
		return;
	}
	v0_puts(p, "::{");
	v0_puts(p, ns == 'C' ? "closure" : ns == 'S' ? "shim" : tag);
	if (id.alen || id.plen)
		v0_puts(p, ":");
	v0_put_ident(p, &id);
	v0_puts(p, "#");
	v0_putu(p, dis);
	v0_puts(p, "}");
}

/* M, X, Y: "<Type>" or "<Type as Trait>"; the impl's own path unshown. */
static void
v0_path_impl(struct v0 *p, int tag)
{
	if (tag != 'Y') {
		v0_opt_int62(p, 's');
		p->skip++;
		v0_path(p, V0_TYPE);
		p->skip--;
	}
	v0_puts(p, "<");
	v0_type(p);
	if (tag != 'M') {
		v0_puts(p, " as ");
		v0_path(p, V0_TYPE);
	}
	v0_puts(p, ">");
}

/* True if a dyn trait's "<" is left open for its associated types. */
static bool
v0_path(struct v0 *p, enum v0_mode mode)
{
	struct v0_ident id;
	bool open = false;
	size_t saved;
	int tag;

	if (!v0_enter(p))
		return false;
	switch ((tag = v0_next(p))) {
	case 'C':
		v0_opt_int62(p, 's');
		if (v0_ident(p, &id))
			v0_put_ident(p, &id);
		break;
	case 'N':
		v0_path_nested(p, mode == V0_VALUE);
		break;
	case 'M': case 'X': case 'Y':
		v0_path_impl(p, tag);
		break;
	case 'I':
		v0_path(p, mode == V0_VALUE ? V0_VALUE : V0_TYPE);
		v0_puts(p, mode == V0_VALUE ? "::<" : "<");
		v0_list(p, v0_generic_arg, ", ");
		if (!(open = mode == V0_DYN))
			v0_puts(p, ">");
		break;
	case 'B':
		if (v0_jump(p, &saved)) {
			open = v0_path(p, mode);
			v0_back(p, saved);
		}
		break;
	default:
		p->err = true;
	}
	v0_leave(p);
	return open;
}

static const char *
v0_basic(int tag)
{
	static const char *const names[26] = {
		['a' - 'a'] = "i8", ['b' - 'a'] = "bool", ['c' - 'a'] = "char",
		['d' - 'a'] = "f64", ['e' - 'a'] = "str", ['f' - 'a'] = "f32",
		['h' - 'a'] = "u8", ['i' - 'a'] = "isize", ['j' - 'a'] = "usize",
		['l' - 'a'] = "i32", ['m' - 'a'] = "u32", ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_", ['s' - 'a'] = "i16",
		['t' - 'a'] = "u16", ['u' - 'a'] = "()", ['v' - 'a'] = "...",
		['x' - 'a'] = "i64", ['y' - 'a'] = "u64", ['z' - 'a'] = "!",
	};

	return tag >= 'a' && tag <= 'z' ? names[tag - 'a'] : NULL;
}

/* F [G] [U] [K <abi>] <types> E <return type>. */
static void
v0_type_fn(struct v0 *p)
{
	unsigned bound = v0_binder(p);
	bool is_unsafe = v0_eat(p, 'U'), extern_ = v0_eat(p, 'K');
	bool c_abi = extern_ && v0_eat(p, 'C');
	struct v0_ident abi = { 0 };

	if (extern_ && !c_abi && v0_ident(p, &abi) && (!abi.alen || abi.plen))
		p->err = true;
	if (is_unsafe)
		v0_puts(p, "unsafe ");
	if (extern_) {
		v0_puts(p, c_abi ? "extern \"C" : "extern \"");
		/* The mangling wrote the ABI's '-' as '_'. */
		for (size_t k = 0; k < abi.alen; k++)
			v0_put(p, abi.ascii[k] == '_' ? "-" : abi.ascii + k, 1);
		v0_puts(p, "\" ");
	}
	v0_puts(p, "fn(");
	v0_list(p, v0_type, ", ");
	v0_puts(p, ")");
	if (!v0_eat(p, 'u')) {
		v0_puts(p, " -> ");
		v0_type(p);
	}
	p->bound -= bound;
}

/* A trait with its associated types: "Trait<T, Output = U>". */
static void
v0_dyn_trait(struct v0 *p)
{
	struct v0_ident id;
	bool open = v0_path(p, V0_DYN);

	while (v0_eat(p, 'p') && v0_ident(p, &id)) {
		v0_puts(p, open ? ", " : "<");
		open = true;
		v0_put_ident(p, &id);
		v0_puts(p, " = ");
		v0_type(p);
	}
	if (open)
		v0_puts(p, ">");
}

/* D [G] {trait} E L <lifetime>. */
static void
v0_type_dyn(struct v0 *p)
{
	unsigned bound;
	uint64_t lt;

	v0_puts(p, "dyn ");
	bound = v0_binder(p);
	v0_list(p, v0_dyn_trait, " + ");
	p->bound -= bound;
	if (!v0_eat(p, 'L')) {
		p->err = true;
	} else if ((lt = v0_int62(p))) {
		v0_puts(p, " + ");
		v0_lifetime(p, lt);
	}
}

/* R, Q [L <lifetime>] <type>: "&'a T", "&mut T". */
static void
v0_type_ref(struct v0 *p, int tag)
{
	uint64_t lt;

	v0_puts(p, "&");
	if (v0_eat(p, 'L') && (lt = v0_int62(p))) {
		v0_lifetime(p, lt);
		v0_puts(p, " ");
	}
	if (tag == 'Q')
		v0_puts(p, "mut ");
	v0_type(p);
}

static void
v0_type(struct v0 *p)
{
	int tag = v0_next(p);
	const char *basic = v0_basic(tag);

	if (basic) {
		v0_puts(p, basic);
		return;
	}
	if (!v0_enter(p))
		return;
	switch (tag) {
	case 'R': case 'Q':
		v0_type_ref(p, tag);
		break;
	case 'P': case 'O':
		v0_puts(p, tag == 'P' ? "*const " : "*mut ");
		v0_type(p);
		break;
	case 'A': case 'S':
		v0_puts(p, "[");
		v0_type(p);
		if (tag == 'A') {
			v0_puts(p, "; ");
			v0_const(p);
		}
		v0_puts(p, "]");
		break;
	case 'T':
		v0_puts(p, "(");
		if (v0_list(p, v0_type, ", ") == 1)
			v0_puts(p, ",");
		v0_puts(p, ")");
		break;
	case 'F':
		v0_type_fn(p);
		break;
	case 'D':
		v0_type_dyn(p);
		break;
	case 'B':
		v0_follow(p, v0_type);
		break;
	default:
		/* Any other type is a path (a pattern type 'W' is not). */
		p->pos--;
		v0_path(p, V0_TYPE);
	}
	v0_leave(p);
}

/* <hex digits> _, into a u64 (leading zeros aside); false if longer. */
static bool
v0_hex(struct v0 *p, const char **hex, size_t *n, uint64_t *v)
{
	size_t start = p->pos, k;
	int c;

	while ((c = v0_next(p)) != '_')
		if (c < 0 || !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			p->err = true;
			return false;
		}
	*hex = p->s + start;
	*n = p->pos - 1 - start;
	for (k = 0; k < *n && (*hex)[k] == '0'; k++)
		;
	if (*n - k > 16)
		return false;
	for (*v = 0; k < *n; k++)
		*v = *v << 4 | (uint64_t) v0_digit62((*hex)[k]);
	return true;
}

/* A char constant in quotes, escaped as Rust's escape_debug does. */
static void
v0_const_char(struct v0 *p)
{
	static const char *const esc[128] = {
		[0] = "\\0", ['\t'] = "\\t", ['\n'] = "\\n", ['\r'] = "\\r",
		['\''] = "\\'", ['\\'] = "\\\\",
	};
	const char *hex;
	char buf[16];
	size_t n;
	uint64_t v;

	if (!v0_hex(p, &hex, &n, &v) || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		p->err = true;
		return;
	}
	v0_puts(p, "'");
	if (v < 128 && esc[v]) {
		v0_puts(p, esc[v]);
	} else if (v < 0x20 || (v >= 0x7f && v < 0xa0)) {
		snprintf(buf, sizeof(buf), "\\u{%" PRIx64 "}", v);
		v0_puts(p, buf);
	} else {
		v0_put_utf8(p, (uint32_t) v);
	}
	v0_puts(p, "'");
}

/* K's constant: p, or an integer, bool or char by its type's tag. */
static void
v0_const(struct v0 *p)
{
	const char *hex;
	size_t n;
	uint64_t v;
	int tag = v0_next(p);

	if (!v0_enter(p))
		return;
	switch (tag) {
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
		if (v0_eat(p, 'n'))
			v0_puts(p, "-");
		/* fall through */
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		if (v0_hex(p, &hex, &n, &v)) {
			v0_putu(p, v);
		} else {
			/* Past u64, as rustc-demangle: the digits verbatim. */
			v0_puts(p, "0x");
			v0_put(p, hex, n);
		}
		break;
	case 'b':
		if (v0_hex(p, &hex, &n, &v) && v <= 1)
			v0_puts(p, v ? "true" : "false");
		else
			p->err = true;
		break;
	case 'c':
		v0_const_char(p);
		break;
	case 'p':
		v0_puts(p, "_");
		break;
	case 'B':
		v0_follow(p, v0_const);
		break;
	default:
		p->err = true;
	}
	v0_leave(p);
}

/* Where ".llvm.<hex>" (ThinLTO's renaming) starts, or the end. */
static size_t
v0_llvm_end(const char *s)
{
	const char *l = strstr(s, ".llvm."), *q;

	if (!l)
		return strlen(s);
	for (q = l + 6; *q; q++)
		if (!((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F') || *q == '@'))
			return strlen(s);
	return (size_t) (l - s);
}

/* What may follow the symbol: ".word..." of printable ASCII. */
static bool
v0_suffix_ok(const char *s, size_t n)
{
	if (n && s[0] != '.')
		return false;
	for (size_t k = 0; k < n; k++)
		if (s[k] <= ' ' || s[k] > '~')
			return false;
	return true;
}

char *
rustv0_demangle(const char *sym, bool suffix)
{
	struct v0 p = { 0 };
	size_t end;

	/* A path always starts with an upper-case tag. */
	if (!sym || strncmp(sym, "_R", 2) || sym[2] < 'A' || sym[2] > 'Z')
		return NULL;
	p.s = sym + 2;
	p.len = v0_llvm_end(sym) - 2;
	for (size_t k = 0; k < p.len; k++)
		if ((unsigned char) p.s[k] >= 0x80)
			return NULL;
	/* Parse only first, to find the end: the instantiating crate after. */
	p.skip = 1;
	v0_path(&p, V0_VALUE);
	if (v0_peek(&p) >= 'A' && v0_peek(&p) <= 'Z')
		v0_path(&p, V0_TYPE);
	if (p.err || !v0_suffix_ok(p.s + p.pos, p.len - p.pos))
		return NULL;
	end = p.pos;
	p.pos = 0;
	p.steps = p.skip = 0;
	v0_path(&p, V0_VALUE);
	if (suffix)
		v0_put(&p, p.s + end, p.len - end);
	if (p.err || !p.olen) {
		free(p.out);
		return NULL;
	}
	p.out[p.olen] = 0;
	return p.out;
}
