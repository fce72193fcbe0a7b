#!/usr/bin/env python3
# statewatch.py PID SECS PROFILE.json: every ~5 ms each thread's state
# letter (/proc stat: R running or ready, S blocked, t held in a ptrace
# stop, i.e. paused), threads in creation order; once causaltop has
# written PROFILE.json each look is put in the experiment it fell in
# (CLOCK_MONOTONIC both), and the shares are printed by level.
import collections, sys, time
from procwatch import by_experiment, state, threads
pid, secs, prof = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
time.sleep(0.5)
tids = threads(pid)
smp = []
t0 = time.time()
while time.time() - t0 < secs:
    smp.append((time.monotonic_ns(), [state(pid, t) for t in tids]))
    time.sleep(0.005)
agg = collections.defaultdict(lambda: [collections.Counter() for _ in tids])
n = collections.Counter()
for lv, (t, ss) in by_experiment(smp, prof):
    n[lv] += 1
    for k, s in enumerate(ss): agg[lv][k][s] += 1
for lv in sorted(agg):
    print('level %3d%% (%d looks): ' % (lv, n[lv]) + '; '.join(
        'thread %d: R %2.0f%% S %2.0f%% t %2.0f%%' % (k, 100 * c['R'] / n[lv], 100 * c['S'] / n[lv], 100 * c['t'] / n[lv])
        for k, c in enumerate(agg[lv])))
