/* What causaltop reads from /proc about its targets and itself. */
#ifndef CT_PROCFS_H
# define CT_PROCFS_H

# include <stdbool.h>
# include <stdint.h>
# include <sys/types.h>

/* Thread group of tid, or -1 when it is gone. */
pid_t procfs_tgid(pid_t tid);
/* TracerPid of pid: 0 untraced, -1 gone. */
pid_t procfs_tracer(pid_t pid);
/* Real uid of pid, or -1. */
long procfs_uid(pid_t pid);
/* PF_KTHREAD in /proc/PID/stat flags. */
bool procfs_is_kthread(pid_t pid);
/* State letter from /proc/TID/stat (R, S, D, T, t, Z, X), or 0. */
char procfs_state(pid_t tid);
/*
 * The system call tid is blocked in (/proc/TID/syscall): its number, -1
 * when it is running (in user space), -2 when it cannot be told.
 */
long procfs_syscall(pid_t tid);
/*
 * A thread's /proc/TGID/task/TID files, kept open and read again with
 * pread: one system call a look instead of four (open, fstat, read,
 * close).  The task/ entry describes the thread alone, where /proc/TID/stat
 * sums the CPU times of its whole group: 6 us a read at 256 threads
 * against 20 us (and 12 us with the open and close).
 */
struct procfs_task {
	pid_t tgid, tid;		/* what the fds were opened for */
	int stat_fd, schedstat_fd;	/* -1: not open */
};
# define PROCFS_TASK_INIT { 0, 0, -1, -1 }
/* State letter as procfs_state. */
char procfs_task_state(struct procfs_task *, pid_t tgid, pid_t tid);
/* CPU time spent in user mode (stat's utime), in ns; false when gone. */
bool procfs_task_utime(struct procfs_task *, pid_t tgid, pid_t tid, uint64_t *ns);
/*
 * From schedstat: CPU time run (run_ns may be NULL; a running thread's
 * is brought up to date only at scheduler ticks) and time spent
 * runnable waiting for a CPU, in ns, and (slices, may be NULL) how many
 * times it got a CPU.  False when the thread is gone.
 */
bool procfs_task_schedstat(struct procfs_task *, pid_t tgid, pid_t tid,
			   uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices);
void procfs_task_close(struct procfs_task *);
/* Thread name into buf (16 bytes); "?" when gone. */
void procfs_comm(pid_t tid, char buf[16]);
/* Threads of pid; returns count (malloc'ed array in *tids) or -1. */
int procfs_tasks(pid_t pid, pid_t **tids);
/* Processes whose parent is pid now; count (malloc'ed array) or -1. */
int procfs_children(pid_t pid, pid_t **kids);
/* An integer from a file such as /proc/sys/kernel/perf_event_paranoid. */
int procfs_read_int(const char *path, int dflt);
/*
 * The value of NAME in pid's environment as it was at its exec
 * (/proc/PID/environ), malloc'ed; NULL when unset or unreadable.
 */
char *procfs_environ(pid_t pid, const char *name);
/* An entry of its auxiliary vector (AT_ENTRY: the program's entry point). */
bool procfs_auxv(pid_t pid, unsigned long type, uint64_t *value);
/* Open file descriptors of causaltop itself. */
unsigned procfs_self_fds(void);

/*
 * /proc/PID/maps, for the symbolizer and the probe resolver alike: all of
 * it, NUL-terminated and malloc'ed (NULL with errno), then one mapping
 * at a time.
 */
char *procfs_maps(pid_t pid);
struct procfs_map {
	uint64_t start, end, offset, ino;
	unsigned dmajor, dminor;
	char perms[5];			/* "r-xp" */
	const char *name;		/* path, "[vdso]", ... or "": into the text */
};
/*
 * The next line of the text at *cursor that reads as a mapping, cut off
 * in place (its name NUL-terminated); false at the end.
 */
bool procfs_maps_next(char **cursor, struct procfs_map *);

#endif
