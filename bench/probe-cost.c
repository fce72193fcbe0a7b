/*
 * Cost per hit of the two ways src/perf/probe.c counts a progress point
 * without recompiling the target: a counting hardware breakpoint
 * (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X) and a counting uprobe perf
 * event, each opened on one thread of another process, as causaltop does.
 *
 * A forked child calls a one-instruction function N times per round and
 * times the round itself; the parent opens the counter on it between
 * rounds and checks it counted exactly N.  ns/hit is the round's time per
 * call minus that of the same loop with no probe.  Best of R rounds, so
 * that a preempted round does not count.
 *
 *   cc -O2 -o /tmp/probe-cost bench/probe-cost.c && /tmp/probe-cost [N [R]]
 *
 * Needs perf_event_paranoid <= 2 for breakpoints, CAP_PERFMON or root for
 * uprobes; a mechanism the kernel refuses is reported and skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mech { MECH_NONE, MECH_BREAKPOINT, MECH_UPROBE, NMECH };

static const char *const mech_names[NMECH] = {
	[MECH_NONE] = "no probe",
	[MECH_BREAKPOINT] = "hw breakpoint",
	[MECH_UPROBE] = "uprobe",
};

static volatile unsigned long sink;

/* The probed function: as cheap as a call can be. */
__attribute__((noinline)) static void
hit(void)
{
	sink++;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

/* The child: a round per byte read, its time in ns written back. */
static void __attribute__((noreturn))
child_loop(int in, int out, unsigned long n)
{
	char c;

	while (read(in, &c, 1) == 1) {
		uint64_t t0 = now_ns(), dt;

		for (unsigned long i = 0; i < n; i++)
			hit();
		dt = now_ns() - t0;
		if (write(out, &dt, sizeof(dt)) != sizeof(dt))
			break;
	}
	_exit(0);
}

/* hit's offset in this executable's file, for the uprobe. */
struct where {
	uintptr_t vaddr;
	uint64_t offset;
	int found;
};

static int
find_offset(struct dl_phdr_info *info, size_t size, void *data)
{
	struct where *w = data;

	w->vaddr = (uintptr_t) hit - info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && w->vaddr >= ph->p_vaddr &&
		    w->vaddr < ph->p_vaddr + ph->p_filesz) {
			w->offset = w->vaddr - ph->p_vaddr + ph->p_offset;
			w->found = 1;
		}
	}
	return 1;		/* the first entry is the main program */
}

static int
read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int
open_counter(enum mech m, pid_t pid, const char *exe, uint64_t offset)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (m == MECH_BREAKPOINT) {
		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_type = HW_BREAKPOINT_X;
		/* fork keeps the layout: hit is at the same address there. */
		a.bp_addr = (uintptr_t) hit;
		a.bp_len = sizeof(long);
	} else {
		int type = read_int_file("/sys/bus/event_source/devices/uprobe/type");

		if (type < 0) {
			errno = ENOENT;
			return -1;
		}
		a.type = (uint32_t) type;
		a.config1 = (uint64_t) (uintptr_t) exe;
		a.config2 = offset;
	}
	return (int) syscall(__NR_perf_event_open, &a, pid, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double best[NMECH] = { 0 };
	int to[2], from[2], ok[NMECH] = { 0 };
	struct where w = { 0, 0, 0 };
	char exe[4096];
	ssize_t len;
	pid_t pid;

	if (!n || rounds < 1) {
		fprintf(stderr, "usage: probe-cost [ITERATIONS [ROUNDS]]\n");
		return 2;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	dl_iterate_phdr(find_offset, &w);
	if (len < 0 || !w.found) {
		fprintf(stderr, "probe-cost: cannot find hit() in the executable\n");
		return 1;
	}
	exe[len] = '\0';
	if (pipe(to) || pipe(from)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		close(to[1]);
		close(from[0]);
		child_loop(to[0], from[1], n);
	}
	close(to[0]);
	close(from[1]);

	for (int r = 0; r < rounds; r++) {
		for (int m = 0; m < NMECH; m++) {
			int fd = -1;
			uint64_t dt, count = 0;
			double per;

			if (m != MECH_NONE) {
				fd = open_counter(m, pid, exe, w.offset);
				if (fd < 0) {
					if (!r)
						printf("%-14s unavailable: %s\n",
						       mech_names[m], strerror(errno));
					continue;
				}
			}
			if (write(to[1], "g", 1) != 1 ||
			    read(from[0], &dt, sizeof(dt)) != sizeof(dt)) {
				fprintf(stderr, "probe-cost: the child died\n");
				return 1;
			}
			if (fd >= 0) {
				if (read(fd, &count, sizeof(count)) != sizeof(count))
					count = 0;
				close(fd);
				if (count != n) {
					fprintf(stderr, "probe-cost: %s counted %"
						PRIu64 " hits of %lu\n",
						mech_names[m], count, n);
					return 1;
				}
			}
			per = (double) dt / (double) n;
			if (!ok[m] || per < best[m])
				best[m] = per;
			ok[m] = 1;
		}
	}
	close(to[1]);
	waitpid(pid, NULL, 0);

	printf("%lu calls per round, best of %d rounds, pid %d:\n", n, rounds,
	       (int) pid);
	for (int m = 0; m < NMECH; m++) {
		if (!ok[m])
			continue;
		if (m == MECH_NONE)
			printf("%-14s %9.1f ns/call\n", mech_names[m], best[m]);
		else
			printf("%-14s %9.1f ns/call  %9.1f ns/hit over no probe\n",
			       mech_names[m], best[m], best[m] - best[MECH_NONE]);
	}
	return 0;
}
