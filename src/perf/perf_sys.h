/* The perf_event_open(2) system call, which glibc does not wrap. */
#ifndef CT_PERF_SYS_H
# define CT_PERF_SYS_H

# include <errno.h>
# include <stdint.h>
# include <linux/perf_event.h>
# include <sys/mman.h>
# include <sys/syscall.h>
# include <sys/types.h>
# include <unistd.h>

/* Close-on-exec always: a launched command must never inherit one. */
static inline int
perf_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int) syscall(__NR_perf_event_open, attr, pid, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
}

/*
 * A counter of tid's time on a CPU, live: read(2) brings a running
 * thread's count up to date, which its schedstat is only at each
 * scheduler tick (4 ms at HZ=250).  -1 with errno set on failure.
 */
static inline int
perf_sys_task_clock(pid_t tid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		/* A count of all its time all the same; asks for less. */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return perf_sys_open(&attr, tid, -1);
}

/* fd's count, 0 if it cannot be read. */
static inline uint64_t
perf_sys_count(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == (ssize_t) sizeof(v) ? v : 0;
}

/*
 * Map fd's ring: a header page and *pages data pages (a power of two).
 * Without CAP_IPC_LOCK ring memory counts against perf_event_mlock_kb:
 * the ring is halved rather than refused, and *pages says what was
 * mapped.  MAP_FAILED with errno set when even one page is refused.
 */
static inline void *
perf_sys_map_ring(int fd, unsigned *pages, size_t page)
{
	for (;;) {
		void *map = mmap(NULL, (*pages + 1) * page, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);

		if (map != MAP_FAILED || errno != EPERM || *pages <= 1)
			return map;
		*pages /= 2;
	}
}

#endif
