#!/bin/sh
# install.sh PYTHON_DIR WORK_DIR: `pip install` the package offline into a
# fresh virtual environment made by Debian's python3, then import it and
# find its pytest entry point.  Exits 77 (ctest's skip), saying why, where
# venv, pip, setuptools or wheel is missing.
set -u
src=$1
work=$2
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "py_install: skipped: no python3"; exit 77; }
"$py" -c 'import venv, ensurepip, setuptools, wheel' 2>/dev/null || {
    echo "py_install: skipped: $py lacks venv, ensurepip, setuptools or wheel (python3-venv, python3-pip)"
    exit 77
}
rm -rf "$work"
mkdir -p "$work" || exit 1
# A copy: pip builds in the source directory and would leave build/ there.
cp -R "$src/pyproject.toml" "$src/README.md" "$src/streamcap" "$work/" || exit 1
"$py" -m venv --system-site-packages "$work/venv" || exit 1
# Offline: no index, and the system's setuptools and wheel build it.
"$work/venv/bin/pip" install -q --no-index --no-build-isolation "$work" || exit 1
cd "$work/venv" || exit 1
"$work/venv/bin/python" - <<'PY' || exit 1
import importlib.metadata as md, sys
import streamcap
assert streamcap.__file__.startswith(sys.prefix), streamcap.__file__
eps = [e for e in md.entry_points(group="pytest11") if e.value == "streamcap.pytest_plugin"]
assert eps, "no pytest11 entry point"
print("installed", streamcap.__version__, "at", streamcap.__file__)
PY
