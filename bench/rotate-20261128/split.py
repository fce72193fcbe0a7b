#!/usr/bin/env python3
# The rotated runs' experiments split by causaltop's CPU: in fixed-line mode
# a turn is a baseline and one level, turn k on CPU k mod 2 (rotate.diff),
# so experiment i ran with causaltop on CPU (i // 2) % 2.  Per CPU, the
# prediction 1 - eff(level) / eff(0), eff = sum(wall - delay) / sum(items).
#   python3 split.py runs/*rotate*.json.gz
import gzip, json, sys
for f in sys.argv[1:]:
    e = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['experiments']
    assert all(x['speedup_pct'] == (0 if i % 2 == 0 else e[1]['speedup_pct']) for i, x in enumerate(e))
    out = []
    for cpu in (0, 1):
        r = []
        for lv in (0, 1):
            xs = [x for i, x in enumerate(e) if (i // 2) % 2 == cpu and i % 2 == lv]
            r.append(sum(x['wall_ns'] - x['delay_ns'] for x in xs) / sum(x['points'][0]['delta'] for x in xs))
        out.append(1 - r[1] / r[0])
    print('%-42s %3d experiments  causaltop on CPU 0: %+.3f  on CPU 1: %+.3f' % (f.split('/')[-1], len(e), *out))
