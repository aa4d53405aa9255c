#!/bin/sh
# compare_native.sh ELFEMU PROGRAM [ARGS...]
# The host CPU is the oracle: runs PROGRAM natively and under elfemu and
# requires the same stdout and the same exit status.  ELFEMU_OPTIONS: options
# for elfemu (split at spaces).
elfemu=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/native" 2>/dev/null
native=$?
"$elfemu" ${ELFEMU_OPTIONS:-} "$@" >"$tmp/emu" 2>"$tmp/emu.err"
emu=$?
if [ "$native" != "$emu" ] || ! cmp -s "$tmp/native" "$tmp/emu"; then
    echo "FAIL: $*: native status $native, elfemu status $emu"
    diff "$tmp/native" "$tmp/emu" | head -20
    cat "$tmp/emu.err"
    exit 1
fi
echo "ok: $*: status $native, $(wc -c <"$tmp/native") bytes of identical output"
