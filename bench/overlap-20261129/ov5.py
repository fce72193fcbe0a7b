#!/usr/bin/env python3
# ov5.py TAG...: what a worker competes with while it is not stopped, in
# the 50% experiments (a native run: all of it): per second of effective
# time, how long the monitor, the producer and the two other workers ran
# during the worker's time out of a pause (mean of the three workers).
# Were all the threads but the hitter paused at once, as the virtual
# speedup means, the others would run as in a native run of the same speed.
import os, json, sys
import ovlib
from ovlib import overlap

for tag in sys.argv[1:]:
    tids, rec = ovlib.walks(tag)
    prod, workers, mon = tids[0], tids[1:4], tids[4]
    sp = ovlib.states(ovlib.switches(tag), (prod, mon) + tuple(workers))
    run = {t: sp[t]['running'] for t in sp}
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
        free = ovlib.outside(win, sp[w]['stopped'])
        m += sum(overlap(run[mon], starts[mon], a, b) for a, b in free) / eff / 3
        p += sum(overlap(run[prod], starts[prod], a, b) for a, b in free) / eff / 3
        o += sum(overlap(run[x], starts[x], a, b) for x in workers if x != w for a, b in free) / eff / 3
    print('%-11s a worker out of a pause, per effective second: monitor ran %.3f, producer %.3f, the other two workers %.3f'
          % (tag, m, p, o))
