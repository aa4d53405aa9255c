#!/bin/sh
# bench_check.sh ELFEMU BUILD_DIR: bench/run's checking, not its timing (no
# time is asserted).  The runner must pass a right emulator and must report a
# wrong answer as WRONG and a wrong exit status as FAILED, with no time in
# the row, through wrappers around the real elfemu that spoil one or the other.
elfemu=$1 build=$2
run=$(dirname "$0")/../../bench/run
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
bench() { # bench ARGS...: sets $status and $out
    out=$("$run" "$@" -o "$tmp/results.tsv" "$build" 2>&1)
    status=$?
    printf '%s\n' "$out" | sed 's/^/  | /'
}
printf '#!/bin/sh\n"%s" "$@" | tr a-z A-Z\n' "$elfemu" >"$tmp/upper"
printf '#!/bin/sh\n"%s" "$@"\nexit 3\n' "$elfemu" >"$tmp/exit3"
chmod +x "$tmp/upper" "$tmp/exit3"

bench --check-only -w hello_static
check "elfemu itself: ok, status 0" $([ $status = 0 ] && [ "$out" = "hello_static: ok" ]; echo $?)
bench --check-only -w hello_static -e "$tmp/upper"
check "changed output: WRONG, status 1" $([ $status = 1 ] && printf '%s\n' "$out" | grep -q '^hello_static: WRONG: .*differs'; echo $?)
check "the wrong output is kept" $(grep -q 'HELLO, WORLD' "$tmp/failed/hello_static.elfemu.out"; echo $?)
bench --check-only -w hello_static -e "$tmp/exit3"
check "exit status 3: FAILED, status 1" $([ $status = 1 ] && printf '%s\n' "$out" | grep -q '^hello_static: FAILED: .*exit status 3'; echo $?)
bench -n 1 --no-qemu -w hello_static -e "$tmp/upper"
row=$(printf '%s\n' "$out" | grep '^hello_static ')
check "table: WRONG and no time or ratio" $([ $status = 1 ] && echo "$row" | grep -q ' WRONG ' &&
    [ "$(grep '^hello_static' "$tmp/results.tsv" | cut -f4,5)" = "WRONG	-" ]; echo $?)
bench -n 1 --no-qemu -w hello_static
check "table: a time and a ratio" $([ $status = 0 ] &&
    grep '^hello_static' "$tmp/results.tsv" | cut -f4,5 | grep -Eq '^[0-9.]+	[0-9.]+$'; echo $?)
bench -w no_such_workload
check "unknown workload: status 2" $([ $status = 2 ] && printf '%s\n' "$out" | grep -q 'unknown workload'; echo $?)

[ $fails = 0 ] && echo "bench_check: all passed" || echo "bench_check: $fails failed"
[ $fails = 0 ]
