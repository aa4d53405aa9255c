#!/bin/sh
# expect_run.sh ELFEMU STATUS STDOUT PROGRAM [ARGS...]
# Runs PROGRAM under elfemu and checks its exit status and exact stdout.
elfemu=$1 want_status=$2 want_out=$3
shift 3
out=$("$elfemu" "$@")
status=$?
if [ "$status" != "$want_status" ] || [ "$out" != "$want_out" ]; then
    echo "FAIL: $*: status $status (want $want_status), stdout '$out' (want '$want_out')"
    exit 1
fi
echo "ok: $*: status $status, stdout '$out'"
