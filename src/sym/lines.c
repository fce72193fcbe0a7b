#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/error_prints.h"
#include "base/xmalloc.h"
#include "sym/lines.h"
#include "sym/symname.h"

/*
 * Open addressing with linear probing over ids: the objects themselves
 * live in the id-indexed arrays, so lines_funcs/lines_lines cost nothing.
 * Hashes are kept in the buckets so that growing never rereads strings.
 */
struct lines_bucket {
	uint64_t hash;
	unsigned id_plus1;	/* 0: empty */
};

struct lines_index {
	struct lines_bucket *buckets;
	size_t mask;		/* number of buckets - 1 */
};

struct lines_table {
	struct ct_func **funcs;
	size_t nfuncs, funcs_alloc;
	struct ct_line **lines;
	size_t nlines, lines_alloc;
	struct lines_index func_index;
	struct lines_index line_index;
};

enum { LINES_INITIAL_BUCKETS = 64 };

static const uint64_t fnv_offset = 0xcbf29ce484222325ULL;
static const uint64_t fnv_prime = 0x100000001b3ULL;

static uint64_t
hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= fnv_prime;
	}
	return h;
}

/* The terminating NUL is hashed too, so ("ab", "c") != ("a", "bc"). */
static uint64_t
hash_str(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s) + 1);
}

static uint64_t
hash_func_key(const char *dso, const char *name)
{
	return hash_str(hash_str(fnv_offset, dso), name);
}

static uint64_t
hash_line_key(const char *file, unsigned line)
{
	return hash_bytes(hash_str(fnv_offset, file), &line, sizeof(line));
}

static void
index_init(struct lines_index *idx)
{
	idx->buckets = xcalloc(LINES_INITIAL_BUCKETS, sizeof(*idx->buckets));
	idx->mask = LINES_INITIAL_BUCKETS - 1;
}

static void
index_insert(struct lines_index *idx, uint64_t hash, unsigned id)
{
	size_t i = hash & idx->mask;

	while (idx->buckets[i].id_plus1)
		i = (i + 1) & idx->mask;
	idx->buckets[i].hash = hash;
	idx->buckets[i].id_plus1 = id + 1;
}

/* Keep the load factor at most 1/2, so that probe runs stay short. */
static void
index_reserve(struct lines_index *idx, size_t nentries)
{
	size_t nbuckets = idx->mask + 1;

	if (nentries < nbuckets / 2)
		return;

	struct lines_bucket *old = idx->buckets;

	if (nbuckets > ((size_t) -1) / 2 / sizeof(*old))
		error_msg_and_die(CT_EXIT_INTERNAL, "lines table overflow");
	idx->buckets = xcalloc(nbuckets * 2, sizeof(*old));
	idx->mask = nbuckets * 2 - 1;
	for (size_t i = 0; i < nbuckets; i++) {
		if (old[i].id_plus1)
			index_insert(idx, old[i].hash, old[i].id_plus1 - 1);
	}
	free(old);
}

struct lines_table *
lines_new(void)
{
	struct lines_table *t = xcalloc(1, sizeof(*t));

	index_init(&t->func_index);
	index_init(&t->line_index);
	return t;
}

void
lines_free(struct lines_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfuncs; i++) {
		free(t->funcs[i]->name);
		free(t->funcs[i]->linkage);
		free(t->funcs[i]->dso);
		free(t->funcs[i]);
	}
	for (size_t i = 0; i < t->nlines; i++) {
		free(t->lines[i]->file);
		free(t->lines[i]);
	}
	free(t->funcs);
	free(t->lines);
	free(t->func_index.buckets);
	free(t->line_index.buckets);
	free(t);
}

struct ct_func *
lines_func(struct lines_table *t, const char *dso, const char *name)
{
	uint64_t hash = hash_func_key(dso, name);
	const struct lines_index *idx = &t->func_index;

	for (size_t i = hash & idx->mask; idx->buckets[i].id_plus1;
	     i = (i + 1) & idx->mask) {
		struct ct_func *f = t->funcs[idx->buckets[i].id_plus1 - 1];

		if (idx->buckets[i].hash == hash && !strcmp(lines_func_symbol(f), name) &&
		    !strcmp(f->dso, dso))
			return f;
	}

	/* id_plus1 must not wrap to 0. */
	if (t->nfuncs >= (unsigned) -1 - 1)
		error_msg_and_die(CT_EXIT_INTERNAL, "too many functions");
	if (t->nfuncs == t->funcs_alloc)
		t->funcs = xgrowarray(t->funcs, &t->funcs_alloc, t->nfuncs + 1,
				      sizeof(*t->funcs));
	index_reserve(&t->func_index, t->nfuncs + 1);

	struct ct_func *f = xcalloc(1, sizeof(*f));

	/* Shown demangled; found by the symbol, which is unique. */
	if ((f->name = symname_demangle(name)))
		f->linkage = xstrdup(name);
	else
		f->name = xstrdup(name);
	f->dso = xstrdup(dso);
	f->id = t->nfuncs;
	t->funcs[t->nfuncs++] = f;
	index_insert(&t->func_index, hash, f->id);
	return f;
}

struct ct_line *
lines_line(struct lines_table *t, const char *file, unsigned line,
	   struct ct_func *func)
{
	uint64_t hash = hash_line_key(file, line);
	const struct lines_index *idx = &t->line_index;

	for (size_t i = hash & idx->mask; idx->buckets[i].id_plus1;
	     i = (i + 1) & idx->mask) {
		struct ct_line *l = t->lines[idx->buckets[i].id_plus1 - 1];

		if (idx->buckets[i].hash == hash && l->line == line &&
		    !strcmp(l->file, file))
			return l;
	}

	if (t->nlines >= (unsigned) -1 - 1)
		error_msg_and_die(CT_EXIT_INTERNAL, "too many source lines");
	if (t->nlines == t->lines_alloc)
		t->lines = xgrowarray(t->lines, &t->lines_alloc, t->nlines + 1,
				      sizeof(*t->lines));
	index_reserve(&t->line_index, t->nlines + 1);

	struct ct_line *l = xcalloc(1, sizeof(*l));

	l->file = xstrdup(file);
	l->line = line;
	l->func = func;
	l->id = t->nlines;
	t->lines[t->nlines++] = l;
	index_insert(&t->line_index, hash, l->id);
	return l;
}

struct ct_func *const *
lines_funcs(const struct lines_table *t, size_t *n)
{
	*n = t->nfuncs;
	return t->funcs;
}

struct ct_line *const *
lines_lines(const struct lines_table *t, size_t *n)
{
	*n = t->nlines;
	return t->lines;
}
