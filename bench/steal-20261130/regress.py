#!/usr/bin/env python3
"""Each check's error (bench/validate-data/gt-20261130.jsonl) against the
steal its experiments lost beyond their baselines' (its JSON profile),
for gt-record runs 59 and 60: points, the least-squares slope and r.
A profile is kept per check name, so where two checks share one (gt-rpc
over tcp and unix, gt-pipeline's) it is matched with the run's last.
Usage (from the top of the tree): bench/steal-20261130/regress.py"""
import glob
import gzip
import json
import math
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = (('20261130T120357', 'run59'), ('20261130T131610', 'run60'))


def steal_excess(path):
    """Mean steal % of the CPUs in the experiments less in the baselines."""
    with gzip.open(path, 'rt') as f:
        d = json.load(f)
    base, exp = [], []
    for e in d['experiments']:
        if e.get('steal_ns') is None or not e['wall_ns']:
            continue
        (base if e['speedup_pct'] == 0 else exp).append(100 * e['steal_ns'] / e['wall_ns'] / 2)
    return st.mean(exp) - st.mean(base) if base and exp else None


def main():
    errs = {}
    with open(os.path.join(HERE, '..', 'validate-data', 'gt-20261130.jsonl')) as f:
        for ln in f:
            r = json.loads(ln)
            if r.get('kind') == 'gt':
                errs[(r['run'], r['prog'], r['line'], r['pct'], r['args'])] = \
                    100 * (r['est'] - r['real'])
    pts = []
    for run, sub in RUNS:
        for path in sorted(glob.glob(os.path.join(HERE, sub, '*.json.gz'))):
            name = os.path.basename(path)[:-len('.json.gz')]
            args = ''
            if name.endswith('-__wake_tracking_syscall'):
                args, name = '--wake-tracking=syscall', name[:-len('-__wake_tracking_syscall')]
            p = name.split('-')
            key = (run, '-'.join(p[:2]), p[2], int(p[3]), args)
            x = steal_excess(path)
            if key in errs and x is not None:
                pts.append((x, errs[key], sub, name))
    pts.sort()
    for x, e, sub, name in pts:
        print('%+6.2f  %+5.1f  %s %s' % (x, e, sub, name))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    mx, my = st.mean(xs), st.mean(ys)
    sxy = sum((a - mx) * (b - my) for a, b in zip(xs, ys))
    sxx = sum((a - mx) ** 2 for a in xs)
    syy = sum((b - my) ** 2 for b in ys)
    print('%d checks: error against steal excess, slope %.2f points a point, r %.2f'
          % (len(pts), sxy / sxx, sxy / math.sqrt(sxx * syy)))


if __name__ == '__main__':
    main()
