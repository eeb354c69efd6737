#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No import circles between the files of lib/, read off the built objects.

File A depends on file B when A's object uses a symbol B's object defines (nm: calls and
data, e.g. the family registry's table of families).  Prints the count of files and
arrows, then every circle (a strongly connected set of two or more files) with the
symbols that tie it, and exits 1 if there is one.  Usage: lib-circles.py BUILD_DIR
"""
import collections
import glob
import os
import subprocess
import sys

SUBDIRS = ("core", "engine", "io", "object", "family", "net", "profile", "export", "shared", "why",
           "experiment", "report")


def source_name(obj):
    base = os.path.basename(obj)[: -len(".o")]
    for d in SUBDIRS:
        if base.startswith(d + "_"):
            return d + "/" + base[len(d) + 1:]
    return base


def main():
    objs = sorted(glob.glob(os.path.join(sys.argv[1], "lib", "libperftune-internal.a.p", "*.o")))
    if not objs:
        sys.exit(f"no objects under {sys.argv[1]}/lib/libperftune-internal.a.p: build first")
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        name = source_name(o)
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRBC":
                defs.setdefault(parts[2], name)
            elif len(parts) == 2 and parts[0] == "U":
                uses[name].add(parts[1])
    files = sorted(set(defs.values()) | set(uses))
    edges = collections.defaultdict(dict)
    for a in files:
        for sym in uses[a]:
            b = defs.get(sym)
            if b and b != a:
                edges[a].setdefault(b, set()).add(sym)

    # Tarjan's strongly connected components
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in files:
        if v not in index:
            visit(v)
    arrows = sum(len(e) for e in edges.values())
    print(f"lib/: {len(files)} files, {arrows} arrows between them, {len(circles)} circle(s)")
    for c in circles:
        print("circle:", ", ".join(c))
        for a in c:
            for b, syms in sorted(edges[a].items()):
                if b in c:
                    print(f"  {a} -> {b}: {', '.join(sorted(syms)[:6])}")
    sys.exit(1 if circles else 0)


if __name__ == "__main__":
    main()
