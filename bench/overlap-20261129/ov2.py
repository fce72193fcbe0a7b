#!/usr/bin/env python3
# ov2.py TAG...: per experiment level, the share of the monitor's walk time
# and fold time that the workers spent running, ready (preempted), blocked
# (asleep: the queue's lock or condition) and stopped (ptrace: a pause),
# from sched_switch (run.sh) and the walk log; experiments from the JSON.
import sys
import ovlib
from ovlib import overlap
for tag in sys.argv[1:]:
    tids, rec = ovlib.walks(tag)
    workers = tids[1:4]
    ivs = ovlib.states(ovlib.switches(tag), workers)
    print('%s: workers\' state in the monitor\'s walks and folds, %% of that time (mean of the 3 workers)' % tag)
    for lvl, _, inside in ovlib.levels(tag):
        walks = [(a, r) for (q, a, r) in rec if inside(a, r)]
        folds = [(rec[i][2], rec[i + 1][0]) for i in range(len(rec) - 1) if inside(rec[i][2], rec[i + 1][0])]
        for name, part in (('walk', walks), ('fold', folds)):
            T = sum(b - a for a, b in part)
            if not T: continue
            shares = {}
            for s in ovlib.STATES:
                tot = 0
                for w in workers:
                    iv = ivs[w][s]; st_ = [x[0] for x in iv]
                    tot += sum(overlap(iv, st_, a, b) for a, b in part)
                shares[s] = 100 * tot / T / len(workers)
            print('  lvl %3d %s %6.1f ms in %4d: running %5.1f  ready %5.1f  blocked %5.1f  stopped %5.1f' % (
                lvl, name, T / 1e6, len(part), shares['running'], shares['ready'], shares['blocked'], shares['stopped']))
