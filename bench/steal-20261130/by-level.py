#!/usr/bin/env python3
"""The host's steal time in each experiment of causaltop JSON profiles,
by speedup level: percent of the CPUs' time (2 CPUs), mean and median;
then in how many profiles the experiments (every level above 0%, each
experiment once) lost more than the baselines, and the means pooled.
Usage: by-level.py PROFILE.json[.gz]..."""
import collections
import gzip
import json
import statistics as st
import sys

more = less = 0
pool = collections.defaultdict(list)
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
    if 0 in g and len(g) > 1:
        exps = [x for k, v in g.items() if k for x in v]
        base, exp = st.mean(g[0]), st.mean(exps)
        more += exp > base
        less += exp < base
        pool[0] += g[0]
        pool[1] += exps
if pool:
    print('experiments lost more than their baselines in %d profiles, less in %d; '
          'pooled means: baselines %.2f, experiments %.2f'
          % (more, less, st.mean(pool[0]), st.mean(pool[1])))
