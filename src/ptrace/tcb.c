#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "base/xmalloc.h"
#include "ptrace/patch.h"
#include "ptrace/tcb.h"

/* Power of two; chains stay short for the 10,000-thread test. */
#define TCB_HASH_SIZE 4096

static struct tcb *hash[TCB_HASH_SIZE];
static struct tcb *all_tcbs;
static unsigned n_tcbs;
static struct ctproc *all_procs;
static struct thread_stats **stats;
static size_t n_stats, cap_stats;

static unsigned
tid_hash(pid_t tid)
{
	return (unsigned) tid & (TCB_HASH_SIZE - 1);
}

struct tcb *
tcb_lookup(pid_t tid)
{
	for (struct tcb *t = hash[tid_hash(tid)]; t; t = t->hnext)
		if (t->tid == tid)
			return t;
	return NULL;
}

static void
hash_insert(struct tcb *t)
{
	unsigned h = tid_hash(t->tid);

	t->hnext = hash[h];
	hash[h] = t;
}

static void
hash_remove(struct tcb *t)
{
	struct tcb **pp = &hash[tid_hash(t->tid)];

	while (*pp && *pp != t)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = t->hnext;
}

struct tcb *
tcb_new(pid_t tid, struct ctproc *proc)
{
	struct tcb *t = xcalloc(1, sizeof(*t));
	struct thread_stats *st = xcalloc(1, sizeof(*st));

	t->tid = tid;
	t->proc = proc;
	t->flags = TCB_STARTUP;
	t->pf = (struct procfs_task) PROCFS_TASK_INIT;
	t->pause_clock = -1;
	proc->nthreads++;
	hash_insert(t);
	t->next = all_tcbs;
	if (all_tcbs)
		all_tcbs->prev = t;
	all_tcbs = t;
	n_tcbs++;

	st->tid = tid;
	st->tgid = proc->tgid;
	if (n_stats == cap_stats)
		stats = xgrowarray(stats, &cap_stats, n_stats + 1, sizeof(*stats));
	stats[n_stats++] = st;
	t->stats = st;
	return t;
}

void
tcb_free(struct tcb *t)
{
	hash_remove(t);
	if (t->prev)
		t->prev->next = t->next;
	else
		all_tcbs = t->next;
	if (t->next)
		t->next->prev = t->prev;
	n_tcbs--;
	t->proc->nthreads--;
	t->stats->paid_ns = t->delay.paid_ns;
	procfs_task_close(&t->pf);
	free(t);
}

void
tcb_rename(struct tcb *t, pid_t new_tid)
{
	hash_remove(t);
	t->tid = new_tid;
	hash_insert(t);
}

struct tcb *
tcb_first(void)
{
	return all_tcbs;
}

unsigned
tcb_count(void)
{
	return n_tcbs;
}

struct ctproc *
proc_lookup(pid_t tgid)
{
	for (struct ctproc *p = all_procs; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

struct ctproc *
proc_new(pid_t tgid)
{
	struct ctproc *p = xcalloc(1, sizeof(*p));

	p->tgid = tgid;
	p->next = all_procs;
	all_procs = p;
	return p;
}

void
proc_free(struct ctproc *p)
{
	struct ctproc **pp = &all_procs;

	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	patch_proc_free(p);
	free(p);
}

struct ctproc *
proc_first(void)
{
	return all_procs;
}

struct thread_stats *const *
thread_stats_all(size_t *n)
{
	*n = n_stats;
	return stats;
}

void
thread_stats_free_all(void)
{
	for (size_t i = 0; i < n_stats; i++)
		free(stats[i]);
	free(stats);
	stats = NULL;
	n_stats = cap_stats = 0;
}
