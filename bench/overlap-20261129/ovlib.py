# ovlib.py: what ov.py, ov2.py and ov3.py share: a run's walk log (mk.py's
# pool-ov), its sched_switch records (run.sh) and the overlap of a span
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
