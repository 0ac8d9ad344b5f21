#!/usr/bin/env python3
"""The docs stay true to the code (docs/architecture.md, Tests and the docs):
  - docs/architecture.md is a map of at most 3,000 words;
  - its pass list (between the "passes" markers) is the order
    passes/pipeline.c runs them in;
  - docs/ops.md names every op of the op table (ir/ops.h IR_OPS) in a table
    row or a heading;
  - every relative link and every `path/to/file` in backticks that names a
    tracked file's folder resolves inside the repository, and no Markdown
    file links outside it (../shared or above the root).
Prints every problem; exit status 1 if any.

usage: check_docs.py SOURCE_ROOT"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
problems = []


def read(rel):
    with open(os.path.join(ROOT, rel), encoding='utf-8') as f:
        return f.read()


def tracked_markdown():
    try:
        out = subprocess.run(['git', '-C', ROOT, 'ls-files', '*.md'], capture_output=True,
                             text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for dirpath, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
            out += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in names
                    if n.endswith('.md')]
    return sorted(out)


# ---- architecture.md: size and the pass order ----
arch = read('docs/architecture.md')
words = len(re.sub(r'```.*?```', ' ', arch, flags=re.S).split())
if words > 3000:
    problems.append('docs/architecture.md has %d words (a map: at most 3,000; details go to the '
                    'folder READMEs)' % words)
m = re.search(r'<!-- passes:.*?-->(.*?)<!-- /passes -->', arch, re.S)
doc_passes = [p.strip() for p in m.group(1).replace('\n', ' ').split(',')] if m else []
pipeline = read('passes/pipeline.c')
body = pipeline[pipeline.index('vkml_status pass_pipeline_run('):]
code_passes = re.findall(r'step\(&r, pass_(\w+)\)', body)
if doc_passes != code_passes:
    problems.append('docs/architecture.md lists the passes as %s; passes/pipeline.c runs %s' %
                    (', '.join(doc_passes) or '(none)', ', '.join(code_passes)))

# ---- ops.md: every op of the op table ----
ops_h = read('ir/ops.h')
table = ops_h[ops_h.index('#define IR_OPS(X)'):ops_h.index('typedef enum ir_op {')]
op_names = re.findall(r'X\(\w+, "(\w+)",', table)
ops_md = read('docs/ops.md')
rows = [l for l in ops_md.split('\n') if l.startswith('|') and not l.startswith('|---')]
named = set()
for l in rows:
    first = l.split('|')[1]
    named.update(re.findall(r'[a-z_0-9]+', first))
for h in re.findall(r'^#+ (.*)$', ops_md, re.M):  # an op with a section of its own
    named.update(re.findall(r'[a-z_0-9]+', h))
for op in op_names:
    if op not in named:
        problems.append('docs/ops.md has no table row naming op %s (ir/ops.h)' % op)

# ---- links ----
LINK = re.compile(r'\]\(([^)\s]+)\)')
for md in tracked_markdown():
    if md.startswith('bench/results/') and md != 'bench/results/README.md':
        continue  # dated records: they describe the tree of their day
    text = read(md)
    base = os.path.dirname(md)
    for target in LINK.findall(text):
        if re.match(r'^[a-z]+:', target) or target.startswith('#'):
            continue
        path = os.path.normpath(os.path.join(ROOT, base, target.split('#')[0]))
        if not path.startswith(ROOT + os.sep) and path != ROOT:
            problems.append('%s links outside the repository: %s' % (md, target))
        elif not os.path.exists(path):
            problems.append('%s links to %s, which does not exist' % (md, target))
    if '../shared' in text:
        problems.append('%s refers to ../shared, outside the repository' % md)

for p in problems:
    print(p)
print('%d docs problem(s)' % len(problems))
sys.exit(1 if problems else 0)
