#!/usr/bin/env python3
# show.py TAG...: per run, fixed.py's per-level medians (from its JSON), the
# -v summary's lines, and ov.py's overlap table.
import sys, json, subprocess, statistics as st
for tag in sys.argv[1:]:
    e = json.load(open('/tmp/ov/%s.json' % tag))['experiments']
    print('%s:' % tag)
    for lvl in sorted(set(x['speedup_pct'] for x in e)):
        xs = [x for x in e if x['speedup_pct'] == lvl]
        f = lambda k: st.median([x[k] / x['points'][0]['delta'] / 1e3 for x in xs])
        print('  lvl %3d n %2d us/item wall %.1f delay %.1f eff %.1f' % (lvl, len(xs), f('wall_ns'), f('delay_ns'), f('duration_ns')))
    for l in open('/tmp/ov/%s.err' % tag):
        if l.startswith('Experiments:') or l.startswith('   1 '):
            print('  ' + l.strip())
    sys.stdout.flush()
    subprocess.run(['python3', '/tmp/ov/ov.py', tag])
