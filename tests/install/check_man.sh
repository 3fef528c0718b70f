#!/bin/sh
# The man pages tell the truth about the binaries: every option that
# `streamcapd --help` lists is in streamcapd.8; every command and option of
# `streamcap --help` and of each `streamcap COMMAND --help` is in
# streamcap.1; and groff formats both without a warning.
#
#   check_man.sh BIN_DIR MAN_DIR
# Exit status 77 (skipped), saying so, when all else passed but groff is
# not installed.
set -eu
bin=$1
man=$2
fail=0

# The page as plain words: roff's \- is a hyphen.
text() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1"; }

# Options of a help text: words starting with - in the option column.
options() { grep -oE '^ +(-[a-z], )?--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*'; }

need() { # PAGE WHAT
    if ! text "$1" | grep -qF -- "$2"; then
        echo "$(basename "$1") does not document: $2" >&2
        fail=1
    fi
}

for o in $("$bin/streamcapd" --help | options); do
    need "$man/streamcapd.8" "$o"
done

# streamcapd's options come from one table (daemon/options.c), which
# --help prints: the heads of streamcapd.8's OPTIONS entries ("--socket
# PATH", "-h, --help") are exactly its heads, argument names included.
help_heads=$("$bin/streamcapd" --help | sed -n 's/^  \(-[^ ].*\)$/\1/p' | sed 's/  .*//' | sort)
man_heads=$(awk '
    /^\.SH/ { in_opts = ($2 == "OPTIONS"); next }
    in_opts && prev == ".TP" {
        # A roff macro line: its arguments, quoted or not, run together.
        line = $0; sub(/^\.[BIR]+ /, "", line); out = ""
        while (length(line)) {
            c = substr(line, 1, 1)
            if (c == " ") { line = substr(line, 2); continue }
            if (c == "\"") { line = substr(line, 2); k = index(line, "\"") }
            else k = index(line, " ")
            if (!k) k = length(line) + 1
            out = out substr(line, 1, k - 1); line = substr(line, k + 1)
        }
        gsub(/\\-/, "-", out); print out
    }
    { prev = $0 }' "$man/streamcapd.8" | sort)
if [ "$help_heads" != "$man_heads" ]; then
    echo "streamcapd.8's OPTIONS are not those of streamcapd --help:" >&2
    printf '%s\n' "$help_heads" | while IFS= read -r h; do
        printf '%s\n' "$man_heads" | grep -qxF -- "$h" || echo "  only in --help: $h" >&2
    done
    printf '%s\n' "$man_heads" | while IFS= read -r h; do
        printf '%s\n' "$help_heads" | grep -qxF -- "$h" || echo "  only in streamcapd.8: $h" >&2
    done
    fail=1
fi

# Commands: "  graph show ID   nodes and ..." -> "graph show".
cmds=$("$bin/streamcap" --help | sed -n '/^Commands:/,/^$/p' | grep -E '^  [a-z]' |
    sed -E 's/^  ([a-z]+)( ([a-z]+))?.*/\1 \3/; s/ $//; s/ [A-Z].*//' | sed -E 's/ $//')
[ -n "$cmds" ] || { echo "no commands found in streamcap --help" >&2; exit 1; }
for o in $("$bin/streamcap" --help | sed -n '/^Options/,/^$/p' | options); do
    need "$man/streamcap.1" "$o"
done
old_ifs=$IFS
IFS='
'
for c in $cmds; do
    IFS=$old_ifs
    need "$man/streamcap.1" "$c"
    # shellcheck disable=SC2086
    for o in $("$bin/streamcap" $c --help </dev/null | sed -n '/^Options:/,/^$/p' | options); do
        need "$man/streamcap.1" "$o"
    done
done
IFS=$old_ifs

if command -v groff >/dev/null 2>&1; then
    for p in "$man/streamcap.1" "$man/streamcapd.8"; do
        w=$(groff -man -ww -z "$p" 2>&1)
        if [ -n "$w" ]; then
            echo "$(basename "$p"): groff warns: $w" >&2
            fail=1
        fi
    done
elif [ $fail = 0 ]; then
    # As tests/cudart/abi_check.sh does: the rest passed, but a check
    # that did not run must not read as passed.
    echo "check_man.sh: skipped: groff is not installed, so its warnings were not checked" \
        "(the names were)"
    exit 77
fi
exit $fail
