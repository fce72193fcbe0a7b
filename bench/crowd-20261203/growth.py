#!/usr/bin/env python3
"""growth.py PROFILE.json...: where a fixed-line 50% run's prediction
comes from: the progress rate of its experiments at 0% (base) and at
50% (raw, over the wall time), G's growth over the wall time of the 50%
experiments (their delay_ns, which the effective duration subtracts),
and the speedup those give (1 - base / (progress / duration))."""
import json
import sys

for path in sys.argv[1:]:
    ex = json.load(open(path))['experiments']
    base = [e for e in ex if e['speedup_pct'] == 0]
    sped = [e for e in ex if e['speedup_pct'] == 50]
    if not base or not sped:
        print('%s: no 0%% or no 50%% experiments' % path)
        continue

    def rate(es, key):
        return sum(e['points'][0]['delta'] for e in es) / sum(e[key] for e in es) * 1e9

    b = rate(base, 'wall_ns')
    g = sum(e['delay_ns'] for e in sped) / sum(e['wall_ns'] for e in sped)
    print('%-28s base %9.1f/s  50%% raw %.3f of base  G/wall %.3f  speedup %+.3f'
          % (path, b, rate(sped, 'wall_ns') / b, g, 1 - b / rate(sped, 'duration_ns')))
