#!/usr/bin/env python3
"""What the tuner's survey says about the defaults.

The walk begins by timing each template's per-workload default, paired with
the plan's default, so a database of `vktune` holds, per workload, the first
record of each template (in measurement order) = that template's default,
all on one time scale. From a `vkdb export` (JSON lines, .xz allowed) and
the run's `vktune --json` tables this prints, for a candidate default rule
(sliced-k templates in place of the plan's default):
  - the sum of nodes x default time with the plan's defaults and with the rule;
  - the workloads the rule gets wrong (it picks the slower of the two);
  - the tuner's confirmed speedup over the rule's defaults (geomean by nodes,
    floored at 1: the tuner keeps a default that is best).
Rules: fp32 (conv2d_direct -> conv2d_sliced_k) everywhere but depthwise;
fp16 (conv2d_coopmat -> conv2d_coopmat_sliced_k) where outputs M x N <=
LIMIT (102400) and K >= 96.
usage: survey_defaults.py EXPORT.jsonl[.xz] PRECISION TUNE.json [TUNE.json...]"""
import json
import lzma
import math
import re
import sys

RULES = {
    "fp32": ("conv2d_direct", "conv2d_sliced_k", lambda d: True),
    "fp16": ("conv2d_coopmat", "conv2d_coopmat_sliced_k",
             lambda d: d["M"] * d["N"] <= 102400 and d["K"] >= 96),
}


def dims(key):
    m = re.match(r"conv2d\(f\d+\[(\d+),(\d+),\d+,\d+\],f\d+\[(\d+),(\d+),(\d+),(\d+)\]"
                 r".*->f\d+\[\d+,\d+,(\d+),(\d+)\]", key)
    if not m:
        return None
    n, c, co, ci, kh, kw, oh, ow = map(int, m.groups())
    return {"M": n * oh * ow, "N": co, "K": ci * kh * kw, "depthwise": ci == 1 and c > 1}


def main():
    path, prec, tunes = sys.argv[1], sys.argv[2], sys.argv[3:]
    base, alt, use = RULES[prec]
    opener = lzma.open if path.endswith(".xz") else open
    first = {}  # workload: {template: ns or None}, first record of each template
    order = {}  # workload: the plan default's template (its first record)
    nodes = {}
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "workload":
                nodes[r["key"]] = json.loads(r["description"]).get("nodes", 1)
            if r["type"] != "record":
                continue
            w = first.setdefault(r["workload"], {})
            order.setdefault(r["workload"], r["template"])
            if r["template"] not in w:
                ok = r["correct"] and not r["failed"]
                w[r["template"]] = r["median_ns"] if ok else None
    old = new = 0.0
    wrong, n_rule = [], 0
    pick = {}
    for k, w in first.items():
        d0 = w[order[k]]
        chosen = d0
        d = dims(k)
        if d and not d["depthwise"] and order[k] == base and w.get(alt):
            n_rule += 1
            if use(d):
                chosen = w[alt]
            if (w[alt] < d0) != use(d):
                wrong.append((k, d, d0 / w[alt]))
        pick[k] = chosen / d0
        old += nodes.get(k, 1) * d0
        new += nodes.get(k, 1) * chosen
    print(f"{prec}: {base} -> {alt}; {n_rule} workloads the rule decides")
    print(f"  sum of nodes x default: plan's defaults {old / 1e3:.1f} us, the rule's "
          f"{new / 1e3:.1f} us ({old / new:.2f}x)")
    for k, d, r in wrong:
        print(f"  rule wrong: {k[:70]} M*N={d['M'] * d['N']} K={d['K']}: "
              f"plan default / alt = {r:.2f}")
    num = den = 0.0
    for t in tunes:
        for x in json.load(open(t))["workloads"]:
            c = x.get("confirmed_speedup")
            if not c or x["key"] not in pick:
                continue
            num += x["nodes"] * math.log(max(c * pick[x["key"]], 1.0))
            den += x["nodes"]
    if den:
        print(f"  tuned (confirmed) over the rule's defaults, geomean by nodes: "
              f"{math.exp(num / den):.3f}")


main()
