#!/usr/bin/env python3
# attrib.py BINARY PROFILE.json PERFSCRIPT.txt: CPU samples (perf record
# -k CLOCK_MONOTONIC -e cpu-clock) of the target per item, by class, in the
# 0% and the 50% experiments of a causaltop run (their windows from --json).
import json, re, subprocess, sys, bisect, collections
binary, prof, ps = sys.argv[1:4]
# function offset -> source line, from objdump -l
lines = {}   # (func, off) -> line
cur_func = None; cur_line = None; base = None
for l in subprocess.run(['objdump', '-d', '-l', '--no-show-raw-insn', binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'^([0-9a-f]+) <([^>]+)>:', l)
    if m:
        cur_func = m.group(2); base = int(m.group(1), 16); cur_line = None; continue
    m = re.match(r'^/.*:(\d+)( \(discriminator \d+\))?$', l)
    if m:
        cur_line = int(m.group(1)); continue
    m = re.match(r'^\s+([0-9a-f]+):', l)
    if m and cur_func is not None:
        lines[(cur_func, int(m.group(1), 16) - base)] = cur_line
d = json.load(open(prof))
exps = sorted((e['start_ns'], e['start_ns'] + e['wall_ns'], e['speedup_pct'], e['points'][0]['delta']) for e in d['experiments'])
starts = [e[0] for e in exps]
cnt = collections.defaultdict(collections.Counter); items = collections.Counter()
for e in exps: items[e[2]] += e[3]
rx = re.compile(r'^\s*(.+?)\s+(\d+)\s+([\d.]+):\s+(?:\d+\s+)?(?:cpu-clock:\S*\s+)?([0-9a-f]+)\s+(\S+)')
prog = sys.argv[4] if len(sys.argv) > 4 else 'barrier'
for l in open(ps):
    m = rx.match(l)
    if not m: continue
    comm, t, ip, sym = m.group(1), int(float(m.group(3)) * 1e9), int(m.group(4), 16), m.group(5)
    i = bisect.bisect_right(starts, t) - 1
    if i < 0 or t >= exps[i][1]: continue
    lvl = exps[i][2]
    if comm != prog:
        c = 'task ' + comm
    elif ip >= 0xffff800000000000:
        c = 'kernel ' + re.sub(r'\+0x[0-9a-f]+$', '', sym)
    else:
        mm = re.match(r'(.+)\+0x([0-9a-f]+)$', sym)
        if mm and (mm.group(1), int(mm.group(2), 16)) in lines:
            c = 'line %s' % lines[(mm.group(1), int(mm.group(2), 16))]
        else:
            c = 'user ' + (mm.group(1) if mm else sym)
    cnt[lvl][c] += 1
for lvl in sorted(cnt):
    tot = sum(cnt[lvl].values())
    print('level %d: %d items, %.3f samples/item' % (lvl, items[lvl], tot / items[lvl]))
    for c, n in cnt[lvl].most_common(14):
        print('   %-24s %.3f/item' % (c, n / items[lvl]))
