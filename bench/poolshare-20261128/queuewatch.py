#!/usr/bin/env python3
# queuewatch.py PID SECS PROFILE.json: every ~5 ms, the job queue's fill
# (q_count, from /proc/PID/mem), the producer's and the monitor's state
# (t: held in a ptrace stop, i.e. paused) and how many of the 3 workers
# are blocked (S); then, once causaltop has written PROFILE.json, each
# sample is put in the experiment it fell in (CLOCK_MONOTONIC both) and
# summed by level.  pool's threads in creation order: main, producer, 3
# workers, monitor.
import collections, os, struct, sys, time
from procwatch import by_experiment, state, threads, var_addr
pid, secs, prof = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
count = var_addr(pid, 'q_count')
tids = threads(pid, 6)
prod, workers, mon = tids[1], tids[2:5], tids[5]
mem = os.open('/proc/%d/mem' % pid, os.O_RDONLY)
smp = []
t0 = time.time()
while time.time() - t0 < secs:
    try: qc = struct.unpack('I', os.pread(mem, 4, count))[0]
    except OSError: break
    smp.append((time.monotonic_ns(), qc, state(pid, prod), state(pid, mon), sum(state(pid, w) == 'S' for w in workers)))
    time.sleep(0.005)
agg = collections.defaultdict(collections.Counter)
for lv, (t, qc, ps, ms, nb) in by_experiment(smp, prof):
    a = agg[lv]
    a['n'] += 1; a['empty'] += qc == 0; a['fill'] += qc; a['prod_t'] += ps == 't'; a['mon_t'] += ms == 't'
    a['blocked'] += nb; a['empty_prod_t'] += qc == 0 and ps == 't'
for lv in sorted(agg):
    a = agg[lv]; n = a['n']
    print('level %3d%%: %4d samples; queue empty %4.1f%% (with the producer paused %4.1f%%), mean fill %4.1f of 16; producer paused %4.1f%%, monitor paused %4.1f%%; workers blocked %.2f on average'
          % (lv, n, 100 * a['empty'] / n, 100 * a['empty_prod_t'] / n, a['fill'] / n, 100 * a['prod_t'] / n, 100 * a['mon_t'] / n, a['blocked'] / n))
