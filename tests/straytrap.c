/*
 * Target of straytrap.test: SIGTRAPs shaped like those a breakpoint
 * counter can cause, and SIGTRAPs of the program's own.
 *
 * usage: straytrap absorb N | deliver N
 *   absorb   calls unit() N times; halfway it queues itself the SIGTRAP
 *            the kernel sends for a debug exception with no cause in DR6
 *            (si_code TRAP_BRKPT, si_addr unit's entry), with no handler:
 *            it dies of it, unless a supervisor counting unit() with a
 *            breakpoint keeps it away.  Prints "alive" at the end.
 *   deliver  counts SIGTRAPs with a handler while calling unit() N times
 *            and once each: icebp_then() (an ICEBP, then after_icebp's
 *            first instruction), the same forged trap at unit+1 (no
 *            breakpoint there) and raise(SIGTRAP).  Prints "traps 3" when
 *            all three reached it.  Where the ICEBP's trap comes back
 *            with the ICEBP itself to run again (a KVM guest on some
 *            hosts: the program would loop for ever, profiled or not),
 *            the handler steps over it and says so on stderr.
 * The kernel takes a positive si_code only from a process for itself.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "tests.h"

void icebp_then(void);
void after_icebp(void);
void unit(void);

/* int1, and a function of its own starting on the next byte. */
__asm__(".text\n"
	".globl icebp_then\n"
	".type icebp_then, @function\n"
	"icebp_then:\n"
	"	.byte 0xf1\n"
	".globl after_icebp\n"
	".type after_icebp, @function\n"
	"after_icebp:\n"
	"	ret\n"
	".size after_icebp, . - after_icebp\n"
	".size icebp_then, . - icebp_then\n");

volatile unsigned long sink;
static volatile sig_atomic_t traps, icebp_again;

__attribute__((noinline, used)) void
unit(void)
{
	sink++;
}

static void
on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void) sig;
	(void) si;
	if (uc->uc_mcontext.gregs[REG_RIP] == (greg_t) (uintptr_t) icebp_then) {
		uc->uc_mcontext.gregs[REG_RIP]++;
		icebp_again = 1;
	}
	traps++;
}

/* What the kernel queues for a debug exception it finds no cause for. */
static void
forge_trap(uintptr_t addr)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_BRKPT;
	si.si_addr = (void *) addr;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t) syscall(SYS_gettid),
		    SIGTRAP, &si))
		fail_exit(1, "straytrap: rt_tgsigqueueinfo failed");
}

int
main(int argc, char **argv)
{
	long n;

	if (argc != 3 || (n = atol(argv[2])) < 2)
		fail_exit(2, "usage: straytrap absorb|deliver N");
	if (!strcmp(argv[1], "absorb")) {
		for (long i = 0; i < n; i++) {
			if (i == n / 2)
				forge_trap((uintptr_t) unit);
			unit();
		}
		printf("alive\n");
	} else if (!strcmp(argv[1], "deliver")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_trap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(SIGTRAP, &sa, NULL);
		for (long i = 0; i < n; i++)
			unit();
		icebp_then();
		forge_trap((uintptr_t) unit + 1);
		raise(SIGTRAP);
		if (icebp_again)
			fprintf(stderr, "straytrap: the ICEBP trapped with itself to run again; stepped over\n");
		printf("traps %d\n", (int) traps);
	} else {
		fail_exit(2, "usage: straytrap absorb|deliver N");
	}
	return 0;
}
