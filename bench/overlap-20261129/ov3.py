#!/usr/bin/env python3
# ov3.py TAG...: per experiment level, the monitor's walks (how many a
# second of wall time, their mean length: the walk's cost is per queued
# job, so a short walk is an empty queue), its waits for the lock and
# its folds.
import sys, struct, bisect, json, statistics as st
for tag in sys.argv[1:]:
    raw = open('/tmp/ov/%s.walks' % tag, 'rb').read()
    n = struct.unpack_from('Q', raw, 64)[0]
    rec = [struct.unpack_from('3Q', raw, 72 + 24 * i) for i in range(n)]
    exps = json.load(open('/tmp/ov/%s.json' % tag))['experiments']
    print(tag)
    for lvl in sorted(set(x['speedup_pct'] for x in exps)):
        win = sorted((x['start_ns'], x['start_ns'] + x['wall_ns']) for x in exps if x['speedup_pct'] == lvl)
        wst = [w[0] for w in win]
        wall = sum(b - a for a, b in win)
        def inside(a, b):
            i = bisect.bisect_right(wst, a) - 1
            return i >= 0 and b <= win[i][1]
        ws = [(q, a, r) for (q, a, r) in rec if inside(q, r)]
        walk = [r - a for q, a, r in ws]; wait = [a - q for q, a, r in ws]
        print('  lvl %3d: %6.0f walks/s, walk mean %6.0f us (median %6.0f), lock wait mean %5.0f us, walk time %4.1f%% of wall' % (
            lvl, len(ws) / wall * 1e9, st.mean(walk) / 1e3, st.median(walk) / 1e3, st.mean(wait) / 1e3, 100 * sum(walk) / wall))
