#!/usr/bin/env python3
"""Where G's growth goes, from causaltop -vv's "exp: hit" lines.

    python3 hits.py RUN.err...

Each line is a hit as the engine applied it: the thread's local and G
after the hit (calc/delay.c, raise_by).  A hit by a thread behind G by
more than a hit raises nothing.  Prints, per file: the hits, the share
left behind G after the hit (and by how much), and how much G rose over
the hits' delay (two CPUs running the line side by side: 50% at best),
for a thread's first hit in a turn on a CPU (none from it in the 4 ms
before) and for its later ones.
"""
import collections, gzip, re, sys

HIT = re.compile(r'exp: hit (\d+) at (\d+): local (\d+) us \(G (\d+)\)')
TURN_US = 4000


def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


for f in sys.argv[1:]:
    last, g0 = {}, None
    gaps = {'first': [], 'later': []}
    rise = collections.Counter()
    incs = collections.Counter()
    prev_local = {}
    opener = gzip.open if f.endswith('.gz') else open
    for line in opener(f, 'rt', errors='replace'):
        m = HIT.search(line)
        if not m:
            continue
        tid, t, loc, g = map(int, m.groups())
        r = g - g0 if g0 is not None and g >= g0 else 0
        g0 = g
        kind = 'later' if tid in last and t - last[tid] < TURN_US else 'first'
        last[tid] = t
        gaps[kind].append(g - loc)
        rise[kind] += r
        if tid in prev_local and loc > prev_local[tid]:
            incs[loc - prev_local[tid]] += 1
        prev_local[tid] = loc
    n = sum(len(v) for v in gaps.values())
    d = incs.most_common(1)[0][0] if incs else 0
    print('%s: %d hits of about %d us; G rose %.0f%% of their delay' %
          (f, n, d, 100 * sum(rise.values()) / max(1, n * d)))
    for kind in ('first', 'later'):
        v = sorted(gaps[kind])
        if not v:
            continue
        print('  %-5s hits of a turn: %5d, %3.0f%% behind G after it (median %d us, '
              'p75 %d us); G rose %.0f%% of their delay' %
              (kind, len(v), 100 * sum(1 for x in v if x > 0) / len(v), pct(v, 0.5),
               pct(v, 0.75), 100 * rise[kind] / max(1, len(v) * d)))
