#!/usr/bin/env python3
# queuewatch.py PID SECS PROFILE.json: every ~5 ms, the job queue's fill
# (q_count, from /proc/PID/mem), the producer's and the monitor's state
# (t: held in a ptrace stop, i.e. paused) and how many of the 3 workers
# are blocked (S); then, once causaltop has written PROFILE.json, each
# sample is put in the experiment it fell in (CLOCK_MONOTONIC both) and
# summed by level.  pool's threads in creation order: main, producer, 3
# workers, monitor.
import os, sys, time, struct, subprocess, collections, json, bisect
pid, secs, prof = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
exe = os.readlink('/proc/%d/exe' % pid)
syms = {l.split()[2]: int(l.split()[0], 16) for l in subprocess.run(['nm', exe], capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 3}
base = None
for l in open('/proc/%d/maps' % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
        base = int(f[0].split('-')[0], 16); break
tids = sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
prod, workers, mon = tids[1], tids[2:5], tids[5]
mem = os.open('/proc/%d/mem' % pid, os.O_RDONLY)
def state(t):
    try: return open('/proc/%d/task/%d/stat' % (pid, t)).read().rsplit(')', 1)[1].split()[0]
    except OSError: return '?'
smp = []
t0 = time.time()
while time.time() - t0 < secs:
    try: qc = struct.unpack('I', os.pread(mem, 4, base + syms['q_count']))[0]
    except OSError: break
    smp.append((time.monotonic_ns(), qc, state(prod), state(mon), sum(state(w) == 'S' for w in workers)))
    time.sleep(0.005)
while not os.path.exists(prof): time.sleep(0.5)
time.sleep(1)
e = sorted((x['start_ns'], x['start_ns'] + x['wall_ns'], x['speedup_pct']) for x in json.load(open(prof))['experiments'])
st = [x[0] for x in e]
agg = collections.defaultdict(collections.Counter)
for t, qc, ps, ms, nb in smp:
    i = bisect.bisect_right(st, t) - 1
    if i < 0 or t >= e[i][1]: continue
    a = agg[e[i][2]]
    a['n'] += 1; a['empty'] += qc == 0; a['fill'] += qc; a['prod_t'] += ps == 't'; a['mon_t'] += ms == 't'
    a['blocked'] += nb; a['empty_prod_t'] += qc == 0 and ps == 't'
for lv in sorted(agg):
    a = agg[lv]; n = a['n']
    print('level %3d%%: %4d samples; queue empty %4.1f%% (with the producer paused %4.1f%%), mean fill %4.1f of 16; producer paused %4.1f%%, monitor paused %4.1f%%; workers blocked %.2f on average'
          % (lv, n, 100 * a['empty'] / n, 100 * a['empty_prod_t'] / n, a['fill'] / n, 100 * a['prod_t'] / n, 100 * a['mon_t'] / n, a['blocked'] / n))
