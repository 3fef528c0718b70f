#!/bin/sh
# unsupported_doc.sh NM LIB DOC [--write]
# The exports of the stand-in that still are unsupported.c's weak fallbacks
# (no strong definition replaced them) must be the list of docs/cudart.md's
# "Calls it does not implement" section.  Fails with the difference; with
# --write, rewrites the list in DOC from the library instead.
NM=$1 LIB=$2 DOC=$3
BEGIN='<!-- unsupported exports: begin -->'
END='<!-- unsupported exports: end -->'
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT

"$NM" -D --defined-only "$LIB" | awk '$2 == "W" { sub(/@.*/, "", $3); print $3 }' |
    LC_ALL=C sort > "$T/lib" || exit 2
[ -s "$T/lib" ] || { echo "no weak exports in $LIB"; exit 1; }

if [ "$4" = "--write" ]; then
    awk -v b="$BEGIN" -v e="$END" -v list="$T/lib" '
        $0 == b { print; print "```"; while ((getline n < list) > 0) print n; print "```"; skip = 1; next }
        $0 == e { skip = 0 }
        !skip { print }' "$DOC" > "$T/doc.new" && cat "$T/doc.new" > "$DOC"
    exit $?
fi

grep -qxF "$BEGIN" "$DOC" && grep -qxF "$END" "$DOC" ||
    { echo "$DOC has no list between \"$BEGIN\" and \"$END\""; exit 1; }
awk -v b="$BEGIN" -v e="$END" '$0 == b { on = 1; next } $0 == e { on = 0 } on' "$DOC" |
    grep -E '^(cuda|__cuda)[A-Za-z0-9_]*$' | LC_ALL=C sort > "$T/doc"
if ! cmp -s "$T/lib" "$T/doc"; then
    echo "the weak exports of $LIB and the list in $DOC differ (< library, > docs):"
    diff "$T/lib" "$T/doc" | grep '^[<>]'
    echo "rewrite the list: sh $0 $NM $LIB $DOC --write"
    exit 1
fi
echo "$(wc -l < "$T/lib") unsupported exports, listed in $DOC"
