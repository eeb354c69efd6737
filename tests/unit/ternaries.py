#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Count the ternary operators ('?' of "a ? b : c") in C sources.

usage: ternaries.py [--max-density N] [--no-chained] DIR|FILE...

Strings, character constants and comments are skipped.  A ternary is chained
when another one sits inside one of its three operands (a nested conditional,
STYLE.md: "a ternary nested in a ternary never").  Prints per file the count
and the chained ones (file:line), then the total and the density per 100
lines of code (lines with something left once comments are blanked: the
stricter measure; per 100 lines of `wc -l` too); exits 1 when a limit given
is passed.
"""
import os
import re
import sys

def strip(text):
    """@text with strings, char constants and comments blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)

def ternaries(code):
    """[(line, chained)] for each '?' of @code (stripped)."""
    found = []
    # depth of each open ternary: the bracket depth where it started; an
    # operand of it ends at ';', ',' or a closing bracket of that depth
    stack, depth, line = [], 0, 1
    for i, c in enumerate(code):
        if c == '\n':
            line += 1
        elif c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            while stack and stack[-1][0] > depth:
                stack.pop()
        elif c in ';,':
            while stack and stack[-1][0] >= depth:
                stack.pop()
        elif c == '?':
            chained = bool(stack)
            if chained:
                for k in stack:
                    found[k[1]] = (found[k[1]][0], True)
            found.append((line, chained))
            stack.append((depth, len(found) - 1))
    return found

def files(args):
    for a in args:
        if os.path.isdir(a):
            for root, _, names in sorted(os.walk(a)):
                for name in sorted(names):
                    if name.endswith(('.c', '.h')):
                        yield os.path.join(root, name)
        else:
            yield a

def main(argv):
    max_density, no_chained, args = None, False, []
    it = iter(argv)
    for a in it:
        if a == '--max-density':
            max_density = float(next(it))
        elif a == '--no-chained':
            no_chained = True
        else:
            args.append(a)
    total = lines = sloc = chained = 0
    for path in files(args):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        code = strip(text)
        found = ternaries(code)
        total += len(found)
        lines += text.count('\n')
        sloc += sum(1 for ln in code.split('\n') if ln.strip())
        inner = [ln for ln, ch in found if ch]
        chained += len(inner)
        if found:
            print(f'{path}: {len(found)}' +
                  (f' (chained at {", ".join(map(str, sorted(set(inner))))})' if inner else ''))
    density = 100.0 * total / sloc if sloc else 0.0
    per_wc = 100.0 * total / lines if lines else 0.0
    print(f'total: {total} ternaries, {density:.2f} per 100 lines of code ({sloc}), '
          f'{per_wc:.2f} per 100 lines ({lines}), {chained} in chains')
    bad = False
    if max_density is not None and density > max_density:
        print(f'FAIL: density {density:.2f} > {max_density}')
        bad = True
    if no_chained and chained:
        print(f'FAIL: {chained} ternaries in chains')
        bad = True
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
