#!/usr/bin/env python3
"""Each corpus cell's causaltop error, split by how dear a timer sample
was on the host when it was predicted.

    python3 bench/dearness-20261129/split.py [bench/validate-data/*.jsonl]

Runs of bench/validate before 2026-11-29 did not record the sample's
cost; the nearest run of make gt-record (within 3 h, its checks' median
sample_us) stands in for it.  A run whose own records carry sample_us
(bench/validate from 050882e on) uses its own.  Dear: 20 us or more (as
tests/gt-lib.sh decides).  Truth: each cell's pooled real speedup, as
bench/validate --report computes it.  Diagnosis only: nothing is tuned
on it."""
import glob
import importlib.machinery
import importlib.util
import os
import statistics as st
import sys

# bench/validate's loader and pooled truths, loaded as a module.
_top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader('validate', os.path.join(_top, 'bench', 'validate'))
_spec = importlib.util.spec_from_loader('validate', _loader)
bv = importlib.util.module_from_spec(_spec)
_loader.exec_module(bv)

paths = sys.argv[1:] or sorted(glob.glob(os.path.join(_top, 'bench', 'validate-data', '*.jsonl')))
recs = bv.load(paths)
metas = {r['run']: r for r in recs if r['kind'] == 'meta'}
gt = {}
for r in recs:
    if r['kind'] == 'gt' and r.get('sample_us'):
        gt.setdefault(r['run'], []).append(r['sample_us'])
gt_runs = sorted((metas[k]['t'], k, st.median(v)) for k, v in gt.items() if k in metas)
cells = bv.summarize(recs)
truth = {k[1:]: c['real'] for k, c in cells.items()}
sets = {k[1]: k[0] for k in cells}
errs, proxy, own = {}, {}, set()
for r in (p for c in cells.values() for p in c['preds'].get('causaltop', [])):
    if r['est'] is None:
        continue
    k = (r['prog'], r['line'], r['pct'])
    cost = r.get('sample_us')
    if cost is not None:
        own.add(r['run'])
    else:
        t = r.get('t') or metas[r['run']]['t']
        near = min(gt_runs, key=lambda g: abs(g[0] - t), default=None)
        if near is None or abs(near[0] - t) > 3 * 3600:
            continue
        cost = near[2]
        proxy.setdefault((r['run'], near[1], near[2]), []).append((near[0] - t) / 3600)
    side = 'dear' if cost >= 20 else 'cheap'
    errs.setdefault(k, {}).setdefault(side, []).append(100 * (r['est'] - truth[k]))
for (run, g, c), dt in sorted(proxy.items()):
    print('# run %s: sample %.1f us, from gt run %s (%+.1f to %+.1f h away)'
          % (run, c, g, min(dt), max(dt)))
for run in sorted(own):
    print('# run %s: its own sample_us' % run)
print('%-8s %-10s %7s  %-26s %-26s' % ('program', 'line', 'real', 'cheap: n, mean error',
                                        'dear: n, mean error'))
for k in sorted(errs):
    cols = []
    for side in ('cheap', 'dear'):
        v = errs[k].get(side, [])
        cols.append('%d, %+.1f [%+.1f..%+.1f]' % (len(v), st.mean(v), min(v), max(v)) if v else '-')
    print('%-8s %-10s %+7.1f  %-26s %-26s' % (k[0], k[1], 100 * truth[k], *cols))
# Per set and side: the mean absolute error over predictions and the
# largest, as bench/validate's tables count them.
for s in ('tuning', 'validation'):
    for side in ('cheap', 'dear'):
        v = [e for k, d in errs.items() if sets.get(k[0]) == s for e in d.get(side, [])]
        if v:
            print('%s, %s: MAE %.1f, largest %.1f (%d predictions)'
                  % (s, side, st.mean(abs(e) for e in v), max(abs(e) for e in v), len(v)))
