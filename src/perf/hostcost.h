/*
 * What the machine charges a sampled thread, measured on causaltop
 * itself before it samples anything: the default sampling period
 * follows from it.  And what the host takes from the machine as a
 * whole: its steal time.
 */
#ifndef CT_HOSTCOST_H
# define CT_HOSTCOST_H

# include <stdbool.h>
# include <stdint.h>

/*
 * A timer sample (the interrupt, the perf handler, the timer's re-arm)
 * costs the thread it lands on: 1-5 us on bare metal and on most
 * hypervisors, 30-50 us on guests where each of those steps exits to
 * the hypervisor (AMD EPYC PVM guests, 2026-11).  At one sample per ms
 * of CPU time, 20 us is 2% of the program's time.
 */
# define HOSTCOST_SAMPLE_DEAR_NS	20000ULL

/*
 * The cost of one timer sample to the calling thread, in ns: a busy
 * loop timed in pairs of windows, the second of each sampled by a
 * task-clock event every 200 us (~35 ms in all).  False if it cannot be
 * measured (no perf).
 */
bool hostcost_sample_ns(uint64_t *cost_ns);

/*
 * The default sampling period where a sample costs cost_ns: 1 ms, 2 ms
 * where a sample is dear.
 */
uint64_t hostcost_period_ns(uint64_t cost_ns);

/*
 * CPU time the hypervisor ran something else while this guest's CPUs
 * had work (/proc/stat's steal, all CPUs summed), in ns, at 1/hz s
 * resolution.  A causal profile compares the program's speed across
 * experiments; a neighbour taking the CPUs during some of them moves
 * that speed for reasons of its own.  False where it cannot be read.
 */
bool hostcost_steal_ns(uint64_t *ns);
/* The same from the text of /proc/stat, its ticks at hz a second. */
bool hostcost_parse_steal(const char *stat, long hz, uint64_t *ns);

/* The probe's busy loop: the ns n of its steps took; how many last ~ns. */
uint64_t hostcost_spin(uint64_t n);
uint64_t hostcost_steps_for(uint64_t ns);

#endif
