#!/usr/bin/env python3
# Per speedup level, medians over a --json profile's experiments of the
# wall time, delay inserted and effective time (wall - delay) an item.
# Usage: expsum.py PROFILE.json
import json,statistics as st,sys
d=json.load(open(sys.argv[1]))
e=d['experiments']
def us(x): return x['wall_ns']/1e3/x['points'][0]['delta']
for lvl in sorted(set(x['speedup_pct'] for x in e)):
  xs=[x for x in e if x['speedup_pct']==lvl]
  wall=st.median([x['wall_ns']/x['points'][0]['delta']/1e3 for x in xs])
  dl=st.median([x['delay_ns']/x['points'][0]['delta']/1e3 for x in xs])
  eff=st.median([x['duration_ns']/x['points'][0]['delta']/1e3 for x in xs])
  ss=st.median([x['selected_samples']/x['wall_ns']*1e9 for x in xs])
  print('lvl %3d n %2d us/item wall %.1f delay %.1f eff %.1f  sel samples/s %.0f'%(lvl,len(xs),wall,dl,eff,ss))
