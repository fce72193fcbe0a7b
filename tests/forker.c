/*
 * forker fork|vfork: a child (forked, or vforked and exec'ed as
 * "forker child") spins in child_work() and exits 1 if it is traced, 0 if
 * not; the parent spins in parent_work(), reaps it, and exits 10 + that.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests.h"

static volatile unsigned long sink;

static void __attribute__((noinline))
parent_work(double secs)
{
	double end = mono_now() + secs;

	while (mono_now() < end)
		for (int i = 0; i < 100000; i++) sink += i;	/* PARENT-LINE */
}

static void __attribute__((noinline))
child_work(double secs)
{
	double end = mono_now() + secs;

	while (mono_now() < end)
		for (int i = 0; i < 100000; i++) sink += i * 3;	/* CHILD-LINE */
}

static int
traced(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int tp = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tp) == 1)
			break;
	if (f)
		fclose(f);
	return tp != 0;
}

static int
child(void)
{
	child_work(0.4);
	return traced();
}

int
main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (argc > 1 && !strcmp(argv[1], "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execl(argv[0], argv[0], "child", (char *) NULL);
			_exit(99);
		}
	} else {
		pid = fork();
		if (pid == 0)
			_exit(child());
	}
	if (pid < 0)
		fail_exit(99, "fork failed");
	parent_work(0.4);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		fail_exit(99, "child did not exit normally");
	return 10 + WEXITSTATUS(status);
}
