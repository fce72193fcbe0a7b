#!/usr/bin/env python3
# gen.py DIR TAG COMM ROLES GROUP: a program's threads (comm COMM, sorted by
# tid, named by ROLES, e.g. main,jan,c0,c1,c2) from DIR/TAG.sched (perf
# script of sched_switch); per level of DIR/TAG.json (or the whole run),
# per second of effective time (wall - delay): each thread's time
# running, ready, blocked, stopped; then, for the threads of GROUP (a
# role prefix, e.g. c), the mean of what the others ran during their
# time out of a pause.  The state spans and their overlaps are
# bench/overlap-20261129/ovlib.py's.
import sys, os, re, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'overlap-20261129'))
import ovlib
D, tag, comm, roles, group = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(','), sys.argv[5]
SW = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d+):\s+prev_comm=(.*?) prev_pid=(\d+) .*?prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)')
ev = []; tids = set()
for l in open('%s/%s.sched' % (D, tag)):
    m = SW.match(l)
    if not m: continue
    t = int(m.group(2)) * 10**9 + int(m.group(3))
    pc, pp, st, nc, np_ = m.group(4), int(m.group(5)), m.group(6), m.group(7), int(m.group(8))
    if pc == comm: tids.add(pp)
    if nc == comm: tids.add(np_)
    ev.append((t, pp, st, np_))
tids = sorted(tids)
if len(tids) != len(roles):
    sys.exit('%d threads named %s: %s' % (len(tids), comm, tids))
name = dict(zip(tids, roles))
S = ovlib.STATES
LABEL = {'running': 'run', 'ready': 'ready', 'blocked': 'blk', 'stopped': 'stop'}
iv = ovlib.states(ev, tids)
starts = {t: {s: [x[0] for x in iv[t][s]] for s in S} for t in tids}
def cover(t, s, a, b):
    return ovlib.overlap(iv[t][s], starts[t][s], a, b)
jf = '%s/%s.json' % (D, tag)
if os.path.exists(jf):
    exps = json.load(open(jf))['experiments']
    levels = []
    for l in sorted(set(x['speedup_pct'] for x in exps)):
        xs = [x for x in exps if x['speedup_pct'] == l]
        levels.append(('lvl %d' % l, sorted((x['start_ns'], x['start_ns'] + x['wall_ns']) for x in xs),
                       sum(x['wall_ns'] - x['delay_ns'] for x in xs), sum(x['points'][0]['delta'] for x in xs)))
else:
    a = min(x[0] for t in tids for s in S for x in iv[t][s]); b = max(x[1] for t in tids for s in S for x in iv[t][s])
    levels = [('native', [(a, b)], b - a, None)]
print(tag)
for lv, win, eff, pts in levels:
    print('  %s: eff %.2f s%s' % (lv, eff / 1e9, ', %.0f items/eff-s' % (pts / eff * 1e9) if pts else ''))
    for t in tids:
        if name[t] == 'main': continue
        print('    %-4s ' % name[t] + '  '.join('%s %.3f' % (LABEL[s], sum(cover(t, s, a, b) for a, b in win) / eff) for s in S))
    g = [t for t in tids if name[t].startswith(group)]
    met = {}
    for t in g:
        free = ovlib.outside(win, iv[t]['stopped'])
        for o in tids:
            if o == t or name[o] == 'main': continue
            k = name[o] if not name[o].startswith(group) else 'peers'
            met[k] = met.get(k, 0) + sum(cover(o, 'running', a, b) for a, b in free) / eff / len(g)
    print('    a %s thread out of a pause met, per eff-s: ' % group + ', '.join('%s ran %.3f' % kv for kv in sorted(met.items())))
