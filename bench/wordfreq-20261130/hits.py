#!/usr/bin/env python3
# From a causaltop -vv log: how much each hit raised G (the delay every
# other thread owes), experiment by experiment.  A hit raises its
# thread's own count by its delay and G only as far as that count
# passes it: a thread that hits while behind G (owing) absorbs the hit.
# Prints the hits, the share that raised G by most of a hit, by part of
# one or by nothing, the mean rise, and a histogram by 100 us.
# Usage: hits.py LOG
import re, sys
text = open(sys.argv[1]).read()
prev = None
rises = []
for l in text.splitlines():
    m = re.search(r'exp: hit \d+ at \d+: local \d+ us \(G (\d+)\)', l)
    if m:
        g = int(m.group(1))
        if prev is not None and g >= prev:
            rises.append(g - prev)
        prev = g
    elif 'exp: end' in l:
        prev = None
cal = [int(m.group(1)) for m in re.finditer(r'calibrate \d+: \d+ samples for \d+ ms of user time: (\d+)', text)]
n = len(rises)
print('%d hits after the first of their experiment: %d raised G by 900 us or more, %d by 50 to 900, %d by less'
      % (n, sum(r >= 900 for r in rises), sum(50 <= r < 900 for r in rises), sum(r < 50 for r in rises)))
print('mean rise %.0f us a hit' % (sum(rises) / max(n, 1)))
if cal:
    print('utime calibration (per mille): %d to %d over %d readings' % (min(cal), max(cal), len(cal)))
h = {}
for r in rises:
    b = min(r // 100, 15)
    h[b] = h.get(b, 0) + 1
print('rise (100 us bins, 15 = 1.5 ms or more):', ' '.join('%d:%d' % kv for kv in sorted(h.items())))
