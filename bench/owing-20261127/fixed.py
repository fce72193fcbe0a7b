#!/usr/bin/env python3
# One causaltop run of a corpus program (built by bench/validate in $WORK,
# default /tmp/v/work; loops per us $RATE, default 923) for SECS at a
# fixed line and speedup, then the program killed (causaltop detaches at
# --duration and would wait for it).  Prints causaltop's and the
# program's CPU use and each CPU's idle share over the profiled time, per
# level the medians over experiments of the wall time, delay inserted,
# effective time (wall - delay) and samples of the line, per item, and
# causaltop's -v summary lines.  Binary: $CT (default /work/main/causaltop);
# files: $OUT (default /tmp/cr); more arguments for the program: $PARGS.
# Usage: fixed.py PROG FILE:LINE PCT SECS TAG [causaltop options]
import os, subprocess, sys, time, json, statistics as st
OUT = os.environ.get('OUT', '/tmp/cr')
os.makedirs(OUT, exist_ok=True)
prog, line, pct, secs, tag = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
extra = sys.argv[6:]
HZ = os.sysconf('SC_CLK_TCK')
def cpustat():
    r = {}
    for l in open('/proc/stat'):
        if l.startswith('cpu') and l[3].isdigit():
            f = l.split(); r[f[0]] = int(f[4]) + int(f[5])
    return r
def ptime(pid):
    try:
        f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
        return (int(f[11]) + int(f[12])) / HZ
    except OSError:
        return None
j = os.path.join(OUT, '%s.json' % tag)
cmd = [os.environ.get('CT', '/work/main/causaltop'), '--no-tui', '-v', '--period=1', '--duration=%g' % secs,
       '--fixed-line=%s' % line, '--fixed-speedup=%s' % pct, '--json=' + j, *extra,
       '--', os.path.join(os.environ.get('WORK', '/tmp/v/work'), prog), '-c', os.environ.get('RATE', '923'), '-n', '1000000000', *os.environ.get('PARGS', '').split()]
c0 = cpustat(); t0 = time.time()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(OUT, '%s.err' % tag), 'w'))
tgt = None; ct = tt = 0
wall, c1, ctw, ttw = 1e-9, c0, 0, 0
while p.poll() is None:
    time.sleep(0.25)
    if tgt is None:
        try:
            ch = open('/proc/%d/task/%d/children' % (p.pid, p.pid)).read().split()
            tgt = int(ch[0]) if ch else None
        except OSError: pass
    a = ptime(p.pid); b = ptime(tgt) if tgt else None
    if a is not None: ct = a
    if b is not None: tt = b
    if time.time() - t0 < secs - 0.3:
        wall = time.time() - t0; c1 = cpustat(); ctw, ttw = ct, tt
    elif tgt and time.time() - t0 > secs + 0.5:
        try: os.kill(tgt, 15)
        except OSError: pass
ct, tt = ctw, ttw
idle = {k: (c1[k] - c0[k]) / HZ / wall for k in c0}
print('%s: wall %.1f s  causaltop cpu %.2f/s  target cpu %.2f/s  idle %s' % (
    tag, wall, ct / wall, tt / wall, ' '.join('%s %.2f' % kv for kv in sorted(idle.items()))))
d = json.load(open(j)); e = d['experiments']
for lvl in sorted(set(x['speedup_pct'] for x in e)):
    xs = [x for x in e if x['speedup_pct'] == lvl]
    f = lambda k: st.median([x[k] / x['points'][0]['delta'] / 1e3 for x in xs])
    ss = st.median([x['selected_samples'] / x['points'][0]['delta'] for x in xs])
    print('  lvl %3d n %2d us/item wall %.1f delay %.1f eff %.1f sel/item %.3f' % (lvl, len(xs), f('wall_ns'), f('delay_ns'), f('duration_ns'), ss))
for l in open(os.path.join(OUT, '%s.err' % tag)):
    if l.startswith('Experiments:') or l.startswith('Supervisor') or l.startswith('   1 '):
        print('  ' + l.strip())
