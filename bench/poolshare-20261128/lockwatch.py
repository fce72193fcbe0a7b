#!/usr/bin/env python3
# lockwatch.py PID SECS: every ~5 ms, pool's monitor thread's state (its
# /proc stat letter: t = held in a ptrace stop, i.e. paused), whether it
# owns the job queue's lock (the glibc mutex's owner word, read from
# /proc/PID/mem at q_lock), and how many workers are blocked (S).
# pool's threads in creation order: main, producer, 3 workers, monitor.
import collections, os, struct, sys, time
from procwatch import state, threads, var_addr
pid, secs = int(sys.argv[1]), float(sys.argv[2])
lock = var_addr(pid, 'q_lock')
tids = threads(pid, 6)
mon, workers = tids[5], tids[2:5]
mem = os.open('/proc/%d/mem' % pid, os.O_RDONLY)
c = collections.Counter(); blk = collections.Counter()
t0 = time.time()
while time.time() - t0 < secs:
    s = state(pid, mon)
    try: owner = struct.unpack('iii', os.pread(mem, 12, lock))[2]
    except OSError: break
    held = owner == mon
    nb = sum(state(pid, w) == 'S' for w in workers)
    c[(s, held)] += 1; blk[(s, held)] += nb
    time.sleep(0.005)
n = sum(c.values())
print('samples %d (monitor %d, workers %s)' % (n, mon, workers))
for k in sorted(c):
    print('monitor %s, %-17s %5.1f%% of samples, workers blocked %.2f on average' % (
        k[0], 'holding the lock' if k[1] else 'not holding it', 100 * c[k] / n, blk[k] / c[k]))
