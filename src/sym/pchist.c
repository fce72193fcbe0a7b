/*
 * An open-addressing hash table keyed by (target, pc).  Distinct keys are
 * bounded by the code the program runs, so it only grows; lookups of one
 * target scan it, which the TUI does for one line a few times a second.
 */
#include "config.h"
#include <stdlib.h>
#include "base/xmalloc.h"
#include "sym/pchist.h"

struct slot {
	uint64_t pc;
	uint64_t count;		/* 0: empty */
	unsigned key;		/* id << 1 | is_func */
	pid_t tgid;
};

struct pchist {
	struct slot *slots;
	size_t size, used;	/* size: a power of two */
};

struct pchist *
pchist_new(void)
{
	struct pchist *h = xcalloc(1, sizeof(*h));

	h->size = 1024;
	h->slots = xcalloc(h->size, sizeof(*h->slots));
	return h;
}

void
pchist_free(struct pchist *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h);
}

static size_t
slot_of(const struct pchist *h, unsigned key, uint64_t pc)
{
	return ((pc ^ (uint64_t) key << 40) * 0x9e3779b97f4a7c15ULL >> 20) & (h->size - 1);
}

static struct slot *
find(struct pchist *h, unsigned key, uint64_t pc, pid_t tgid)
{
	for (size_t i = slot_of(h, key, pc);; i = (i + 1) & (h->size - 1)) {
		struct slot *s = &h->slots[i];

		if (!s->count || (s->key == key && s->pc == pc && s->tgid == tgid))
			return s;
	}
}

static void
grow(struct pchist *h)
{
	struct slot *old = h->slots;
	size_t n = h->size;

	h->size *= 2;
	h->slots = xcalloc(h->size, sizeof(*h->slots));
	for (size_t i = 0; i < n; i++)
		if (old[i].count)
			*find(h, old[i].key, old[i].pc, old[i].tgid) = old[i];
	free(old);
}

void
pchist_add(struct pchist *h, bool is_func, unsigned id, pid_t tgid, uint64_t pc)
{
	unsigned key = id << 1 | is_func;
	struct slot *s;

	if (2 * (h->used + 1) > h->size)
		grow(h);
	s = find(h, key, pc, tgid);
	if (!s->count) {
		*s = (struct slot) { .pc = pc, .key = key, .tgid = tgid };
		h->used++;
	}
	s->count++;
}

static int
by_pc(const void *a, const void *b)
{
	const struct pchist_entry *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

struct pchist_entry *
pchist_of(const struct pchist *h, bool is_func, unsigned id, size_t *n)
{
	unsigned key = id << 1 | is_func;
	struct pchist_entry *e = NULL;
	size_t k = 0, cap = 0;

	for (size_t i = 0; i < h->size; i++) {
		const struct slot *s = &h->slots[i];

		if (!s->count || s->key != key)
			continue;
		if (k == cap)
			e = xgrowarray(e, &cap, k + 1, sizeof(*e));
		e[k++] = (struct pchist_entry) { .pc = s->pc, .tgid = s->tgid, .count = s->count };
	}
	if (k)
		qsort(e, k, sizeof(*e), by_pc);
	*n = k;
	return e;
}
