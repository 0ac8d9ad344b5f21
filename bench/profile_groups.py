#!/usr/bin/env python3
"""Per-node-group GPU time from vkrun --profile files, side by side: each
file's op table (op, output, shape, device, ms, ...) grouped by the output
name as printed (32 characters: the nodes a pass made from one node share
it, e.g. a split conv's partials and their sum), the groups whose op set
includes OP (default conv) listed with each file's ms.
usage: profile_groups.py [--op OP] LABEL=FILE..."""
import sys

def groups(path, op):
    g, ops, total = {}, {}, None
    rows = False
    for line in open(path, errors="replace"):
        if line.startswith("op "):
            rows = True
            continue
        if rows and line.startswith("total"):
            total = float(line.split()[1])
            break
        f = line.split()
        if not rows or len(f) < 5:
            continue
        try:
            ms = float(f[4])
        except ValueError:
            continue
        g[f[1]] = g.get(f[1], 0.0) + ms
        ops.setdefault(f[1], set()).add(f[0])
    keep = {k for k, s in ops.items() if any(o.startswith(op) for o in s)}
    return {k: v for k, v in g.items() if k in keep}, total

def main(argv):
    op = "conv"
    if argv[:1] == ["--op"]:
        op, argv = argv[1], argv[2:]
    labels, data = [], []
    for a in argv:
        lab, path = a.split("=", 1)
        try:
            d = groups(path, op)
        except OSError:
            continue
        labels.append(lab)
        data.append(d)
    if not data:
        return
    names = sorted(set().union(*[d[0] for d in data]), key=lambda k: -data[0][0].get(k, 0))
    print("| node (ms) | " + " | ".join(labels) + " |")
    print("|---" * (len(labels) + 1) + "|")
    for k in names:
        print(f"| {k} | " + " | ".join(f"{d[0][k]:.4f}" if k in d[0] else "" for d in data) + " |")
    print("| **total GPU** | " + " | ".join(f"{d[1]:.3f}" if d[1] else "" for d in data) + " |")

main(sys.argv[1:])
