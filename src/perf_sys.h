/* The perf_event_open(2) system call, which glibc does not wrap. */
#ifndef CT_PERF_SYS_H
# define CT_PERF_SYS_H

# include <linux/perf_event.h>
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

#endif
