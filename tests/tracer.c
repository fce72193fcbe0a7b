/* tracer PID: hold PID traced (as a debugger would) until killed. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	pid_t pid = argc > 1 ? atoi(argv[1]) : 0;

	if (ptrace(PTRACE_SEIZE, pid, 0L, 0L) < 0) {
		perror("PTRACE_SEIZE");
		return 1;
	}
	printf("tracing %d\n", (int) pid);
	fflush(stdout);
	for (;;)
		pause();
}
