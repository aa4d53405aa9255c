#!/bin/sh
# coreutils.sh ELFEMU SRC_DIR: Debian's coreutils under elfemu, stdout and exit
# status compared with the native run (stderr is not compared: until signals
# and sockets land, elfemu logs the calls it does not serve).
elfemu=$1 src=$2
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
same() { # same CMD...: identical stdout and status natively and under elfemu
    "$@" >"$tmp/native" 2>/dev/null
    ns=$?
    "$elfemu" "$@" >"$tmp/emu" 2>/dev/null
    es=$?
    if [ $ns = $es ] && cmp -s "$tmp/native" "$tmp/emu"; then
        echo "ok: $*"
    else
        echo "FAIL: $* (status $ns native, $es elfemu)"
        diff "$tmp/native" "$tmp/emu" | head -5
        fails=$((fails + 1))
    fi
}
same ls -l "$src/loader"
same ls -la "$src/tests/guest"
same sha256sum "$src/README.md" "$src/loader/load.c"
same seq 1 7 100
same wc "$src/README.md"
same stat -c '%s %n %F' "$src/README.md" "$src/loader"
same date -d @0 -u
same sort "$src/syscalls/list.h"
same head -c 300 "$src/cpu/cpu.h"
same cat /nonexistent-file
# files created, copied, listed and removed under elfemu
"$elfemu" mkdir -p "$tmp/d/e" && "$elfemu" cp "$src/README.md" "$tmp/d/e/r" 2>/dev/null &&
    cmp -s "$src/README.md" "$tmp/d/e/r" && "$elfemu" mv "$tmp/d/e/r" "$tmp/d/r2" &&
    "$elfemu" rm -r "$tmp/d/e" && [ "$(ls "$tmp/d")" = r2 ]
if [ $? = 0 ]; then echo "ok: mkdir cp mv rm"; else echo "FAIL: mkdir cp mv rm"; fails=$((fails + 1)); fi
echo "$fails failure(s)"
[ $fails = 0 ]
