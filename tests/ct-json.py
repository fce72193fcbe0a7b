#!/usr/bin/env python3
"""Read causaltop's --json profile for the tests (doc/profile-json.md).

ct-json.py level FILE LOC PCT   est lo hi n_exp stat_lo stat_hi of target
                                LOC (a suffix of its location) at level
                                PCT, first point (stat_*: the statistical
                                interval, without the model error)
ct-json.py ranking FILE         one line per ranked target of the first
                                measured point: rank location verdict
                                impact lo hi samples_pct experiments
ct-json.py check FILE           exit 0 if FILE is a well-formed profile
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt(v):
    return "nan" if v is None else "%.4f" % v


def first_result(d):
    for r in d["results"]:
        if r["targets"]:
            return r
    return None


def main():
    what, path = sys.argv[1], sys.argv[2]
    d = load(path)
    if what == "check":
        assert d["format"] == "causaltop-profile"
        assert isinstance(d["experiments"], list)
        return 0
    r = first_result(d)
    if r is None:
        print("no-results")
        return 1
    if what == "level":
        loc, pct = sys.argv[3], int(sys.argv[4])
        for t in r["targets"]:
            if not t["location"].endswith(loc):
                continue
            for lv in t["levels"]:
                if lv["speedup_pct"] == pct:
                    print(fmt(lv["est"]), fmt(lv["lo"]), fmt(lv["hi"]), lv["n_exp"],
                          fmt(lv.get("stat_lo")), fmt(lv.get("stat_hi")))
                    return 0
        print("nan nan nan 0 nan nan")
        return 1
    if what == "ranking":
        for t in r["targets"]:
            imp = t["impact"]
            print(t["rank"], t["location"], t["verdict"].replace(" ", "_"),
                  fmt(imp["est"]), fmt(imp["lo"]), fmt(imp["hi"]),
                  fmt(t["samples_pct"]), t["experiments"])
        return 0
    return 2


sys.exit(main())
