/*
 * A scripted kernel for the unit tests of the pauses (unit-pause.c) and
 * of the experiment engine (unit-experiment.c): a fake clock, threads
 * whose /proc readings the test sets, and the pauser's ptrace calls
 * recorded, through struct pause_sys_ops (ptrace/pause.h).
 *
 * Fake threads have tids above PID_MAX_LIMIT (4,194,304 on 64 bits): no
 * real thread has them, so a call that slipped past the fakes to the
 * real kernel would find nothing rather than touch some process.
 */
#ifndef CT_TESTS_FAKE_KERNEL_H
# define CT_TESTS_FAKE_KERNEL_H

# include <errno.h>
# include <stdbool.h>
# include <stdint.h>
# include <string.h>
# include "ptrace/pause.h"
# include "ptrace/tcb.h"

# define US 1000ULL
# define MS 1000000ULL

# define FAKE_TID0	5000000
# define FAKE_TGID	(FAKE_TID0 - 1)
# define FAKE_MAX	16
# define FAKE_FD0	1000	/* the fake task-clock fds: FAKE_FD0 + thread */

static uint64_t fake_now;

/* One thread as the fake kernel shows it. */
struct fake_thread {
	char state;			/* /proc stat's letter; 0: gone */
	bool schedstat_ok;		/* schedstat readable */
	uint64_t run, wait, slices;	/* its schedstat */
	uint64_t utime;			/* stat's utime, ns */
	long syscall;			/* /proc/TID/syscall's number */
	uint64_t cpus;			/* affinity, 0: unknown */
	bool in_syscall, rewound;	/* what the next interrupt stop finds */
	bool interrupt_fails;		/* PTRACE_INTERRUPT: ESRCH */
	uint64_t clock;			/* its task clock */
	/* Recorded. */
	unsigned interrupts, conts, state_reads, clock_opens, clock_closes;
	uint64_t interrupt_at, cont_at;	/* fake_now at the last one */
};

static struct fake_thread fake[FAKE_MAX];

static struct fake_thread *
F(const struct tcb *t)
{
	return &fake[t->tid - FAKE_TID0];
}

static uint64_t
fake_clock(void)
{
	return fake_now;
}

static bool
fake_interrupt(struct tcb *t)
{
	if (F(t)->interrupt_fails) {
		errno = ESRCH;
		return false;
	}
	F(t)->interrupts++;
	F(t)->interrupt_at = fake_now;
	return true;
}

static void
fake_cont(struct tcb *t)
{
	F(t)->conts++;
	F(t)->cont_at = fake_now;
}

static bool
fake_in_syscall(struct tcb *t, bool *rewound)
{
	*rewound = F(t)->rewound;
	return F(t)->in_syscall;
}

static bool
fake_schedstat(struct tcb *t, uint64_t *run, uint64_t *wait, uint64_t *slices)
{
	if (!F(t)->schedstat_ok)
		return false;
	if (run)
		*run = F(t)->run;
	*wait = F(t)->wait;
	if (slices)
		*slices = F(t)->slices;
	return true;
}

static char
fake_state(struct tcb *t)
{
	F(t)->state_reads++;
	return F(t)->state;
}

static int
fake_clock_open(struct tcb *t)
{
	F(t)->clock_opens++;
	return FAKE_FD0 + (t->tid - FAKE_TID0);
}

static uint64_t
fake_clock_count(int fd)
{
	return fake[fd - FAKE_FD0].clock;
}

static void
fake_clock_close(int fd)
{
	fake[fd - FAKE_FD0].clock_closes++;
}

static const struct pause_sys_ops fake_pause_sys = {
	.now = fake_clock,
	.interrupt = fake_interrupt,
	.cont = fake_cont,
	.in_syscall = fake_in_syscall,
	.schedstat = fake_schedstat,
	.state = fake_state,
	.clock_open = fake_clock_open,
	.clock_count = fake_clock_count,
	.clock_close = fake_clock_close,
};

static struct ctproc *fake_proc;

/* Thread i of the fake process, running, out of its first stop. */
static struct tcb *
fake_thread_new(int i)
{
	struct tcb *t;

	if (!fake_proc) {
		fake_proc = proc_new(FAKE_TGID);
		fake_proc->started = true;
	}
	fake[i] = (struct fake_thread) { .state = 'R', .syscall = -1 };
	t = tcb_new(FAKE_TID0 + i, fake_proc);
	t->flags = 0;
	return t;
}

/* Every fake thread and the process gone (their stats stay: thread_stats_free_all). */
static void
fake_threads_free(void)
{
	while (tcb_first())
		tcb_free(tcb_first());
	if (fake_proc)
		proc_free(fake_proc);
	fake_proc = NULL;
}

/* The pause asked of t: its hold (from its request, or from its stop once held). */
static uint64_t
hold_of(const struct tcb *t)
{
	return t->pause_until_ns - t->pause_req_ns;
}

#endif
