#!/usr/bin/env python3
"""Over-dispersion of the baselines of causaltop JSON profiles (issue 29).

    extract.py TAG=PROFILE.json ...   > baselines.jsonl   (the raw data kept)
    extract.py --table baselines.jsonl                     (the table)

For each profile, every 0% experiment (baseline) of point 0 with 5 events
or more: start, duration N (or inflight x duration for a latency point),
events D, wall.  The table: per profile, the baselines' median length
and events, and sigma2 as calc/stats.c defines it (the relative noise
variance per event: each baseline's y = 1 - m / m0 against the pool of
its 3 + 3 neighbours, z = y / sqrt(1/D + 1/P), sigma2 = mean z^2; here
without the estimator's Huber winsorizing, and its median form beside
it), and the variance of the relative rate per second of experiment
(sigma2 / D x length), the figure a length should minimize.
"""
import json
import math
import statistics
import sys


def baselines(path):
    d = json.load(open(path))
    out = []
    for e in d['experiments']:
        if e['speedup_pct'] != 0:
            continue
        for q in e['points']:
            if q['point'] != 0:
                continue
            lat = q['kind'] == 'latency'
            D = q['arrivals'] if lat else q['delta']
            N = q['inflight'] * e['duration_ns'] if lat else e['duration_ns']
            if D >= 5:
                out.append(dict(start_ns=e['start_ns'], N=N, D=D, wall_ns=e['wall_ns']))
    return sorted(out, key=lambda b: b['start_ns'])


def table(rows):
    by = {}
    for r in rows:
        by.setdefault(r['tag'], []).append(r)
    print('| profile | baselines | length | events | sigma2 | sigma2 (median form) | rel. var. x s |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for tag, b in sorted(by.items()):
        z = []
        for j in range(len(b)):
            nb = [k for k in range(max(0, j - 3), min(len(b), j + 4)) if k != j]
            sN = sum(b[k]['N'] for k in nb)
            sD = sum(b[k]['D'] for k in nb)
            y = 1 - (b[j]['N'] / b[j]['D']) / (sN / sD)
            z.append(y / math.sqrt(1 / b[j]['D'] + 1 / sD))
        s2 = sum(x * x for x in z) / len(z)
        s2m = statistics.median(x * x for x in z) / 0.4549
        ln = statistics.median(x['wall_ns'] for x in b) / 1e9
        ev = statistics.median(x['D'] for x in b)
        print('| %s | %d | %.0f ms | %.0f | %.2f | %.2f | %.2e |'
              % (tag, len(b), ln * 1e3, ev, s2, s2m, s2 / ev * ln))


if __name__ == '__main__':
    if sys.argv[1] == '--table':
        table([json.loads(ln) for ln in open(sys.argv[2])])
    else:
        for arg in sys.argv[1:]:
            tag, path = arg.split('=', 1)
            for b in baselines(path):
                print(json.dumps(dict(tag=tag, **b)))
