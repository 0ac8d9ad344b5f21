#!/usr/bin/env python3
"""The source tree's layering (docs/architecture.md, Folders): which folder
may include which, and that no file in codegen/kernels/ includes another
kernel file (each kernel file includes codegen/core/ and ir/ headers, and
at most its own header). Prints every violation; exit status 1 if any.

usage: check_tree.py SOURCE_ROOT"""
import os
import re
import sys

# folder -> the project folders it may include (its own always)
ALLOWED = {
    'ir': set(),
    'frontend': {'ir'},
    'passes': {'ir'},
    'codegen': {'ir'},
    'runtime': {'ir'},
    'tunedb': set(),
    # the tuner builds its trials' plans through the driver
    'tuner': {'ir', 'codegen', 'runtime', 'tunedb', 'driver'},
    # the one place that wires the compile (nothing below includes it)
    'driver': {'ir', 'frontend', 'passes', 'codegen', 'runtime', 'tunedb'},
}
FOLDERS = {'ir', 'frontend', 'passes', 'codegen', 'runtime', 'tuner', 'tunedb', 'driver', 'tools'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root, folder):
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        for n in sorted(names):
            if n.endswith(('.c', '.h')):
                yield os.path.join(dirpath, n)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = []
    for folder, allowed in ALLOWED.items():
        for path in sources(root, folder):
            rel = os.path.relpath(path, root)
            text = open(path, encoding='utf-8').read()
            for inc in INCLUDE.findall(text):
                top = inc.split('/')[0]
                if top in FOLDERS and top != folder and top not in allowed:
                    bad.append('%s includes %s: %s/ may use %s only' %
                               (rel, inc, folder, ', '.join(sorted(allowed)) or 'libc'))
    kdir = os.path.join(root, 'codegen', 'kernels')
    for n in sorted(os.listdir(kdir)):
        if not n.endswith('.c'):
            continue
        own = n[:-2] + '.h'
        text = open(os.path.join(kdir, n), encoding='utf-8').read()
        for inc in INCLUDE.findall(text):
            base = os.path.basename(inc)
            in_kernels = inc.startswith(('kernels/', 'codegen/kernels/')) or '/' not in inc
            if in_kernels and base != own:
                bad.append('codegen/kernels/%s includes %s: a kernel file includes codegen/core/ '
                           'and ir/ headers and its own header only (what kernel files share '
                           'goes to codegen/core/)' % (n, inc))
    for b in bad:
        print(b)
    print('%d layering violation(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
