#!/usr/bin/env python3
# statewatch.py PID SECS PROFILE.json: every ~5 ms each thread's state
# letter (/proc stat: R running or ready, S blocked, t held in a ptrace
# stop, i.e. paused), threads in creation order; once causaltop has
# written PROFILE.json each look is put in the experiment it fell in
# (CLOCK_MONOTONIC both), and the shares are printed by level.
import os, sys, time, json, bisect, collections
pid, secs, prof = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
time.sleep(0.5)
tids = sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
def state(t):
    try: return open('/proc/%d/task/%d/stat' % (pid, t)).read().rsplit(')', 1)[1].split()[0]
    except OSError: return '?'
smp = []
t0 = time.time()
while time.time() - t0 < secs:
    smp.append((time.monotonic_ns(), [state(t) for t in tids]))
    time.sleep(0.005)
while not os.path.exists(prof): time.sleep(0.5)
time.sleep(1)
e = sorted((x['start_ns'], x['start_ns'] + x['wall_ns'], x['speedup_pct']) for x in json.load(open(prof))['experiments'])
st = [x[0] for x in e]
agg = collections.defaultdict(lambda: [collections.Counter() for _ in tids])
n = collections.Counter()
for t, ss in smp:
    i = bisect.bisect_right(st, t) - 1
    if i < 0 or t >= e[i][1]: continue
    n[e[i][2]] += 1
    for k, s in enumerate(ss): agg[e[i][2]][k][s] += 1
for lv in sorted(agg):
    print('level %3d%% (%d looks): ' % (lv, n[lv]) + '; '.join(
        'thread %d: R %2.0f%% S %2.0f%% t %2.0f%%' % (k, 100 * c['R'] / n[lv], 100 * c['S'] / n[lv], 100 * c['t'] / n[lv])
        for k, c in enumerate(agg[lv])))
