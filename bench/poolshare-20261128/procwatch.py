# procwatch: what lockwatch.py, queuewatch.py and statewatch.py share:
# a process's static variables (from nm, relocated by its maps), its
# threads in creation order, a thread's state letter (/proc stat: R
# running or ready, S blocked, t held in a ptrace stop, i.e. paused),
# and looks put in the causaltop experiment they fell in.
import bisect, json, os, subprocess, time


def var_addr(pid, name):
    """The address of static variable NAME in process PID's executable."""
    exe = os.readlink('/proc/%d/exe' % pid)
    off = int([l.split()[0] for l in subprocess.run(['nm', exe], capture_output=True, text=True).stdout.splitlines()
               if l.endswith(' ' + name)][0], 16)
    for l in open('/proc/%d/maps' % pid):
        f = l.split()
        if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
            return int(f[0].split('-')[0], 16) + off
    raise SystemExit('%s: no mapping of %s' % (name, exe))


def threads(pid, want=1):
    """PID's thread ids, oldest first, once there are WANT of them."""
    while True:
        tids = sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
        if len(tids) >= want:
            return tids
        time.sleep(0.1)


def state(pid, tid):
    try:
        return open('/proc/%d/task/%d/stat' % (pid, tid)).read().rsplit(')', 1)[1].split()[0]
    except OSError:
        return '?'


def by_experiment(looks, prof):
    """(level, look) for each (monotonic ns, ...) look inside an experiment
    of PROF, causaltop's JSON profile, once written (CLOCK_MONOTONIC both)."""
    while not os.path.exists(prof):
        time.sleep(0.5)
    time.sleep(1)
    e = sorted((x['start_ns'], x['start_ns'] + x['wall_ns'], x['speedup_pct'])
               for x in json.load(open(prof))['experiments'])
    st = [x[0] for x in e]
    for look in looks:
        i = bisect.bisect_right(st, look[0]) - 1
        if i >= 0 and look[0] < e[i][1]:
            yield e[i][2], look
