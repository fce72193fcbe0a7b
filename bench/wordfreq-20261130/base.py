#!/usr/bin/env python3
# wl-wordfreq hash 100% in every recorded ground-truth run
# (bench/validate-data/gt-*.jsonl): per run, the median base and knob
# time an item of its real pairs, their ratio, the prediction, the real
# speedup and the error, the sample cost and the steal during the
# prediction; then the correlations of the error, the prediction and the
# truth with the ratio (how much longer an item takes with the hash than
# without), and of the error with steal.
# Usage: base.py [DATA_DIR]   (default bench/validate-data)
import glob, json, os, statistics as st, sys

def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    c = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    return c / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** .5

d = sys.argv[1] if len(sys.argv) > 1 else 'bench/validate-data'
rows = []
for f in sorted(glob.glob(os.path.join(d, 'gt-*.jsonl'))):
    for l in open(f):
        r = json.loads(l)
        if r['kind'] != 'gt' or r['prog'] != 'wl-wordfreq' or r['line'] != 'hash' or r['pct'] != 100:
            continue
        b = st.median(p[0] for p in r['pairs'])
        k = st.median(p[1] for p in r['pairs'])
        rows.append(dict(run=r['run'], base=b, knob=k, ratio=b / k, est=r['est'], real=r['real'],
                         err=r['est'] - r['real'], sample=r.get('sample_us'), steal=r.get('steal_pred_pct')))
print('run              base_us knob_us ratio   est     real    error  sample_us steal%')
for r in rows:
    print('%-16s %7.1f %7.1f %5.2f %+6.1f %+6.1f %+6.1f %6.1f %6s' % (
        r['run'], r['base'], r['knob'], r['ratio'], 100 * r['est'], 100 * r['real'], 100 * r['err'],
        r['sample'] or 0, '-' if r['steal'] is None else '%.1f' % r['steal']))
x = [r['ratio'] for r in rows]
print('%d runs: r(error, ratio) %.2f; r(prediction, ratio) %.2f; r(real, ratio) %.2f' % (
    len(rows), corr([r['err'] for r in rows], x), corr([r['est'] for r in rows], x), corr([r['real'] for r in rows], x)))
s = [r for r in rows if r['steal'] is not None]
print('%d runs with steal read: r(error, steal) %.2f; r(error, ratio) %.2f' % (
    len(s), corr([r['err'] for r in s], [r['steal'] for r in s]), corr([r['err'] for r in s], [r['ratio'] for r in s])))
for lo, hi in ((0, 4.3), (4.3, 4.5), (4.5, 9)):
    g = [r['err'] for r in rows if lo <= r['ratio'] < hi]
    if g:
        print('ratio %.1f to %.1f: %2d runs, mean error %+.1f, range %+.1f to %+.1f' % (
            lo, hi, len(g), 100 * st.mean(g), 100 * min(g), 100 * max(g)))
