#!/bin/sh
# chain_trace.sh ELFEMU GUEST_DIR: --trace of a loop of short blocks that
# runs chained without it (tests/guest/chain_asm64.S, 8505 instructions,
# exit status 252) lists every instruction once, numbered 1 to 8505, and
# --trace-start in the middle of the loop cuts exactly there.
elfemu=$1 guests=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
# The sequence numbers of a trace's instruction lines.
seqs() { grep -v '^ ' "$1" | cut -d' ' -f1; }

"$elfemu" --trace "$guests/chain_asm64" >/dev/null 2>"$tmp/trace" </dev/null
check "exit status 252" $([ $? = 252 ]; echo $?)
seqs "$tmp/trace" >"$tmp/seqs"
seq 1 8505 >"$tmp/want"
check "every instruction, numbered 1..8505" $(cmp -s "$tmp/want" "$tmp/seqs"; echo $?)
check "1000 rounds of the loop's CALL" $([ "$(grep -c ' call ' "$tmp/trace")" = 1000 ]; echo $?)
check "1000 rounds of the leaf's RET" $([ "$(grep -c ' ret' "$tmp/trace")" = 1000 ]; echo $?)
"$elfemu" --trace --trace-start=4321 "$guests/chain_asm64" >/dev/null 2>"$tmp/part" </dev/null
seqs "$tmp/part" >"$tmp/seqs"
seq 4321 8505 >"$tmp/want"
check "--trace-start=4321: 4321..8505" $(cmp -s "$tmp/want" "$tmp/seqs"; echo $?)
[ $fails = 0 ]
