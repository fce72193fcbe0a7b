#!/usr/bin/env python3
# ov.py TAG: how much of the monitor's walk time, and of its fold time, fell
# inside each worker's ptrace stops (sched_switch prev_state t .. next switch in).
import sys
import ovlib
from ovlib import overlap
tag = sys.argv[1]
tids, rec = ovlib.walks(tag)
prod, workers, mon = tids[0], tids[1:4], tids[4]
# Its own rule, not ovlib.states(): a stop runs to the next switch in even
# past a switch out the trace missed it between; its figures were made so.
stops = {t: [] for t in (prod, mon) + tuple(workers)}
open_at = {}
for t, pp, st, np_ in ovlib.switches(tag):
    if pp in stops and 't' in st:
        open_at[pp] = t
    if np_ in stops and np_ in open_at:
        stops[np_].append((open_at.pop(np_), t))
allst = [iv for w in workers for iv in stops[w]]
if not allst:
    sys.exit('no stops')
t0, t1 = min(x[0] for x in allst), max(x[1] for x in allst)
walks = [(a, r) for (q, a, r) in rec if a >= t0 and r <= t1]
folds = [(rec[i][2], rec[i + 1][0]) for i in range(len(rec) - 1) if rec[i][2] >= t0 and rec[i + 1][0] <= t1]
waits = [(q, a) for (q, a, r) in rec if q >= t0 and a <= t1]
W = sum(b - a for a, b in walks); F = sum(b - a for a, b in folds); Q = sum(b - a for a, b in waits)
print('%s: window %.1f s, %d walks (%.0f us mean), fold %.0f us mean, lock wait %.0f us mean' % (
    tag, (t1 - t0) / 1e9, len(walks), W / len(walks) / 1e3, F / len(folds) / 1e3, Q / len(waits) / 1e3))
for name, w in [('w0', workers[0]), ('w1', workers[1]), ('w2', workers[2]), ('prod', prod), ('mon', mon)]:
    iv = sorted(stops[w]); st = [x[0] for x in iv]
    P = sum(b - a for a, b in iv)
    ow = sum(overlap(iv, st, a, b) for a, b in walks); of = sum(overlap(iv, st, a, b) for a, b in folds)
    print('  %-4s stops %6d, %.2f s stopped (%.1f%% of window); walk time stopped %.1f%%, fold time stopped %.1f%%' % (
        name, len(iv), P / 1e9, 100 * P / (t1 - t0), 100 * ow / W if W else 0, 100 * of / F if F else 0))
# walk time during which all three workers are stopped at once
def inter(a, b):
    out = []; i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo: out.append((lo, hi))
        if a[i][1] < b[j][1]: i += 1
        else: j += 1
    return out
all3 = inter(inter(sorted(stops[workers[0]]), sorted(stops[workers[1]])), sorted(stops[workers[2]]))
st3 = [x[0] for x in all3]
print('  all three workers stopped: %.1f%% of walk time, %.1f%% of fold time' % (
    100 * sum(overlap(all3, st3, a, b) for a, b in walks) / W, 100 * sum(overlap(all3, st3, a, b) for a, b in folds) / F))
