#!/usr/bin/env python3
"""Keep the product's sources readable: no file over 1,000 lines and no
function over 120 lines.

The product is every C file under core/, proto/, store/, daemon/, client/,
cli/ and cudart/ (tests and benchmarks are not held to it).  A function is
counted from the line of its name to its closing brace, which clang-format
(.clang-format) puts in the first column, as it does the opening one.

Usage: check_sizes.py SOURCE_DIR.  Prints each file or function over its
limit and exits 1 when there is any.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
PRODUCT = ("core/", "proto/", "store/", "daemon/", "client/", "cli/", "cudart/")
MAX_FILE = 1000
MAX_FUNC = 120
NAME = re.compile(r"^[A-Za-z_][\w \t*,()\[\]]*?\b(\w+)\s*\(")


def functions(lines):
    """(name, first line, length) of every function defined in lines."""
    out = []
    for i, l in enumerate(lines):
        if l.rstrip("\n") != "{" or i == 0:
            continue
        # The name is on the nearest line above that starts in column 0.
        j = i - 1
        while j > 0 and lines[j][:1] in (" ", "\t"):
            j -= 1
        m = NAME.match(lines[j])
        if not m or lines[j].startswith(("struct", "enum", "union", "typedef", "static const",
                                         "const")) and "(" not in lines[j]:
            continue
        end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("}")), None)
        if end is not None:
            out.append((m.group(1), j + 1, end - j + 1))
    return out


def main():
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split()
    bad = []
    checked = 0
    for f in files:
        if not f.startswith(PRODUCT) or not f.endswith((".c", ".h")):
            continue
        path = os.path.join(ROOT, f)
        if not os.path.isfile(path):
            continue
        lines = open(path, encoding="utf-8", errors="replace").readlines()
        checked += 1
        if len(lines) > MAX_FILE:
            bad.append(f"{f}: {len(lines)} lines (at most {MAX_FILE})")
        for name, at, n in functions(lines):
            if n > MAX_FUNC:
                bad.append(f"{f}:{at}: {name}() is {n} lines (at most {MAX_FUNC})")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"{checked} product files: none over {MAX_FILE} lines, no function over {MAX_FUNC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
