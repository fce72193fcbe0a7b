# mk.py: write /tmp/ov/pool-ov.c, the corpus's pool with the monitor's walks
# logged (lock asked, taken, released, CLOCK_MONOTONIC ns) into the file
# $POOL_OVLOG, and each thread's tid (producer, workers 0-2, monitor).
# Build: cc -g -gdwarf-3 -O2 -fno-omit-frame-pointer -I include -I tests -I bench
#        -o /tmp/ov/pool-ov /tmp/ov/pool-ov.c -lpthread -ldl
src = open('/work/main/bench/corpus/pool.c').read()
hdr = r'''
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/syscall.h>
/* Overlap probe (scratch, not the corpus): the monitor's walk times and the threads' tids. */
struct ovlog { long tids[8]; unsigned long n; unsigned long rec[][3]; };
static struct ovlog *ov;
#define OV_MAX 4000000UL
static unsigned long ov_ns(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec * 1000000000UL + ts.tv_nsec; }
static void ov_open(void) {
	const char *p = getenv("POOL_OVLOG");
	if (!p) return;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	size_t sz = sizeof(struct ovlog) + OV_MAX * 24;
	if (fd < 0 || ftruncate(fd, sz)) abort();
	ov = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ov == MAP_FAILED) abort();
}
static void ov_tid(int slot) { if (ov) ov->tids[slot] = syscall(SYS_gettid); }
'''
def rep(a, b):
    global src
    assert src.count(a) == 1, a
    src = src.replace(a, b)
rep('#include "workload.h"\n', '#include "workload.h"\n' + hdr)
rep('\tstruct job j;\n\n\tfor (long seq = 0;', '\tstruct job j;\n\n\tov_tid(0);\n\tfor (long seq = 0;')
rep('worker(void *arg GT_UNUSED)\n{\n\tunsigned long digest, lit;\n\tstruct job j;\n',
    'worker(void *arg)\n{\n\tunsigned long digest, lit;\n\tstruct job j;\n\n\tov_tid(1 + (int)(long)arg);\n')
rep('\twhile (__atomic_load_n(&producing, __ATOMIC_RELAXED)) {\n\t\tpthread_mutex_lock(&q_lock);',
  '\tov_tid(4);\n\twhile (__atomic_load_n(&producing, __ATOMIC_RELAXED)) {\n\t\tunsigned long t_req = ov_ns(), t_acq;\n\t\tpthread_mutex_lock(&q_lock);\n\t\tt_acq = ov_ns();')
rep('\t\tpthread_mutex_unlock(&q_lock);\n\n\t\tnow = gt_now();',
  '\t\tpthread_mutex_unlock(&q_lock);\n\t\tif (ov && ov->n < OV_MAX) { unsigned long k = ov->n; ov->rec[k][0] = t_req; ov->rec[k][1] = t_acq; ov->rec[k][2] = ov_ns(); __atomic_store_n(&ov->n, k + 1, __ATOMIC_RELEASE); }\n\t\tnow = gt_now();')
rep('gt_thread(&t[i], i ? 1 : 0, worker, NULL);', 'gt_thread(&t[i], i ? 1 : 0, worker, (void *)(long)i);')
rep('\tgt_init(argc, argv);\n', '\tgt_init(argc, argv);\n\tov_open();\n')
open('/tmp/ov/pool-ov.c', 'w').write(src)
