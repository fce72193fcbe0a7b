#!/usr/bin/env python3
"""Would a model-error term in causaltop's intervals buy coverage?

Each prediction's 95% interval is widened to 1.96 * sqrt(se^2 + m^2),
se its own standard error ((hi - lo) / 3.92), m a constant; coverage is
the share of widened intervals holding the truth.  m is chosen on the
tuning set (the ground-truth checks' records, gt-*.jsonl, and the tuning
programs of the corpus) and read on the validation set.  Truths as in
bench/validate --report: 1 - median(knob) / median(base) over a cell's
pairs, pooled.

Usage: calib.py bench/validate-data/*.jsonl
"""
import json
import math
import statistics as st
import sys

TUNING = {'barrier', 'kvstore', 'oversub'}
gt, real, pred = [], {}, []
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if r['kind'] == 'gt' and r.get('est') is not None:
            gt.append((r['est'], r['lo'], r['hi'], r['real'], bool(r.get('limit') or r.get('xfail'))))
        elif r['kind'] == 'real':
            real.setdefault((r['prog'], r['line'], r['pct']), []).append(r)
        elif r['kind'] == 'pred' and r['tool'] == 'causaltop' and r.get('est') is not None:
            pred.append(r)


def truth(r):
    rr = real[(r['prog'], r['line'], r['pct'])]
    return 1 - st.median(x['knob_us'] for x in rr) / st.median(x['base_us'] for x in rr)


tun_c = [(r['est'], r['lo'], r['hi'], truth(r), False) for r in pred if r['prog'] in TUNING]
val = [(r['est'], r['lo'], r['hi'], truth(r), False) for r in pred if r['prog'] not in TUNING]
sets = [('ground truths, no known limit', [g for g in gt if not g[4]]),
        ('all tuning', gt + tun_c), ('validation', val)]


def coverage(data, m):
    half = [1.96 * math.hypot((hi - lo) / 3.92, m) for _, lo, hi, _, _ in data]
    ok = sum(abs(e - t) <= h for (e, _, _, t, _), h in zip(data, half))
    return ok / len(data), st.median(half)


print('m (points) | ' + ' | '.join('%s (n=%d): coverage, median half-width' % (n, len(d)) for n, d in sets))
for m in (0, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05):
    print('%4.1f | ' % (100 * m) + ' | '.join('%3.0f%%, %.1f' % (100 * c, 100 * h)
                                          for c, h in (coverage(d, m) for _, d in sets)))

# Are the intervals too narrow for the run-to-run spread?  Per validation
# line with 3 predictions or more: their standard deviation over their
# mean standard error (about 1 if the intervals hold the spread).
print('\nline | predictions | sd / mean se | mean error (points)')
by = {}
for r in pred:
    if r['prog'] not in TUNING:
        by.setdefault((r['prog'], r['line'], r['pct']), []).append(r)
for k, rs in sorted(by.items()):
    if len(rs) < 3:
        continue
    sd = st.stdev(r['est'] for r in rs)
    se = st.mean((r['hi'] - r['lo']) / 3.92 for r in rs)
    err = st.mean(r['est'] - truth(r) for r in rs)
    print('%s %s %d%% | %d | %.2f | %+.1f' % (*k, len(rs), sd / se, 100 * err))
