#include "config.h"
#include "collect.h"
#include "experiment.h"
#include "lines.h"
#include "pchist.h"
#include "session.h"
#include "symbolizer.h"
#include "tcb.h"

/* Deeper in-scope frames are rare; this bounds the cost of a sample. */
#define MAX_FRAMES 64

/*
 * Does any in-scope frame of the sample lie in the experiment's target?
 * Inclusive, as Coz: time in what the target calls (in scope or not) is
 * time of the target.  Frame 0 is the leaf, the others return addresses.
 */
static bool
hits_target(struct session *s, struct tcb *t, const struct ct_sample *smp, uint64_t nr)
{
	const struct ct_line *line = exp_target_line(s->exp);
	const struct ct_func *func = exp_target_func(s->exp);
	unsigned depth = 0;

	for (uint64_t i = 0; i < nr && depth < MAX_FRAMES; i++) {
		uint64_t pc = smp->nr ? smp->chain[i] : smp->ip;
		const struct sym_loc *loc;

		if (pc >= (uint64_t) PERF_CONTEXT_MAX)
			continue;
		loc = sym_lookup(t->proc->sym, depth ? pc - 1 : pc);
		depth++;
		if (loc->in_scope && ((line && loc->line == line) || (func && loc->func == func)))
			return true;
	}
	return false;
}

/* Per-instruction counts, for the TUI's view of a line's code. */
static void
record_pc(struct session *s, struct tcb *t, const struct sym_loc *loc, uint64_t pc)
{
	pchist_add(s->pcs, true, loc->func->id, t->proc->tgid, pc);
	if (loc->line)
		pchist_add(s->pcs, false, loc->line->id, t->proc->tgid, pc);
}

static void
on_sample(void *ctx, void *owner, const struct ct_sample *smp)
{
	struct session *s = ctx;
	struct tcb *t = owner ? owner : tcb_lookup((pid_t) smp->tid);
	const struct sym_loc *loc;
	bool leaf = true, attributed = false;
	bool full = s->exp && exp_wants_full_chains(s->exp);
	unsigned depth = 0;
	uint64_t nr = smp->nr;

	/* Cpu mode: some other process.  Or our launched child before exec. */
	if (!t || !t->proc->started)
		return;
	/* It ran: if it owes delay, it may be paused again. */
	t->flags &= ~TCB_BLOCKED;
	s->samples.total++;
	t->stats->samples++;
	if (!t->proc->sym) {
		s->samples.out_of_scope++;
		return;
	}
	if (!nr)
		nr = 1;
	for (uint64_t i = 0; i < nr && depth < MAX_FRAMES; i++) {
		uint64_t pc = smp->nr ? smp->chain[i] : smp->ip;

		/* PERF_CONTEXT_USER and friends mark sections, not frames. */
		if (pc >= (uint64_t) PERF_CONTEXT_MAX)
			continue;
		/* A return address: its call is the instruction before it. */
		if (!leaf)
			pc--;
		loc = sym_lookup(t->proc->sym, pc);
		if (leaf) {
			loc->func->self++;
			t->stats->func = loc->func;
		}
		leaf = false;
		depth++;
		if (loc->in_scope && !attributed) {
			loc->func->samples++;
			if (loc->line)
				loc->line->samples++;
			if (s->pcs)
				record_pc(s, t, loc, pc);
			t->stats->in_scope++;
			s->samples.in_scope++;
			attributed = true;
			/* The lines of callers are only wanted to find a fixed target. */
			if (!full)
				break;
		}
	}
	if (!attributed)
		s->samples.out_of_scope++;
	if (!s->exp)
		return;
	exp_ran(s->exp, t, smp->time);
	if (exp_hitting(s->exp, smp->time) && hits_target(s, t, smp, nr))
		exp_hit(s->exp, t, smp->time);
}

static void
on_exec_mmap(void *ctx, uint32_t pid)
{
	struct session *s = ctx;
	struct ctproc *p = proc_lookup((pid_t) pid);

	if (p && p->sym)
		sym_proc_maps_changed(p->sym);
	if ((pid_t) pid == s->probes_pid)
		s->probes_mapped = true;
}

static void
on_lost(void *ctx, void *owner, uint64_t n)
{
	struct session *s = ctx;
	struct tcb *t = owner;

	s->samples.lost += n;
	if (t)
		t->stats->lost += n;
}

const struct sampler_ops collect_ops = {
	.sample = on_sample,
	.exec_mmap = on_exec_mmap,
	.lost = on_lost,
};
