#!/usr/bin/env python3
# ov2.py TAG...: per experiment level, the share of the monitor's walk time
# and fold time that the workers spent running, ready (preempted), blocked
# (asleep: the queue's lock or condition) and stopped (ptrace: a pause),
# from sched_switch (run.sh) and the walk log; experiments from the JSON.
import sys, struct, re, bisect, json
pat = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d+):\s+prev_comm=.*? prev_pid=(\d+) .*?prev_state=(\S+) ==> next_comm=.*? next_pid=(\d+)')
def state_of(st):
    if 't' in st: return 'stopped'
    if st.startswith('R'): return 'ready'
    return 'blocked'
def overlap(ivs, starts, a, b):
    i = max(0, bisect.bisect_right(starts, a) - 1); s = 0
    while i < len(ivs) and ivs[i][0] < b:
        lo, hi = max(a, ivs[i][0]), min(b, ivs[i][1])
        if hi > lo: s += hi - lo
        i += 1
    return s
for tag in sys.argv[1:]:
    raw = open('/tmp/ov/%s.walks' % tag, 'rb').read()
    tids = struct.unpack_from('8q', raw, 0); n = struct.unpack_from('Q', raw, 64)[0]
    rec = [struct.unpack_from('3Q', raw, 72 + 24 * i) for i in range(n)]
    workers = tids[1:4]
    ivs = {w: {'running': [], 'ready': [], 'blocked': [], 'stopped': []} for w in workers}
    last = {}   # tid -> (state, since)
    for l in open('/tmp/ov/%s.sched' % tag):
        m = pat.match(l)
        if not m: continue
        t = int(m.group(2)) * 10**9 + int(m.group(3))
        pp, st, np_ = int(m.group(4)), m.group(5), int(m.group(6))
        if pp in ivs:
            if pp in last and last[pp][0] == 'running': ivs[pp]['running'].append((last[pp][1], t))
            last[pp] = (state_of(st), t)
        if np_ in ivs:
            if np_ in last and last[np_][0] != 'running': ivs[np_][last[np_][0]].append((last[np_][1], t))
            last[np_] = ('running', t)
    exps = json.load(open('/tmp/ov/%s.json' % tag))['experiments']
    print('%s: workers\' state in the monitor\'s walks and folds, %% of that time (mean of the 3 workers)' % tag)
    for lvl in sorted(set(x['speedup_pct'] for x in exps)):
        win = sorted((x['start_ns'], x['start_ns'] + x['wall_ns']) for x in exps if x['speedup_pct'] == lvl)
        wst = [w[0] for w in win]
        def inside(a, b):
            i = bisect.bisect_right(wst, a) - 1
            return i >= 0 and b <= win[i][1]
        walks = [(a, r) for (q, a, r) in rec if inside(a, r)]
        folds = [(rec[i][2], rec[i + 1][0]) for i in range(len(rec) - 1) if inside(rec[i][2], rec[i + 1][0])]
        for name, part in (('walk', walks), ('fold', folds)):
            T = sum(b - a for a, b in part)
            if not T: continue
            shares = {}
            for s in ('running', 'ready', 'blocked', 'stopped'):
                tot = 0
                for w in workers:
                    iv = sorted(ivs[w][s]); st_ = [x[0] for x in iv]
                    tot += sum(overlap(iv, st_, a, b) for a, b in part)
                shares[s] = 100 * tot / T / len(workers)
            print('  lvl %3d %s %6.1f ms in %4d: running %5.1f  ready %5.1f  blocked %5.1f  stopped %5.1f' % (
                lvl, name, T / 1e6, len(part), shares['running'], shares['ready'], shares['blocked'], shares['stopped']))
