#!/usr/bin/env bash
# Runs the README's quick start as written: the streamcap commands, then the
# install and pkg-config build of the C example, against a daemon started
# with its defaults (the "first terminal").  Also checks that the program
# shown in the README is client/examples/quickstart.c byte for byte.
#   readme_quickstart.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
readme=$src/README.md
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"' EXIT

block() {  # block LANG N: the Nth fenced LANG block of the Quick start section
    awk -v lang="$1" -v want="$2" '/^## / {sec = ($0 == "## Quick start")}
        sec && $0 == "```" lang {inb = 1; n++; next}
        inb && /^```$/ {inb = 0; next}
        inb && n == want {print}' "$readme"
}

diff <(block c 1) "$src/client/examples/quickstart.c" ||
    { echo "README program differs from client/examples/quickstart.c" >&2; exit 1; }

first=$(block sh 1)
second=$(block sh 2)
[ -n "$first" ] && [ -n "$second" ] || { echo "quick start blocks missing" >&2; exit 1; }

# The repository root as the README assumes it: build/ and client/.
ln -s "$build" "$dir/build"
ln -s "$src/client" "$dir/client"
cd "$dir"
# The defaults, kept inside the test's directory.
mkdir -m 700 run
export XDG_RUNTIME_DIR=$dir/run XDG_STATE_HOME=$dir/state
unset STREAMCAP_SOCKET
"$build/bin/streamcapd" >daemon.out 2>daemon.err &
pid=$!
for _ in $(seq 100); do
    grep -q 'listening on' daemon.out 2>/dev/null && break
    sleep 0.1
done

out1=$(bash -euo pipefail -c "$first")
echo "$out1"
grep -q "upload happens before download" <<<"$out1"
head -c 200 demo.svg | grep -q '<svg\|<?xml' || { echo "demo.svg is not SVG" >&2; exit 1; }
grep -c '<g id="node' demo.svg | grep -qx 3 || { echo "demo.svg should draw 3 nodes" >&2; exit 1; }

out2=$(bash -euo pipefail -c "$second")
echo "$out2"
grep -qx 'graph 2: 2 nodes' <<<"$out2"
echo "README quick start: ok"
