/* hog CPU HOLD_US EVERY_US SECS: at SCHED_FIFO 1 on CPU, spin HOLD_US every EVERY_US. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int c, char **v) {
	cpu_set_t s; struct sched_param p = { .sched_priority = 1 };
	long long hold = atoll(v[2]) * 1000, every = atoll(v[3]) * 1000, end = now() + atoll(v[4]) * 1000000000LL, held = 0;
	CPU_ZERO(&s); CPU_SET(atoi(v[1]), &s);
	if (sched_setaffinity(0, sizeof(s), &s) || sched_setscheduler(0, SCHED_FIFO, &p)) { perror("hog"); return 1; }
	while (now() < end) {
		long long t0 = now(), t;
		while ((t = now()) - t0 < hold) ;
		held += t - t0;
		struct timespec ts = { 0, every - hold };
		nanosleep(&ts, 0);
	}
	printf("held %.3f s\n", held / 1e9);
	return 0;
}
