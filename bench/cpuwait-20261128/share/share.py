#!/usr/bin/env python3
# share.py PROFILE.json PERFSCRIPT.txt PROG: each function's CPU share
# (CPUs used: cpu-clock samples at 1 ms over the experiments' wall), in
# the 0% and in the sped-up experiments of a causaltop run, and the
# program's items per second in each.
import json, re, sys, bisect, collections
prof, ps, prog = sys.argv[1:4]
d = json.load(open(prof))
exps = sorted((e['start_ns'], e['start_ns'] + e['wall_ns'], e['speedup_pct'], e['points'][0]['delta']) for e in d['experiments'])
starts = [e[0] for e in exps]
wall = collections.Counter(); items = collections.Counter()
for e in exps: wall[e[2]] += (e[1] - e[0]) / 1e9; items[e[2]] += e[3]
cnt = collections.defaultdict(collections.Counter)
rx = re.compile(r'^\s*(.+?)\s+(\d+)\s+([\d.]+):\s+(?:\d+\s+)?(?:cpu-clock:\S*\s+)?([0-9a-f]+)\s+(\S+)')
for l in open(ps):
    m = rx.match(l)
    if not m: continue
    comm, t, ip, sym = m.group(1), int(float(m.group(3)) * 1e9), int(m.group(4), 16), m.group(5)
    i = bisect.bisect_right(starts, t) - 1
    if i < 0 or t >= exps[i][1]: continue
    if comm == 'swapper': c = 'idle'
    elif comm != prog: c = 'task ' + comm
    elif ip >= 0xffff800000000000: c = 'kernel'
    else: c = re.sub(r'\+0x[0-9a-f]+$', '', sym)
    cnt[exps[i][2]][c] += 1
lv = sorted(wall)
print('%-24s' % 'CPUs used by', ' '.join('%10s' % ('%d%%' % l) for l in lv))
keys = sorted(set(k for l in lv for k in cnt[l]), key=lambda k: -cnt[lv[0]][k])
for k in keys:
    print('%-24s' % k[:24], ' '.join('%10.3f' % (cnt[l][k] / 1000 / wall[l]) for l in lv))
print('%-24s' % 'items/s', ' '.join('%10.0f' % (items[l] / wall[l]) for l in lv))
print('%-24s' % 'wall s', ' '.join('%10.1f' % wall[l] for l in lv))
