#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/procfs.h"
#include "base/xmalloc.h"

#define PF_KTHREAD 0x00200000

/* Value of a "Key:\t..." line of /proc/PID/status, or -1. */
static long
status_field(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

pid_t
procfs_tgid(pid_t tid)
{
	return (pid_t) status_field(tid, "Tgid");
}

pid_t
procfs_tracer(pid_t pid)
{
	return (pid_t) status_field(pid, "TracerPid");
}

long
procfs_uid(pid_t pid)
{
	return status_field(pid, "Uid");
}

/* The fields after "(comm)", which may itself hold spaces and parens. */
static char *
stat_after_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	size_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) tid);
	if (!(f = fopen(path, "re")))
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

char
procfs_state(pid_t tid)
{
	struct procfs_task pt = PROCFS_TASK_INIT;
	char c = procfs_task_state(&pt, tid, tid);

	procfs_task_close(&pt);
	return c;
}

void
procfs_task_close(struct procfs_task *pt)
{
	if (pt->stat_fd >= 0)
		close(pt->stat_fd);
	if (pt->schedstat_fd >= 0)
		close(pt->schedstat_fd);
	*pt = (struct procfs_task) PROCFS_TASK_INIT;
}

/*
 * Read file name of the thread into buf (NUL-terminated), opening it the
 * first time.  A thread renamed by an exec gets its files again.
 */
static ssize_t
task_read(struct procfs_task *pt, int *fd, const char *name, pid_t tgid, pid_t tid,
	  char *buf, size_t size)
{
	ssize_t n;

	if (pt->tgid != tgid || pt->tid != tid) {
		procfs_task_close(pt);
		pt->tgid = tgid;
		pt->tid = tid;
	}
	if (*fd < 0) {
		char path[80];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int) tgid, (int) tid, name);
		if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return -1;
	}
	/* A seq_file read at offset 0 is generated afresh. */
	if ((n = pread(*fd, buf, size - 1, 0)) < 0)
		return -1;
	buf[n] = 0;
	return n;
}

char
procfs_task_state(struct procfs_task *pt, pid_t tgid, pid_t tid)
{
	char buf[1024], *p;

	if (task_read(pt, &pt->stat_fd, "stat", tgid, tid, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

bool
procfs_task_utime(struct procfs_task *pt, pid_t tgid, pid_t tid, uint64_t *ns)
{
	static long hz;
	char buf[1024], *p;
	unsigned long long ticks;

	if (task_read(pt, &pt->stat_fd, "stat", tgid, tid, buf, sizeof(buf)) < 0 ||
	    !(p = strrchr(buf, ')')))
		return false;
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu", &ticks) != 1)
		return false;
	if (!hz && (hz = sysconf(_SC_CLK_TCK)) <= 0)
		hz = 100;
	*ns = ticks * (1000000000ULL / (unsigned long long) hz);
	return true;
}

bool
procfs_task_schedstat(struct procfs_task *pt, pid_t tgid, pid_t tid, uint64_t *run_ns,
		      uint64_t *wait_ns, uint64_t *slices)
{
	char buf[128];
	uint64_t run, wait, n;

	if (task_read(pt, &pt->schedstat_fd, "schedstat", tgid, tid, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &run, &wait, &n) != 3)
		return false;
	if (run_ns)
		*run_ns = run;
	*wait_ns = wait;
	if (slices)
		*slices = n;
	return true;
}

long
procfs_syscall(pid_t tid)
{
	char path[64], buf[32];
	long nr;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int) tid);
	if (!(f = fopen(path, "re")))
		return -2;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (!strncmp(buf, "running", 7))
		return -1;
	if (sscanf(buf, "%ld", &nr) != 1 || nr < 0)
		return -2;
	return nr;
}

bool
procfs_is_kthread(pid_t pid)
{
	char buf[1024];
	char *p = stat_after_comm(pid, buf, sizeof(buf));
	unsigned long flags;

	/* state ppid pgrp session tty_nr tpgid flags */
	if (!p || sscanf(p, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

void
procfs_comm(pid_t tid, char buf[16])
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int) tid);
	strcpy(buf, "?");
	if (!(f = fopen(path, "re")))
		return;
	if (fgets(buf, 16, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* The numeric entries of a /proc directory that keep() accepts. */
static int
scan_pids(const char *path, bool (*keep)(pid_t, pid_t), pid_t arg, pid_t **out)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	pid_t *v = NULL;
	DIR *d;

	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		long k = strtol(de->d_name, NULL, 10);

		if (k <= 0 || (keep && !keep((pid_t) k, arg)))
			continue;
		if (n == cap)
			v = xgrowarray(v, &cap, n + 1, sizeof(*v));
		v[n++] = (pid_t) k;
	}
	closedir(d);
	*out = v;
	return (int) n;
}

int
procfs_tasks(pid_t pid, pid_t **tids)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	return scan_pids(path, NULL, 0, tids);
}

static bool
child_of(pid_t k, pid_t parent)
{
	return k != parent && status_field(k, "PPid") == parent;
}

/*
 * /proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN and misses
 * children of threads that exited: scan every process's PPid instead.
 */
int
procfs_children(pid_t pid, pid_t **kids)
{
	return scan_pids("/proc", child_of, pid, kids);
}

int
procfs_read_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "re");
	int v;

	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

unsigned
procfs_self_fds(void)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	unsigned n = 0;

	/*
	 * Since Linux 6.2 the directory's size is the number of open fds:
	 * no walk (at 256 threads, ~780 entries, a -v run's walks were 7-12%
	 * of the supervisor's CPU).  0 on older kernels.
	 */
	if (stat("/proc/self/fd", &sb) == 0 && sb.st_size > 0)
		return (unsigned) sb.st_size;
	if (!(d = opendir("/proc/self/fd")))
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	/* Not counting the directory stream's own fd. */
	return n ? n - 1 : 0;
}

char *
procfs_environ(pid_t pid, const char *name)
{
	size_t len = strlen(name), cap = 0, n = 0;
	char path[64], *buf = NULL, *v = NULL;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int) pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	do {
		if (n + 4096 + 1 > cap)
			buf = xrealloc(buf, cap = 2 * cap + 4096 + 1);
		r = read(fd, buf + n, cap - n - 1);
		n += r > 0 ? (size_t) r : 0;
	} while (r > 0);
	close(fd);
	if (!buf)
		return NULL;
	buf[n] = 0;
	for (size_t i = 0; i < n && !v; i += strlen(buf + i) + 1) {
		if (!strncmp(buf + i, name, len) && buf[i + len] == '=')
			v = xstrdup(buf + i + len + 1);
	}
	free(buf);
	return v;
}

bool
procfs_auxv(pid_t pid, unsigned long type, uint64_t *value)
{
	unsigned long v[2 * 64];
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int) pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	r = read(fd, v, sizeof(v));
	close(fd);
	for (ssize_t i = 0; r > 0 && (i + 2) * (ssize_t) sizeof(v[0]) <= r && v[i]; i += 2) {
		if (v[i] == type) {
			*value = v[i + 1];
			return true;
		}
	}
	return false;
}

char *
procfs_maps(pid_t pid)
{
	char path[sizeof("/proc//maps") + sizeof(int) * 3];
	size_t size = 0, alloc = 0;
	char *buf = NULL;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (alloc - size < 4096)
			buf = xgrowarray(buf, &alloc, size + 4096, 1);
		n = read(fd, buf + size, alloc - size - 1);
		if (n > 0) {
			size += n;
		} else if (n == 0) {
			break;
		} else if (errno != EINTR) {
			err = errno;
			close(fd);
			free(buf);
			errno = err;
			return NULL;
		}
	}
	close(fd);
	buf[size] = '\0';
	return buf;
}

bool
procfs_maps_next(char **cursor, struct procfs_map *m)
{
	char *line = *cursor;

	while (*line) {
		char *next = strchrnul(line, '\n');
		int pos = -1;

		if (*next)
			*next++ = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &m->start, &m->end, m->perms, &m->offset, &m->dmajor, &m->dminor,
			   &m->ino, &pos) >= 7 && pos >= 0) {
			m->name = line + pos;
			*cursor = next;
			return true;
		}
		line = next;
	}
	*cursor = line;
	return false;
}
