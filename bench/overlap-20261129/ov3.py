#!/usr/bin/env python3
# ov3.py TAG...: per experiment level, the monitor's walks (how many a
# second of wall time, their mean length: the walk's cost is per queued
# job, so a short walk is an empty queue), its waits for the lock and
# its folds.
import sys, statistics as st
import ovlib
for tag in sys.argv[1:]:
    rec = ovlib.walks(tag)[1]
    print(tag)
    for lvl, wall, inside in ovlib.levels(tag):
        ws = [(q, a, r) for (q, a, r) in rec if inside(q, r)]
        walk = [r - a for q, a, r in ws]; wait = [a - q for q, a, r in ws]
        print('  lvl %3d: %6.0f walks/s, walk mean %6.0f us (median %6.0f), lock wait mean %5.0f us, walk time %4.1f%% of wall' % (
            lvl, len(ws) / wall * 1e9, st.mean(walk) / 1e3, st.median(walk) / 1e3, st.mean(wait) / 1e3, 100 * sum(walk) / wall))
