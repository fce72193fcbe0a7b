#!/usr/bin/env python3
# ov5.py TAG...: what a worker competes with while it is not stopped, in
# the 50% experiments (a native run: all of it): per second of effective
# time, how long the monitor, the producer and the two other workers ran
# during the worker's time out of a pause (mean of the three workers).
# Were all the threads but the hitter paused at once, as the virtual
# speedup means, the others would run as in a native run of the same speed.
import os, json, bisect
import sys
import ovlib
from ovlib import overlap


def running(tag, tids):
    """Each thread's running spans, and its stopped (ptrace) spans."""
    run = {t: [] for t in tids}; stop = {t: [] for t in tids}; last = {}
    for t, pp, st, np_ in ovlib.switches(tag):
        if pp in run:
            if pp in last and last[pp][0] == 'run': run[pp].append((last[pp][1], t))
            last[pp] = ('stop' if 't' in st else 'other', t)
        if np_ in run:
            if np_ in last and last[np_][0] == 'stop': stop[np_].append((last[np_][1], t))
            last[np_] = ('run', t)
    return run, stop


def outside(win, stp):
    """win less the sorted spans stp."""
    out, starts = [], [x[0] for x in stp]
    for a, b in win:
        cur = a
        for lo, hi in stp[max(0, bisect.bisect_right(starts, a) - 1):]:
            if lo >= b: break
            if hi <= cur: continue
            if lo > cur: out.append((cur, lo))
            cur = max(cur, hi)
        if cur < b: out.append((cur, b))
    return out


for tag in sys.argv[1:]:
    tids, rec = ovlib.walks(tag)
    prod, workers, mon = tids[0], tids[1:4], tids[4]
    run, stop = running(tag, (prod, mon) + tuple(workers))
    starts = {t: [x[0] for x in run[t]] for t in run}
    jf = '%s/%s.json' % (ovlib.DIR, tag)
    if os.path.exists(jf):
        exps = [x for x in json.load(open(jf))['experiments'] if x['speedup_pct'] == 50]
        win = sorted((x['start_ns'], x['start_ns'] + x['wall_ns']) for x in exps)
        eff = sum(x['wall_ns'] - x['delay_ns'] for x in exps)
    else:
        win = [(rec[0][0], rec[-1][2])]
        eff = win[0][1] - win[0][0]
    m = p = o = 0
    for w in workers:
        free = outside(win, sorted(stop[w]))
        m += sum(overlap(run[mon], starts[mon], a, b) for a, b in free) / eff / 3
        p += sum(overlap(run[prod], starts[prod], a, b) for a, b in free) / eff / 3
        o += sum(overlap(run[x], starts[x], a, b) for x in workers if x != w for a, b in free) / eff / 3
    print('%-11s a worker out of a pause, per effective second: monitor ran %.3f, producer %.3f, the other two workers %.3f'
          % (tag, m, p, o))
