#!/usr/bin/env python3
"""Check that what the docs and the comments cite exists.

Reads the Markdown documents (docs/, README.md, proto/PROTOCOL.md and the
other READMEs), the man pages, and the comments of every C, CMake, shell
and SQL file under version control, and checks three kinds of citation:

  - a file path (`store/store_txn.c`, tests/docs/check_refs.py): the file
    exists, relative to the root or to the citing file; a bare file name
    (`store_txn.c`) names some file of the tree;
  - a function (`store_txn_run_batch()`): the name is defined or declared
    in the tree's code, or by a system header the build reads;
  - a section (`docs/design.md §11.2`, or a bare `§4.3`): the document has a
    heading numbered so.  A bare § refers to the last document the file
    named before it, else to the file itself (a document) or to the
    document its folder's code follows (core/cuda*: cuda-semantics.md).

Usage: check_refs.py SOURCE_DIR.  Prints one line per broken citation
("file:line: what") and exits 1 when there is any.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")

# Documents whose text is history or data rather than a description of the
# tree: the benchmark log cites files and figures of earlier commits.
SKIP_FILES = {"bench/RESULTS.md"}

EXT = r"(?:c|h|md|sql|json|jsonl|sh|cmake|txt|def|map|in|py|cu|8|1|service|socket|conf)"
PATH_RE = re.compile(r"(?<![\w./@$~=\"-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\." + EXT + r")(?![\w/-])")
BARE_RE = re.compile(r"(?<![\w./@$~=\",-])([A-Za-z0-9_-]+\.(?:c|h|cu|sql|cmake|def|py))(?![\w/.(-])")
FUNC_RE = re.compile(r"(?<![\w.>:-])([A-Za-z_][A-Za-z0-9_]*)\(\)")
# "`name()` in `dir/file.c`": the function is in that file.
FUNC_IN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(\)`?,?\s+(?:is\s+)?in\s+`?((?:[\w.-]+/)*[\w.-]+\.[ch])\b")
SECT_RE = re.compile(r"§\s?(\d+(?:\.\d+)*)")
DOC_RE = re.compile(r"((?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.md)")

# Where a bare § in a source file points when the file names no document:
# the semantics each folder implements.
DEFAULT_DOC = [
    ("core/cuda", "docs/cuda-semantics.md"),
    ("core/sc_cuda", "docs/cuda-semantics.md"),
    ("cudart/", "docs/cuda-semantics.md"),
    ("tests/core/test_cuda", "docs/cuda-semantics.md"),
    ("core/", "docs/semantics.md"),
    ("tests/core/", "docs/semantics.md"),
]


def git_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout
    files = out.splitlines()
    # A CMake build tree inside the checkout that .gitignore does not name
    # (cmake -B out): its generated files and test venvs are not the tree's.
    builds = tuple(os.path.dirname(f) + "/" for f in files
                   if os.path.basename(f) == "CMakeCache.txt")
    return [f for f in files
            if not (builds and f.startswith(builds)) and os.path.isfile(os.path.join(ROOT, f))]


def c_comments(text):
    """(line, comment text) for every comment of a C file, strings skipped."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        else:
            i += 1
    return out


def hash_comments(text, mark="#"):
    out = []
    for no, l in enumerate(text.split("\n"), 1):
        k = l.find(mark)
        if k >= 0 and not (mark == "#" and l.startswith("#!")):
            out.append((no, l[k + len(mark):]))
    return out


def cited_text(path, text):
    """The (line, text) pairs of a file whose citations are checked."""
    base = os.path.basename(path)
    if path.endswith(".md") or re.search(r"\.[18]$", path):
        return list(enumerate(text.split("\n"), 1))
    if path.endswith((".c", ".h", ".cu", ".def")):
        return c_comments(text)
    if base == "CMakeLists.txt" or path.endswith((".cmake", ".sh", ".py")) or base in (
            "Makefile", "run", "deps") or path.startswith((".ci/", "scripts/", "bench/")):
        return hash_comments(text)
    if path.endswith(".sql"):
        return hash_comments(text, "--")
    return []


def code_identifiers(files):
    """Names the tree defines or calls in code (comments removed)."""
    names = set()
    for f in files:
        if not f.endswith((".c", ".h", ".cu", ".def", ".map", ".txt", ".py", ".sh", ".cmake")):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if f.endswith((".c", ".h", ".cu", ".def")):
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
        names.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", text))
    return names


def system_identifiers():
    """Function names declared by the system headers the build reads."""
    names = set()
    roots = ["/usr/include"]
    for r in roots:
        for d, subs, fs in os.walk(r):
            subs[:] = [s for s in subs if s not in ("c++", "llvm", "boost", "qt5", "qt6")]
            for f in fs:
                if not f.endswith(".h"):
                    continue
                try:
                    t = open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
                except OSError:
                    continue
                names.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", t))
    return names


def headings(path, cache={}):
    if path not in cache:
        nums = set()
        try:
            for l in open(os.path.join(ROOT, path), encoding="utf-8"):
                m = re.match(r"#+\s+(\d+(?:\.\d+)*)\.?\s", l)
                if m:
                    nums.add(m.group(1))
        except OSError:
            nums = None
        cache[path] = nums
    return cache[path]


def resolve_doc(name, here):
    """The tree path of a document named in file `here`, or None."""
    for cand in (name, os.path.normpath(os.path.join(os.path.dirname(here), name)),
                 "docs/" + name, "proto/" + name):
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


# Install locations (cmake --install), which name a file of the tree by
# its last part; and the headers of the CUDA toolkit, absent where the
# toolkit is.
INSTALL_DIRS = ("include/", "lib/", "share/", "bin/", "etc/")
CUDA_HEADERS = {"cuda_runtime.h", "cuda_runtime_api.h", "driver_types.h", "crt/host_runtime.h",
                "cuda.h", "vector_types.h", "library_types.h", "cuda_fp16.h"}
# A placeholder (NNN_name.sql, NAME.cu) stands for any file.
PLACEHOLDER = re.compile(r"[A-Z]{3,}")


def system_headers():
    found = set()
    for r in ("/usr/include", "/usr/local/cuda/include"):
        for d, subs, fs in os.walk(r):
            for f in fs:
                if f.endswith(".h"):
                    rel = os.path.relpath(os.path.join(d, f), r)
                    found.update((f, rel))
    return found


class Checker:
    def __init__(self, files):
        self.files = set(files)
        self.basenames = {os.path.basename(f) for f in files}
        self.idents = code_identifiers(files) | system_identifiers()
        self.headers = system_headers() | CUDA_HEADERS
        self.bad = []

    def path_ok(self, f, p):
        if PLACEHOLDER.search(p) or p in self.headers:
            return True
        rel = os.path.normpath(os.path.join(os.path.dirname(f), p))
        if p in self.files or rel in self.files:
            return True
        if os.path.exists(os.path.join(ROOT, p)) or os.path.exists(os.path.join(ROOT, rel)):
            return True
        if p.startswith(INSTALL_DIRS):
            return os.path.basename(p) in self.basenames
        # A path within a folder the citing text is about: dist/'s man/...
        return any(t.endswith("/" + p) for t in self.files)

    def check_line(self, f, no, l, in_code):
        for m in PATH_RE.finditer(l):
            p = m.group(1).rstrip(".")
            if p.startswith(("build", "../", "./build")) or "*" in p:
                continue
            if not self.path_ok(f, p):
                self.bad.append(f"{f}:{no}: no file {p}")
        if not in_code:
            for m in BARE_RE.finditer(l):
                b = m.group(1)
                if b not in self.basenames and b not in self.headers and not PLACEHOLDER.search(b):
                    self.bad.append(f"{f}:{no}: no file named {b}")
        for m in FUNC_RE.finditer(l):
            if m.group(1) not in self.idents:
                self.bad.append(f"{f}:{no}: no function {m.group(1)}()")
        for m in FUNC_IN_RE.finditer(l):
            fn, p = m.groups()
            path = p if p in self.files else os.path.normpath(os.path.join(os.path.dirname(f), p))
            if path not in self.files:
                path = next((t for t in sorted(self.files) if t.endswith("/" + p)), None)
            if path is None or fn not in self.idents:
                continue  # reported above
            body = open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read()
            if not re.search(r"\b" + re.escape(fn) + r"\s*\(", body):
                self.bad.append(f"{f}:{no}: {fn}() is not in {p}")

    def section_doc(self, f, l, m, home):
        """The document a § at match m of line l refers to."""
        before = [d for d in DOC_RE.findall(l[:m.start()]) if headings(resolve_doc(d, f) or "")]
        if before:
            return resolve_doc(before[-1], f)
        after = re.match(r"\s*(?:[\d.,\s§-]*\s)?of \[?([\w/.-]+\.md)", l[m.end():])
        if after and headings(resolve_doc(after.group(1), f) or ""):
            return resolve_doc(after.group(1), f)
        return home

    def check_file(self, f):
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            return
        # A bare § in a document is its own; in code, the semantics its
        # folder implements, or the last document the file named.
        home = f if f.endswith(".md") else None
        for pre, d in DEFAULT_DOC:
            if home is None and f.startswith(pre):
                home = d
        last = None
        in_code = False
        for no, l in cited_text(f, text):
            if f.endswith(".md") and l.lstrip().startswith("```"):
                in_code = not in_code
                continue
            self.check_line(f, no, l, in_code)
            for m in SECT_RE.finditer(l):
                doc = self.section_doc(f, l, m, home or last)
                if doc is None:
                    self.bad.append(f"{f}:{no}: §{m.group(1)} names no document")
                    continue
                hs = headings(doc)
                if hs is not None and m.group(1) not in hs:
                    self.bad.append(f"{f}:{no}: {doc} has no §{m.group(1)}")
            named = [resolve_doc(d, f) for d in DOC_RE.findall(l)]
            named = [d for d in named if d]
            if named:
                last = named[-1]


def main():
    files = git_files()
    c = Checker(files)
    for f in files:
        if f not in SKIP_FILES and not f.startswith("tests/docs/check_refs"):
            c.check_file(f)
    for b in c.bad:
        print(b)
    if c.bad:
        print(f"{len(c.bad)} broken citations", file=sys.stderr)
        return 1
    print(f"every file, function and section cited in {len(files)} files exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
