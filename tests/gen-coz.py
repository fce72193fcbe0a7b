#!/usr/bin/env python3
"""Write a synthetic Coz profile whose causal curves are known.

gen-coz.py [options] LOCATION=IMPACT...

Each LOCATION (FILE:LINE) gets experiments at 10/25/50/75/100% whose
true program speedup is IMPACT * s; a third of the experiments are 0%
baselines.  Counts get Poisson-like noise from a seeded generator, so a
given command line always writes the same file.

  --seed N        generator seed (default 1)
  --runs N        runs, each starting with a startup record (default 1)
  --exp N         experiments per run (default 300)
  --period S      seconds per visit at speedup 0 (default 0.001)
  --format F      coz (tab records, default) or jsonl (Coz's JSON lines)
  --latency       a latency point instead of a throughput point
  --point NAME    the progress point's name (default "ops")
"""
import argparse
import json
import random
import sys

LEVELS = [10, 25, 50, 75, 100]


def record(fmt, kind, fields):
    if fmt == "jsonl":
        d = {"type": kind}
        for k, v in fields:
            d[k.replace("selected-samples", "selected_samples")] = v
        return json.dumps(d)
    out = [kind]
    for k, v in fields:
        out.append("%s=%s" % (k, ("%.2f" % v) if isinstance(v, float) else v))
    return "\t".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--exp", type=int, default=300)
    ap.add_argument("--period", type=float, default=0.001)
    ap.add_argument("--format", default="coz")
    ap.add_argument("--latency", action="store_true")
    ap.add_argument("--point", default="ops")
    ap.add_argument("targets", nargs="+")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    targets = []
    for t in a.targets:
        loc, imp = t.rsplit("=", 1)
        targets.append((loc, float(imp)))
    lines = []
    wall = 0.5
    for run in range(a.runs):
        lines.append(record(a.format, "startup", [("time", 1700000000000000000 + run)]))
        for i in range(a.exp):
            loc, imp = targets[rng.randrange(len(targets))]
            pct = 0 if rng.random() < 1 / 3 else rng.choice(LEVELS)
            y = imp * pct / 100.0
            p = a.period * (1 - y)
            mean = wall / p
            n = max(0, int(round(mean + rng.gauss(0, 1) * mean ** 0.5)))
            lines.append(record(a.format, "experiment", [
                ("selected", loc), ("speedup", pct / 100.0),
                ("duration", int(wall * 1e9)), ("selected-samples", 10)]))
            if a.latency:
                # Latency 0.1 s at speedup 0; in flight by Little's law.
                lam = 1 / a.period
                arr = max(1, int(round(lam * wall + rng.gauss(0, 1) * (lam * wall) ** 0.5)))
                inflight = lam * 0.1 * (1 - y) * (1 + rng.gauss(0, 1) / arr ** 0.5)
                lines.append(record(a.format, "latency-point", [
                    ("name", a.point), ("arrivals", arr), ("departures", arr),
                    ("difference", max(0, int(round(inflight))))]))
            else:
                lines.append(record(a.format, "throughput-point",
                                    [("name", a.point), ("delta", n)]))
        lines.append(record(a.format, "runtime", [("time", int(a.exp * wall * 1e9))]))
        for loc, _ in targets:
            lines.append(record(a.format, "samples", [("location", loc), ("count", 1000)]))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
