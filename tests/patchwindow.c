/*
 * patchwindow: a thread stopped with its PC inside the first bytes of
 * window_fn(), for patch.test.  window_fn's second instruction reads a
 * page registered with userfaultfd, so the thread waits in that page
 * fault at window_fn + 1, inside the bytes a jump to a pad would replace,
 * until a line on stdin resolves it.  Says "ready" once the thread is
 * blocked there, then "done" when it has returned; exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tests.h"

/* Fixed bytes: push rbx (1); mov eax, [rdi] (2, faults); mov; mov; pop; ret. */
__asm__(".text\n"
	".globl window_fn\n"
	".type window_fn, @function\n"
	"window_fn:\n"
	"	push %rbx\n"
	"	mov (%rdi), %eax\n"
	"	mov %eax, %ebx\n"
	"	mov %ebx, %eax\n"
	"	pop %rbx\n"
	"	ret\n"
	".size window_fn, .-window_fn\n");
int window_fn(const int *p);

static int *page;
static volatile int result;

static void *
reader(void *arg)
{
	(void) arg;
	result = window_fn(page);
	return NULL;
}

int
main(void)
{
	long psize = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_zeropage zero;
	struct uffd_msg msg;
	pthread_t t;
	char line[64];
	int uffd = (int) syscall(SYS_userfaultfd, O_CLOEXEC);

	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		fail_exit(77, "userfaultfd: %s", strerror(errno));
	page = mmap(NULL, (size_t) psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED)
		fail_exit(99, "mmap");
	reg = (struct uffdio_register) {
		.range = { .start = (unsigned long) page, .len = (unsigned long) psize },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		fail_exit(77, "UFFDIO_REGISTER: %s", strerror(errno));
	pthread_create(&t, NULL, reader, NULL);
	/* The fault, once the reader is in it. */
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		fail_exit(99, "no page fault");
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		fail_exit(99, "stdin closed");
	zero = (struct uffdio_zeropage) {
		.range = { .start = (unsigned long) page, .len = (unsigned long) psize },
	};
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zero))
		fail_exit(99, "UFFDIO_ZEROPAGE: %s", strerror(errno));
	pthread_join(t, NULL);
	printf("done %d\n", result);
	fflush(stdout);
	return 0;
}
