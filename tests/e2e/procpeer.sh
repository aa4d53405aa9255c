#!/bin/sh
# procpeer.sh ELFEMU: what other processes see of an emulated one through
# the kernel's /proc/<pid> files: its guest command line, environment and
# auxiliary vector (the emulator points its own mm fields at the guest's).
# The guest is cat blocked on a FIFO: once our open of the FIFO for writing
# returns, cat runs its main, long after the load.
elfemu=$1
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

# PR_SET_MM_MAP exists with CONFIG_CHECKPOINT_RESTORE (Debian's kernels).
if [ -r "/boot/config-$(uname -r)" ] &&
   grep -q '^# CONFIG_CHECKPOINT_RESTORE is not set' "/boot/config-$(uname -r)"; then
    echo "skip: the kernel has no PR_SET_MM_MAP (CONFIG_CHECKPOINT_RESTORE)"
    exit 77
fi
mkfifo "$tmp/fifo" || exit 1
cat=$(command -v cat)
# view RUNNER...: start RUNNER cat FIFO, report what /proc/<pid> shows.
view() {
    env PROCPEER_MARK=here "$@" "$cat" "$tmp/fifo" >/dev/null &
    pid=$!
    exec 3>"$tmp/fifo"
    tr '\0' ' ' <"/proc/$pid/cmdline"
    echo
    tr '\0' '\n' <"/proc/$pid/environ" | grep '^PROCPEER_MARK='
    od -A n -t x8 -w16 -v "/proc/$pid/auxv" | awk '$1 == "0000000000000006" { print "AT_PAGESZ", $2 }'
    ps -o args= -p "$pid"
    exec 3>&-
    wait "$pid"
}
view >"$tmp/native"
view "$elfemu" >"$tmp/emu"
check "cmdline, environ, auxv and ps of an emulated process as natively" \
    $(cmp -s "$tmp/native" "$tmp/emu"; echo $?)
cmp -s "$tmp/native" "$tmp/emu" || diff "$tmp/native" "$tmp/emu"
check "the view is not empty" $([ "$(wc -l <"$tmp/native")" = 4 ]; echo $?)
[ $fails = 0 ]
