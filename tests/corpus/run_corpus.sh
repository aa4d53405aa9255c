#!/bin/sh
# run_corpus.sh ELFEMU OUTDIR [LIST]
#
# Runs elfemu on every case of the malformed-ELF corpus written by gen_corpus
# (LIST defaults to OUTDIR/expected.tsv: name TAB status TAB reason) and
# requires, for each one:
#   - the expected exit status, 126 or 127: no signal death, no timeout;
#   - nothing on stdout;
#   - exactly one line on stderr, free of control characters, starting with
#     "elfemu: " and containing the expected reason.
# Prints one ok/FAIL line per case and a summary; exits 1 on any failure.
# Pass OUTDIR/pending.tsv as LIST to try the cases of known loader weaknesses.
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 ELFEMU OUTDIR [LIST]" >&2
    exit 2
fi
elfemu=$1 dir=$2 list=${3:-$2/expected.tsv}
if [ ! -x "$elfemu" ] || [ -d "$elfemu" ]; then
    echo "run_corpus: $elfemu is not an executable" >&2
    exit 2
fi
if [ ! -r "$list" ]; then
    echo "run_corpus: cannot read $list" >&2
    exit 2
fi
tab=$(printf '\t')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run_corpus.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
while IFS="$tab" read -r name want reason; do
    [ -z "$name" ] && continue
    why=
    case $want in
    126|127) ;;
    *) why="bad expected status '$want' in $list" ;;
    esac
    if [ -z "$why" ]; then
        timeout 10 "$elfemu" "$dir/$name" </dev/null >"$tmp/out" 2>"$tmp/err"
        got=$?
        # Lines on stderr, counting a last line without a newline.
        nlines=$(awk 'END { print NR }' "$tmp/err")
        first=$(head -n 1 "$tmp/err")
        if [ "$got" -eq 124 ]; then
            why="timed out after 10 s"
        elif [ "$got" -gt 128 ]; then
            why="killed by signal $((got - 128))"
        elif [ "$got" -ne "$want" ]; then
            why="exit status $got, expected $want"
        elif [ -s "$tmp/out" ]; then
            why="unexpected output on stdout"
        elif [ "$nlines" -ne 1 ]; then
            why="$nlines lines on stderr, expected exactly one"
        elif [ "$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$tmp/err" | wc -c)" -ne 0 ]; then
            why="control characters on stderr"
        else
            case $first in
            "elfemu: "*) ;;
            *) why="stderr does not start with 'elfemu: '" ;;
            esac
            if [ -z "$why" ]; then
                case $first in
                *"$reason"*) ;;
                *) why="reason not found: '$reason'" ;;
                esac
            fi
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        echo "ok   $name ($want): $first"
    else
        fail=$((fail + 1))
        echo "FAIL $name: $why"
        if [ -s "$tmp/err" ]; then
            head -c 2000 "$tmp/err" | sed 's/^/     stderr| /'
        fi
        if [ -s "$tmp/out" ]; then
            head -c 2000 "$tmp/out" | sed 's/^/     stdout| /'
        fi
    fi
done <"$list"

total=$((pass + fail))
echo "run_corpus: $pass of $total cases passed, $fail failed ($list)"
if [ "$total" -eq 0 ]; then
    echo "run_corpus: no cases in $list" >&2
    exit 1
fi
[ "$fail" -eq 0 ]
