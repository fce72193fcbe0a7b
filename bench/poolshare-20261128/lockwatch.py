#!/usr/bin/env python3
# lockwatch.py PID SECS: every ~5 ms, pool's monitor thread's state (its
# /proc stat letter: t = held in a ptrace stop, i.e. paused), whether it
# owns the job queue's lock (the glibc mutex's owner word, read from
# /proc/PID/mem at q_lock), and how many workers are blocked (S).
# pool's threads in creation order: main, producer, 3 workers, monitor.
import os, sys, time, struct, subprocess, collections
pid, secs = int(sys.argv[1]), float(sys.argv[2])
exe = os.readlink('/proc/%d/exe' % pid)
off = int([l.split()[0] for l in subprocess.run(['nm', exe], capture_output=True, text=True).stdout.splitlines() if l.endswith(' q_lock')][0], 16)
base = None
for l in open('/proc/%d/maps' % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
        base = int(f[0].split('-')[0], 16); break
tids = sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
while len(tids) < 6:
    time.sleep(0.1); tids = sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
mon, workers = tids[5], tids[2:5]
mem = os.open('/proc/%d/mem' % pid, os.O_RDONLY)
def state(t):
    try: return open('/proc/%d/task/%d/stat' % (pid, t)).read().rsplit(')', 1)[1].split()[0]
    except OSError: return '?'
c = collections.Counter(); blk = collections.Counter()
t0 = time.time()
while time.time() - t0 < secs:
    s = state(mon)
    try: owner = struct.unpack('iii', os.pread(mem, 12, base + off))[2]
    except OSError: break
    held = owner == mon
    nb = sum(state(w) == 'S' for w in workers)
    c[(s, held)] += 1; blk[(s, held)] += nb
    time.sleep(0.005)
n = sum(c.values())
print('samples %d (monitor %d, workers %s)' % (n, mon, workers))
for k in sorted(c):
    print('monitor %s, %-17s %5.1f%% of samples, workers blocked %.2f on average' % (
        k[0], 'holding the lock' if k[1] else 'not holding it', 100 * c[k] / n, blk[k] / c[k]))
