#!/usr/bin/env bash
# docs/design.md §12 names, for every method of SC_METHODS, its handler, the
# file it is in and the store call it makes.  Check that the table lists
# exactly the methods of the table in proto/sc_methods.h and that each row
# is true of the code: the handler is defined in that file, and the store
# calls it names exist (the first one is made from that file).
set -u
root=${1:?usage: design_method_table.sh SOURCE_DIR}
doc="$root/docs/design.md"
methods="$root/proto/sc_methods.h"
fail=0
bad() { echo "design.md §12: $*" >&2; fail=1; }

rows=$(sed -n 's/^    X(\([A-Z_]*\), \([a-z_]*\), "\([a-z_.]*\)",.*/\2 \3/p' "$methods")
[ -n "$rows" ] || { echo "no methods found in $methods" >&2; exit 1; }
count=0
while read -r handler name; do
    count=$((count + 1))
    row=$(grep -F "| \`$name\` | " "$doc")
    if [ -z "$row" ]; then
        bad "no row for $name"
        continue
    fi
    [ "$(printf '%s\n' "$row" | wc -l)" -eq 1 ] || bad "several rows for $name"
    IFS='|' read -r _ m h f params store _ <<<"$row"
    h=$(echo "$h" | tr -d ' `')
    f=$(echo "$f" | tr -d ' `')
    [ "$h" = "sc_h_$handler" ] || bad "$name: handler is sc_h_$handler, the row says $h"
    [ -f "$root/$f" ] || { bad "$name: no file $f"; continue; }
    grep -q "^int sc_h_$handler(sc_req \*r)$" "$root/$f" ||
        bad "$name: sc_h_$handler is not defined in $f"
    calls=$(echo "$store" | grep -o 'sc_\(store\|cache\)_[a-z_]*')
    if [ -z "$calls" ]; then
        echo "$store" | grep -q none || bad "$name: the store column names no call and not 'none'"
        continue
    fi
    first=$(echo "$calls" | head -n 1)
    grep -q "\b$first(" "$root/$f" || bad "$name: $f does not call $first"
    for c in $calls; do
        grep -q "\b$c(" "$root/daemon/sc_store.h" "$root/daemon/sc_cache.h" ||
            bad "$name: $c is not declared in daemon/sc_store.h or daemon/sc_cache.h"
    done
done <<<"$rows"

listed=$(sed -n '/^## 12\./,/^## 13\./p' "$doc" | grep -c '^| `[a-z_]*\.[a-z_]*` | `sc_h_')
[ "$listed" -eq "$count" ] || bad "$listed method rows for $count methods"
[ "$fail" -eq 0 ] && echo "design.md §12: $count methods, every row matches the code"
exit "$fail"
