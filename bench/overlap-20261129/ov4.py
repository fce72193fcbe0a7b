#!/usr/bin/env python3
# ov4.py TAG...: every thread's state (running, ready, blocked, stopped) over
# the window (native run: first to last walk; a prediction: per level), in
# thread-seconds per second of effective time (wall - delay), overall and
# during the monitor's walks; then the three workers' mean, and the walk
# time they saw while not stopped.
import sys, os, json, bisect
import ovlib
from ovlib import overlap
S = ovlib.STATES
for tag in sys.argv[1:]:
    tids, rec = ovlib.walks(tag)
    names = {tids[0]: 'prod', tids[1]: 'w0', tids[2]: 'w1', tids[3]: 'w2', tids[4]: 'mon'}
    ivs = ovlib.states(ovlib.switches(tag), names)
    st_ = {t: {s: [x[0] for x in ivs[t][s]] for s in S} for t in ivs}
    if os.path.exists('%s/%s.json' % (ovlib.DIR, tag)):
        exps = json.load(open('%s/%s.json' % (ovlib.DIR, tag)))['experiments']
        lv = []
        for l in sorted(set(x['speedup_pct'] for x in exps)):
            win = sorted((x['start_ns'], x['start_ns'] + x['wall_ns']) for x in exps if x['speedup_pct'] == l)
            eff = sum(x['wall_ns'] - x['delay_ns'] for x in exps if x['speedup_pct'] == l)
            pts = sum(x['points'][0]['delta'] for x in exps if x['speedup_pct'] == l)
            lv.append(('lvl %d' % l, win, eff, pts))
    else:
        win = [(rec[0][0], rec[-1][2])]
        lv = [('native', win, win[0][1] - win[0][0], None)]
    print(tag)
    for name, win, eff, pts in lv:
        wst = [w[0] for w in win]
        def inside(a, b):
            i = bisect.bisect_right(wst, a) - 1
            return i >= 0 and b <= win[i][1]
        walks = [(a, r) for (q, a, r) in rec if inside(q, r)]
        W = sum(b - a for a, b in walks)
        hdr = '  %s: eff %.2f s, %s walks %.0f/eff-s, lock held %.1f%% of eff' % (
            name, eff / 1e9, '%d pts %.0f/eff-s,' % (pts, pts / eff * 1e9) if pts else '', len(walks) / eff * 1e9, 100 * W / eff)
        print(hdr)
        mean = {s: 0 for s in S}; seen = 0
        for t, nm in names.items():
            tot = {s: sum(overlap(ivs[t][s], st_[t][s], a, b) for a, b in win) / eff for s in S}
            inw = {s: sum(overlap(ivs[t][s], st_[t][s], a, b) for a, b in walks) / eff for s in S}
            if nm.startswith('w'):
                for s in S: mean[s] += tot[s] / 3
                seen += (W / eff - inw['stopped']) / 3
            print('    %-4s all: run %.3f ready %.3f blk %.3f stop %.3f | in walks: run %.3f ready %.3f blk %.3f stop %.3f' % (
                nm, *[tot[s] for s in S], *[inw[s] for s in S]))
        print('    workers (mean): run %.3f ready %.3f blk %.3f stop %.3f; walk time seen not stopped %.3f' % (
            *[mean[s] for s in S], seen))
