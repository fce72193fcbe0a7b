#!/usr/bin/env python3
# Time threads of PROG spent blocked on a thread of PROG that causaltop had
# stopped (a pause), from `perf script -F comm,tid,cpu,time,event,trace`
# of sched:sched_switch and sched:sched_waking; see README.md.
# Usage: lockpause.py FILE|- PROG
import re,sys,collections
sw=re.compile(r'^\s*(\S.*?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+): sched:sched_switch: prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)')
wk=re.compile(r'^\s*(\S.*?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+): sched:sched_waking: comm=(.*?) pid=(\d+) ')
prog=sys.argv[2]; sup='causaltop'
comm={}
ev=[]
for l in (sys.stdin if sys.argv[1] == '-' else open(sys.argv[1])):
    m=sw.match(l)
    if m:
        t=float(m.group(4)); p=int(m.group(6)); n=int(m.group(9))
        comm[p]=m.group(5); comm[n]=m.group(8)
        ev.append((t,'out',p,m.group(7))); ev.append((t,'in',n,None)); continue
    m=wk.match(l)
    if m:
        t=float(m.group(4)); waker=int(m.group(2)); wakee=int(m.group(6))
        comm[wakee]=m.group(5)
        ev.append((t,'wake',wakee,waker))
ours={p for p,c in comm.items() if c==prog}
stopped={}; pauses=collections.defaultdict(list)
blocked={}; blocks=[]
runtime=collections.Counter(); last_in={}
for t,k,p,x in ev:
    if p not in ours: continue
    if k=='in': last_in[p]=t
    if k=='out':
        if p in last_in: runtime[p]+=t-last_in.pop(p)
        if x.startswith('t'): stopped[p]=t
        elif x.startswith('S') or x.startswith('D'): blocked[p]=t
    if k=='wake':
        if p in stopped and comm.get(x)==sup:
            pauses[p].append((stopped.pop(p),t))
        elif p in blocked:
            blocks.append((blocked.pop(p),t,p,x))
jan=max(runtime,key=runtime.get)
print('threads',{p:round(runtime[p],2) for p in ours}, 'most running',jan)
tot=collections.Counter(); cnt=collections.Counter(); ptime=collections.Counter()
for p,iv in pauses.items():
    ptime[p]=sum(b-a for a,b in iv)
# overlap of each block (woken by J) with J's pauses
for a,b,w,j in blocks:
    if j not in pauses: continue
    ov=0
    for (s,e) in pauses[j]:
        if e< a or s> b: continue
        ov+=min(b,e)-max(a,s)
    if ov>0: tot[j]+=ov; cnt[j]+=1
T=ev[-1][0]-ev[0][0]
print('trace %.1f s'%T)
for p in ours:
    print(p,'run %.2f s paused %d times %.3f s; waiters blocked on it while it was paused: %d blocks, %.3f s'%(runtime[p],len(pauses[p]),ptime[p],cnt[p],tot[p]))
# union: time when at least one thread is blocked on a paused thread
iv=[]
for a,b,w,j in blocks:
    for (s,e) in pauses.get(j,[]):
        if e< a or s> b: continue
        iv.append((max(a,s),min(b,e)))
iv.sort(); u=0; cur=None
for s,e in iv:
    if cur and s<=cur[1]: cur[1]=max(cur[1],e)
    else:
        if cur: u+=cur[1]-cur[0]
        cur=[s,e]
if cur: u+=cur[1]-cur[0]
print('union of time someone waited on a paused thread: %.3f s'%u)
