#!/usr/bin/env python3
# The probe: rounds of, per check (PROG LINE PCT ITEMS), one prediction
# by each causaltop binary given (their order reversed every other
# round), then PAIRS real pairs (tests/gt-real.sh), each with the host's
# steal over it (/proc/stat).  One JSON line per run on stdout; the
# profiles and stderr in $OUT.  Programs, loop rates (-C, once per check
# and round) and ct-json.py: tests/ of $TOP (default /work/main).
# Usage: probe.py ROUNDS PAIRS CT[,CT...] 'PROG LINE PCT ITEMS' ...
import json, os, re, statistics as st, subprocess, sys
TOP = os.environ.get('TOP', '/work/main')
OUT = os.environ.get('OUT', '/tmp/ss')
os.makedirs(OUT, exist_ok=True)
rounds, pairs, cts = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(',')
checks = [a.split() for a in sys.argv[4:]]

def cpu():
    f = open('/proc/stat').readline().split()
    v = [int(x) for x in f[1:9]]
    return v[7], sum(v)

def steal_pct(a, b):
    return round(100 * (b[0] - a[0]) / max(1, b[1] - a[1]), 2)

def gt_line(prog, name):
    for d in ('tests', 'bench'):
        p = os.path.join(TOP, d, prog + '.c')
        if os.path.exists(p):
            for i, l in enumerate(open(p), 1):
                if re.search(r'GT:%s\b' % name, l):
                    return i
    raise SystemExit('no GT:%s in %s' % (name, prog))

def scale(path):
    d = json.load(open(path))
    r = [e['delay_ns'] / e['selected_samples'] / (e['speedup_pct'] / 100) / 1e6
         for e in d['experiments'] if e['speedup_pct'] > 0 and e['selected_samples']]
    return round(st.median(r), 3) if r else None

for rnd in range(rounds):
    for prog, name, pct, items in checks:
        exe = os.path.join(TOP, 'tests', prog)
        c = re.search(r'loops_per_us ([\d.]+)', subprocess.run([exe, '-C'], capture_output=True, text=True).stderr).group(1)
        loc = '%s.c:%d' % (prog, gt_line(prog, name))
        for ct in (cts if rnd % 2 == 0 else cts[::-1]):
            tag = '%s-%s-%s-%s-r%d' % (os.path.basename(ct), prog, name, pct, rnd)
            js = os.path.join(OUT, tag + '.json')
            a = cpu()
            subprocess.run([ct, '--no-tui', '--fixed-line', loc, '--fixed-speedup', pct, '--json', js, '-v',
                            '--', exe, '-c', c, '-n', items], stdout=subprocess.DEVNULL,
                           stderr=open(os.path.join(OUT, tag + '.err'), 'w'), check=True)
            b = cpu()
            est = subprocess.run(['python3', os.path.join(TOP, 'tests', 'ct-json.py'), 'level', js, loc, pct],
                                 capture_output=True, text=True).stdout.split()
            print(json.dumps(dict(round=rnd, ct=os.path.basename(ct), prog=prog, line=name, pct=int(pct),
                                  est=float(est[0]), lo=float(est[1]), hi=float(est[2]), n_exp=int(est[3]),
                                  delay_per_sample_ms=scale(js), steal_pct=steal_pct(a, b))), flush=True)
        raw = os.path.join(OUT, 'pairs')
        if os.path.exists(raw):
            os.unlink(raw)
        a = cpu()
        r = subprocess.run(['sh', os.path.join(TOP, 'tests', 'gt-real.sh'), '-r', str(pairs), '-R', raw, exe, name, pct,
                            '-c', c, '-n', items], capture_output=True, text=True, check=True).stdout.split()
        b = cpu()
        print(json.dumps(dict(round=rnd, real=float(r[4]), prog=prog, line=name, pct=int(pct),
                              pairs=[[float(x) for x in l.split()] for l in open(raw)], steal_pct=steal_pct(a, b))), flush=True)
