#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"
#include "xmalloc.h"

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
	char buf[1024];
	char *p = stat_after_comm(tid, buf, sizeof(buf));

	return p ? *p : 0;
}

bool
procfs_schedstat(pid_t tid, uint64_t *run_ns, uint64_t *wait_ns)
{
	char path[64];
	unsigned long long run, wait;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int) tid);
	if (!(f = fopen(path, "re")))
		return false;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	if (n != 2)
		return false;
	*run_ns = run;
	*wait_ns = wait;
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

int
procfs_tasks(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *de;
	size_t n = 0, cap = 0;
	pid_t *v = NULL;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		long t = strtol(de->d_name, NULL, 10);

		if (t <= 0)
			continue;
		if (n == cap)
			v = xgrowarray(v, &cap, n + 1, sizeof(*v));
		v[n++] = (pid_t) t;
	}
	closedir(d);
	*tids = v;
	return (int) n;
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
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	/* Not counting the directory stream's own fd. */
	return n ? n - 1 : 0;
}
