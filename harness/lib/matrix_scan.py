#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the log of one "harness/kp matrix" build and list what fails it.

Usage: matrix_scan.py LOG --src DIR --out DIR --ours FILE [--symbols FILE]
                      [--base]

FILE (--ours) lists the project's files, one path per line, relative to
the kernel tree.  --symbols lists the functions our objects define, for
warnings that name a function rather than a file (objtool on vmlinux.o,
modpost's section mismatches).

Prints two sections, each line prefixed so the caller can tell them apart:
  "ours: LINE"   a warning or error located in (or naming) one of our files
  "error: LINE"  an error anywhere (compiler, assembler, linker, modpost)
and a last line "other-warnings: N" counting warnings that are not ours.
Exits 1 when there is any line of either kind, 0 otherwise.

With --base the tree is the unmodified base, where the files at our paths
are upstream's: their warnings are printed as "note: LINE" and do not fail
(the W=1 rule is the project's own); errors still do.
"""

import argparse
import os
import re
import sys

# "path:line:col: warning: ..." as gcc, as and objtool print them; objtool
# and modpost also print "path.o: warning: ...".
LOCATED = re.compile(r"^(?P<path>[^\s:]+?)(?::\d+)*: (?P<kind>warning|error|fatal error|Error)\b")
# Errors without a source location.
UNLOCATED_ERROR = re.compile(
    r"undefined reference to|multiple definition of|"
    r"^ERROR: |^[^\s:]*ld(\.bfd)?: .*(error|cannot find|undefined)|"
    r"Segmentation fault|internal compiler error|No rule to make target")
WARNING = re.compile(r"\bwarning\b|^WARNING: ", re.IGNORECASE)
# make's own "*** [...] Error 1" lines only echo an error printed above.
MAKE_ERROR = re.compile(r"^make(\[\d+\])?: \*\*\* ")
# The linker names the object above its errors: "ld: kernel/x.o: in function `f':".
LD_CONTEXT = re.compile(r"^\S*ld(\.bfd)?: (?P<obj>\S+): in function `(?P<fn>[^']*)'")
LD_PREFIX = re.compile(r"^\S*ld(\.bfd)?: ")
BARE_LOCATION = re.compile(r"^[^\s/:]+:\(\.")
TOKEN = re.compile(r"[\w./+-]+")
IDENT = re.compile(r"[A-Za-z_]\w*")
# Functions every module defines: naming them does not make a warning ours.
COMMON_SYMBOLS = {"init_module", "cleanup_module"}


def tree_path(path, prefixes):
    """PATH relative to the kernel tree, whatever prefix the build gave it."""
    path = path.strip("`'\"()[],")
    for p in prefixes:
        if path.startswith(p):
            path = path[len(p):]
            break
    path = os.path.normpath(path)
    return path[2:] if path.startswith("./") else path


def our_file(path, ours, prefixes):
    """The project file PATH is or was built from, or None."""
    path = tree_path(path, prefixes)
    if path in ours:
        return path
    stem, ext = os.path.splitext(path)
    if ext in (".o", ".ko", ".mod", ".s", ".i"):
        for src in (stem + ".c", stem + ".S"):
            if src in ours:
                return src
    return None


def scan(lines, ours, symbols, prefixes, base=False):
    mine, errors, notes, others = [], [], [], 0
    context = None
    for line in lines:
        line = line.rstrip("\n")
        if MAKE_ERROR.search(line):
            continue
        c = LD_CONTEXT.match(line)
        if c:
            context = "%s: %s()" % (tree_path(c.group("obj"), prefixes), c.group("fn").strip())
            continue
        # Below that line, errors name the source file without its
        # directory, with or without the linker's name in front.
        rest = LD_PREFIX.sub("", line)
        if context and BARE_LOCATION.match(rest):
            line = "%s: %s" % (context, rest)
        else:
            context = None
        m = LOCATED.match(line)
        is_error = bool(m and m.group("kind") != "warning") or bool(UNLOCATED_ERROR.search(line))
        is_warning = not is_error and bool(WARNING.search(line)) and \
            not line.lstrip().startswith("In file included from")
        if not (is_error or is_warning):
            continue
        named = (m and our_file(m.group("path"), ours, prefixes)) or \
            any(our_file(t, ours, prefixes) for t in TOKEN.findall(line))
        if not named and symbols:
            named = any(i in symbols for i in IDENT.findall(line))
        if named and base and not is_error:
            notes.append(line)
        elif named:
            mine.append(line)
        elif is_error:
            errors.append(line)
        else:
            others += 1
    return mine, errors, notes, others


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--symbols")
    ap.add_argument("--base", action="store_true")
    args = ap.parse_args()
    with open(args.ours) as f:
        ours = {os.path.normpath(p.strip()) for p in f if p.strip()}
    symbols = set()
    if args.symbols:
        with open(args.symbols) as f:
            symbols = {s.strip() for s in f if s.strip()} - COMMON_SYMBOLS
    src = os.path.abspath(args.src)
    # Absolute, relative to the output directory (where make runs), and
    # relative to the common base ccache rewrites paths against.
    prefixes = sorted({src + "/", os.path.relpath(src, os.path.abspath(args.out)) + "/"},
                      key=len, reverse=True)
    with open(args.log, errors="replace") as f:
        mine, errors, notes, others = scan(f, ours, symbols, prefixes, args.base)
    for line in notes:
        print("note: " + line)
    for line in mine:
        print("ours: " + line)
    for line in errors:
        print("error: " + line)
    print("other-warnings: %d" % others)
    return 1 if mine or errors else 0


if __name__ == "__main__":
    sys.exit(main())
