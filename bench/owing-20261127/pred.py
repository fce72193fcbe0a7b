#!/usr/bin/env python3
# pred.py FILE [--pauses] [--tail]: from one fixed.py output, the line's
# tag and causaltop's prediction at its level, 1 - eff(level) / eff(0%)
# (the per-item medians fixed.py prints); --pauses adds the pauses held
# (from the -v summary), --tail the file's last line after its ": ".
import re, sys
path, opts = sys.argv[1], sys.argv[2:]
L = open(path).read().splitlines()
eff = {}
for l in L:
    m = re.match(r'\s+lvl\s+(\d+) n (\d+) us/item wall ([\d.]+) delay ([\d.]+) eff ([\d.]+)', l)
    if m:
        eff[int(m.group(1))] = float(m.group(5))
ks = sorted(eff)
out = '%-40s pred %+.3f' % (L[0].split(':')[0], 1 - eff[ks[-1]] / eff[0] if len(ks) > 1 else float('nan'))
if '--pauses' in opts:
    p = [m.group(1) for m in (re.search(r'pauses (\d+) held', l) for l in L) if m]
    out += '  pauses %s' % (p[0] if p else '?')
if '--tail' in opts:
    out += '   ' + L[-1].split(': ', 1)[-1]
print(out, flush=True)
