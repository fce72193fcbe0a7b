#!/usr/bin/env python3
# The real speedup curve of one marked line of a corpus program: native
# runs at each knob level, interleaved (a shuffled order per round), each
# under perf stat for its context switches and task clock.  Prints one
# JSON line per run and, per level, the median per-item time, the real
# speedup against level 0 and the median context switches per item.
# Binaries: $WORK (default /tmp/v/work), built by bench/validate; loops
# per us: $RATE (bench/validate's calibration, in its meta record).
# Usage: curve.py PROG LINE ROUNDS LEVEL... [-- PROGRAM ARGS]
import json, os, random, re, statistics as st, subprocess, sys

argv = sys.argv[1:]
pargs = []
if '--' in argv:
    i = argv.index('--')
    argv, pargs = argv[:i], argv[i + 1:]
prog, line, rounds, levels = argv[0], argv[1], int(argv[2]), [int(x) for x in argv[3:]]
work, rate = os.environ.get('WORK', '/tmp/v/work'), os.environ.get('RATE', '923')
runs = {k: [] for k in levels}
rnd = random.Random(20261130)
for r in range(rounds):
    order = levels[:]
    rnd.shuffle(order)
    for k in order:
        cmd = ['perf', 'stat', '-x,', '-e', 'context-switches,task-clock',
               os.path.join(work, prog), '-c', rate, *pargs] + (['-k', '%s=%d' % (line, k)] if k else [])
        err = subprocess.run(cmd, capture_output=True, text=True).stderr
        m = re.search(r'gt: items (\d+) wall ([\d.]+) per_item_us ([\d.]+)', err)
        cs = re.search(r'^([\d.]+),,context-switches', err, re.M)
        tc = re.search(r'^([\d.]+),msec,task-clock', err, re.M)
        rec = dict(prog=prog, line=line, pct=k, round=r, items=int(m.group(1)),
                   per_item_us=float(m.group(3)), cs=int(float(cs.group(1))),
                   task_ms=float(tc.group(1)), pargs=' '.join(pargs))
        runs[k].append(rec)
        print(json.dumps(rec), flush=True)
base = st.median(x['per_item_us'] for x in runs[levels[0]])
for k in levels:
    xs = runs[k]
    pi = st.median(x['per_item_us'] for x in xs)
    print('# %s %s %3d%%: per item %8.2f us  real %+5.1f%%  switches/item %.2f  cpu/item %.1f us' % (
        prog, line, k, pi, 100 * (1 - pi / base),
        st.median(x['cs'] / x['items'] for x in xs),
        st.median(x['task_ms'] * 1e3 / x['items'] for x in xs)), flush=True)
