# ovlib.py: what the ov*.py scripts (and bench/janitor-20261129/gen.py)
# share: a run's walk log (mk.py's pool-ov), its sched_switch records
# (run.sh), the threads' state spans from them, and the overlap of a span
# with sorted disjoint intervals.
import struct, re, bisect, json

DIR = '/tmp/ov'
SWITCH = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d+):\s+prev_comm=.*? prev_pid=(\d+) .*?'
                    r'prev_state=(\S+) ==> next_comm=.*? next_pid=(\d+)')


def walks(tag):
    """(tids: producer, workers 0-2, monitor, ...; [(asked, taken, released)])"""
    raw = open('%s/%s.walks' % (DIR, tag), 'rb').read()
    tids = struct.unpack_from('8q', raw, 0)
    n = struct.unpack_from('Q', raw, 64)[0]
    return tids, [struct.unpack_from('3Q', raw, 72 + 24 * i) for i in range(n)]


def switches(tag):
    """(ns, prev_pid, prev_state, next_pid) of each sched_switch, in order."""
    for l in open('%s/%s.sched' % (DIR, tag)):
        m = SWITCH.match(l)
        if m:
            yield (int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(4)),
                   m.group(5), int(m.group(6)))


def levels(tag):
    """(level, its experiments' wall time, inside(a, b): whether [a, b)
    lies in one of them) per speedup level of the run's JSON."""
    exps = json.load(open('%s/%s.json' % (DIR, tag)))['experiments']
    for lvl in sorted(set(x['speedup_pct'] for x in exps)):
        win = sorted((x['start_ns'], x['start_ns'] + x['wall_ns'])
                     for x in exps if x['speedup_pct'] == lvl)
        wst = [w[0] for w in win]

        def inside(a, b, win=win, wst=wst):
            i = bisect.bisect_right(wst, a) - 1
            return i >= 0 and b <= win[i][1]
        yield lvl, sum(b - a for a, b in win), inside


def overlap(ivs, starts, a, b):
    """How much of [a, b) the sorted disjoint intervals ivs cover; starts:
    their starts, computed once by the caller."""
    i = max(0, bisect.bisect_right(starts, a) - 1)
    s = 0
    while i < len(ivs) and ivs[i][0] < b:
        lo, hi = max(a, ivs[i][0]), min(b, ivs[i][1])
        if hi > lo:
            s += hi - lo
        i += 1
    return s


STATES = ('running', 'ready', 'blocked', 'stopped')


def states(events, tids):
    """Each of tids' sorted spans per state (STATES: a switch out in a
    state with t is a ptrace stop, R a preemption, any other a sleep)
    from sched_switch events (ns, prev_pid, prev_state, next_pid)."""
    ivs = {t: {s: [] for s in STATES} for t in tids}
    last = {}   # tid -> (state, since)
    for t, pp, st, np_ in events:
        if pp in ivs:
            if pp in last and last[pp][0] == 'running':
                ivs[pp]['running'].append((last[pp][1], t))
            last[pp] = ('stopped' if 't' in st else 'ready' if st.startswith('R') else 'blocked', t)
        if np_ in ivs:
            if np_ in last and last[np_][0] != 'running':
                ivs[np_][last[np_][0]].append((last[np_][1], t))
            last[np_] = ('running', t)
    for t in ivs:
        for s in STATES:
            ivs[t][s].sort()
    return ivs


def outside(win, spans):
    """The parts of the sorted spans win that the sorted spans spans
    leave uncovered."""
    out, starts = [], [x[0] for x in spans]
    for a, b in win:
        cur = a
        for lo, hi in spans[max(0, bisect.bisect_right(starts, a) - 1):]:
            if lo >= b:
                break
            if hi <= cur:
                continue
            if lo > cur:
                out.append((cur, lo))
            cur = max(cur, hi)
        if cur < b:
            out.append((cur, b))
    return out
