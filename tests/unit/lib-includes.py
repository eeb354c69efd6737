#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No lib/ file includes a project header it does not use.

For each .c and .h file under lib/, every header of the project it includes with
#include "..." (lib/**, include/perftune.h) must declare at least one identifier the
file uses: a function, variable, type, struct/union/enum tag, enum constant or macro.
A forward declaration ("struct pt_attr;") declares nothing, except in the public
header (its opaque objects); an include guard is no macro of use.
Prints each file's unused includes and exits 1 if there is one.

Usage: lib-includes.py SOURCE_ROOT          check
       lib-includes.py SOURCE_ROOT --needs F the project headers that declare what F uses
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "struct", "union", "enum",
    "typedef", "static", "inline", "extern", "const", "volatile", "unsigned", "signed",
    "void", "char", "short", "int", "long", "float", "double", "bool", "_Bool",
    "__attribute__", "restrict", "__restrict", "_Noreturn", "_Atomic",
}


def strip(text):
    """@text without comments, string and character literals; lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def statements(code):
    """Top-level statements of @code (no preprocessor lines): (head, body) pairs."""
    res, depth, start, head_end = [], 0, 0, None
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head_end = i
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)  # the "}" of extern "C" {
            if depth == 0 and "(" in code[start:head_end]:
                # a function definition (static inline) ends at its brace
                res.append((code[start:head_end], code[head_end + 1:i]))
                start, head_end = i + 1, None
        elif c == ";" and depth == 0:
            if head_end is None:
                res.append((code[start:i], None))
            else:
                res.append((code[start:head_end], code[head_end + 1:code.rfind("}", 0, i)]
                            + "\0" + code[code.rfind("}", 0, i) + 1:i]))
            start, head_end = i + 1, None
    return res


def declared(path):
    """The identifiers header @path declares, and the tags it only forward-declares."""
    text = strip(open(path, encoding="utf-8").read()).replace("\\\n", " ")
    names = set(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", text, re.M))
    names -= set(re.findall(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+_H)\b", text, re.M))
    fwd = set()
    code = re.sub(r"^[ \t]*#.*$", "", text, flags=re.M)
    code = re.sub(r'extern\s*""\s*\{', "", code)
    for head, body in statements(code):
        head = " ".join(head.split())
        tail = ""
        if body is not None and "\0" in body:
            body, tail = body.split("\0")
        m = re.search(r"\b(struct|union|enum)\s+(\w+)\s*$", head)
        if body is not None and m:
            names.add(m.group(2))
        if body is not None and re.search(r"\benum\b[\w\s]*$", head):
            for item in body.split(","):
                m = IDENT.match(item.strip())
                if m:
                    names.add(m.group(0))
        if head.startswith("typedef"):
            m = re.search(r"\(\s*\*\s*(\w+)\s*\)", head)
            if m and body is None:
                names.add(m.group(1))
            else:
                ids = IDENT.findall(tail if body is not None else head)
                if ids:
                    names.add(ids[-1])
            continue
        if body is not None and "(" not in head:
            # struct x {...} var;  enum {...};
            names.update(i for i in IDENT.findall(tail) if i not in KEYWORDS)
            continue
        m = re.fullmatch(r"(struct|union|enum)\s+(\w+)", head)
        if m:
            fwd.add(m.group(2))
            continue
        m = re.search(r"(\w+)\s*\(", head)
        if m and m.group(1) not in KEYWORDS:
            names.add(m.group(1))
        elif head.startswith("extern") or "(" not in head:
            names.update(re.findall(r"(\w+)\s*(?=[,\[=]|$)", head))
    return names - KEYWORDS, fwd


def used(path):
    """The identifiers @path uses, its own declarations and include lines left out."""
    text = open(path, encoding="utf-8").read()
    code = strip(re.sub(r'^[ \t]*#[ \t]*include.*$', "", text, flags=re.M))
    return set(IDENT.findall(code))


def resolve(root, src, name):
    for d in (os.path.dirname(src), os.path.join(root, "lib"), os.path.join(root, "include")):
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def lib_files(root):
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        for f in files:
            if f.endswith((".c", ".h")):
                yield os.path.join(dirpath, f)


def project_headers(root):
    """Each project header's declared identifiers."""
    headers = [h for h in lib_files(root) if h.endswith(".h")]
    headers.append(os.path.join(root, "include", "perftune.h"))
    found = {h: declared(h) for h in headers}
    lib = os.path.join(root, "lib") + os.sep
    return {h: names | (set() if h.startswith(lib) else fwd) for h, (names, fwd) in found.items()}


def main():
    root = os.path.abspath(sys.argv[1])
    decls = project_headers(root)

    def decl(h):
        return decls.get(h, set())

    if len(sys.argv) == 4 and sys.argv[2] == "--needs":
        f = os.path.abspath(sys.argv[3])
        uses = used(f)
        for h in sorted(decls):
            both = decl(h) & uses
            if both and h != f:
                print(os.path.relpath(h, os.path.join(root, "lib")), " ".join(sorted(both)[:5]))
        return
    bad = nfiles = nincl = 0
    for f in sorted(lib_files(root)):
        uses = used(f)
        nfiles += 1
        for name in INCLUDE.findall(open(f, encoding="utf-8").read()):
            h = resolve(root, f, name)
            if h is None:
                continue  # a system header
            nincl += 1
            if not decl(h) & uses:
                bad += 1
                print(f"{os.path.relpath(f, root)}: includes \"{name}\" and uses nothing it declares")
    print(f"lib/: {nfiles} files, {nincl} project includes, {bad} unused")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
