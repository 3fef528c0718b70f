#!/bin/bash
# The bash completion loads without error, registers itself for streamcap,
# offers every command that `streamcap --help` lists, and completes
# subcommands, options and option values, and the methods 'call' can send.
#
#   check_completion.sh COMPLETION_FILE BIN_DIR
set -u
file=$1
bin=$2
fail=0

bash -n "$file" || { echo "$file: syntax error" >&2; exit 1; }
out=$(bash --norc --noprofile -c "source '$file' 2>&1 && complete -p streamcap" 2>&1)
[ "$out" = "complete -o filenames -F _streamcap streamcap" ] ||
    { echo "sourcing $file: $out" >&2; exit 1; }

# shellcheck source=/dev/null
source "$file"

# complete WORD... : COMPREPLY for the last word of `streamcap WORD...`.
complete_line() {
    COMP_WORDS=(streamcap "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _streamcap
    echo " ${COMPREPLY[*]} "
}

expect() { # WANT WORD...
    local want=$1
    shift
    local got
    got=$(complete_line "$@")
    if [[ "$got" != *" $want "* ]]; then
        echo "streamcap $* <TAB>: no '$want' in [$got]" >&2
        fail=1
    fi
}

# Every command of the help text, and each graph subcommand after 'graph'.
while read -r cmd sub; do
    expect "$cmd" ""
    [ -n "$sub" ] && expect "$sub" "$cmd" ""
done < <("$bin/streamcap" --help | sed -n '/^Commands:/,/^$/p' | grep -E '^  [a-z]' |
    sed -E 's/^  ([a-z]+)( ([a-z]+))?.*/\1 \3/')

expect graphs --socket /tmp/s.sock gr
expect --limit graphs --l
expect --label graphs --la
expect --outcome log --o
expect abandoned log --outcome ab
expect --host graphs --h
expect --host log --h
expect "$(uname -n)" graphs --host ""
expect --json graph show --j
expect --verbose replay --v
[ "$(complete_line graph show 1)" = "  " ] || { echo "a graph id has no completion" >&2; fail=1; }
expect --summary-file run --s
expect --label run --l
expect echo run ech
expect echo run -- ech
# From run's PROGRAM on, the words are the program's: no streamcap options.
[[ "$(complete_line run prog --j)" != *--json* ]] ||
    { echo "streamcap run prog --j <TAB> offers streamcap's --json" >&2; fail=1; }

# 'call' completes every method of the method table, read from the tool.
PATH="$bin:$PATH"
methods=$(sed -n 's/^    X([A-Z_]*, [a-z_]*, "\([a-z_.]*\)",.*/\1/p' "$(dirname "$0")/../../proto/sc_methods.h")
[ -n "$methods" ] || { echo "no methods found in proto/sc_methods.h" >&2; fail=1; }
for m in $methods; do
    expect "$m" call ""
done
exit $fail
