#!/usr/bin/env python3
"""The host's steal time in each experiment of causaltop JSON profiles,
by speedup level: percent of the CPUs' time (2 CPUs), mean and median.
Usage: by-level.py PROFILE.json[.gz]..."""
import collections
import gzip
import json
import statistics as st
import sys

for f in sys.argv[1:]:
    with (gzip.open if f.endswith('.gz') else open)(f, 'rt') as fh:
        d = json.load(fh)
    g = collections.defaultdict(list)
    for e in d['experiments']:
        if e.get('steal_ns') is None or not e['wall_ns']:
            continue
        g[e['speedup_pct']].append(100 * e['steal_ns'] / e['wall_ns'] / 2)
    print(f.split('/')[-1], '  '.join('%d%%: %d exps, mean %.2f median %.2f'
                                     % (k, len(v), st.mean(v), st.median(v))
                                     for k, v in sorted(g.items())))
