#!/bin/sh
# coverage.sh ELFEMU GUEST_DIR: --coverage=FILE writes drcov, read back by
# tests/e2e/drcov.py (which checks the structure: header, counts, blocks
# inside their modules, each block once):
#  - a dynamic guest lists the program, ld.so, libc and the vDSO; a static
#    one the program (and the vDSO);
#  - the blocks cover main and f (addresses from nm) and nothing of
#    never_called, a function that is never called;
#  - an ia32 guest's blocks cover its _start; the same run gives the same
#    file; the guest's output and status are untouched; a file that cannot
#    be created is refused before the run.
elfemu=$1 guests=$2
. "$(dirname "$0")/checks.sh"
reader="$(cd "$(dirname "$0")" && pwd)/drcov.py"
cd "$guests" || exit 1

# covered LISTING PATH-SUFFIX OFFSET END: a block of the module whose path
# ends in PATH-SUFFIX overlaps [OFFSET, END) (decimal).
covered() {
    awk -v suffix="$2" -v lo="$3" -v hi="$4" '
        $1 == "module" && substr($5, length($5) - length(suffix) + 1) == suffix { id = $2 }
        $1 == "block" && $2 == id && $3 + 0 < hi + 0 && $3 + $4 > lo + 0 { found = 1 }
        END { exit !found }' "$1"
}
# base PROGRAM: its first PT_LOAD's address (0 for a PIE), where drcov's
# module base is.
base() { echo $(($(readelf -lW "$1" | awk '$1 == "LOAD" { print $3; exit }'))); }
# sym PROGRAM NAME: "START END" of function NAME as offsets from the base.
sym() {
    set -- $(nm -S "$1" | awk -v n="$2" '$4 == n { print $1, $2 }') $(base "$1")
    echo $((0x$1 - $3)) $((0x$1 + 0x$2 - $3))
}

for g in calls_64_dyn calls_64_static; do
    env -i "$elfemu" --coverage="$tmp/$g.drcov" ./$g >"$tmp/out" 2>"$tmp/err" </dev/null
    check "$g: exit 0, its output, nothing on stderr" $([ $? = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "one two three " ] && [ ! -s "$tmp/err" ]; echo $?)
    python3 "$reader" "$tmp/$g.drcov" >"$tmp/$g.list" 2>"$tmp/err"
    check "$g: the drcov file parses" $(s=$?; [ $s = 0 ] || cat "$tmp/err" >&2; echo $s)
    for f in main f; do
        check "$g: the blocks cover $f ($(sym $g $f))" $(covered "$tmp/$g.list" "/$g" $(sym $g $f); echo $?)
    done
    check "$g: no block of never_called ($(sym $g never_called))" $(! covered "$tmp/$g.list" "/$g" $(sym $g never_called); echo $?)
done
modules() { awk '$1 == "module" { n = split($5, p, "/"); print p[n] }' "$1" | sort | tr '\n' ' '; }
check "calls_64_dyn: modules: the program, ld.so, libc, the vDSO" $([ "$(modules "$tmp/calls_64_dyn.list")" = "[vdso] calls_64_dyn ld-linux-x86-64.so.2 libc.so.6 " ]; echo $?)
check "calls_64_static: modules: the program, the vDSO" $([ "$(modules "$tmp/calls_64_static.list")" = "[vdso] calls_64_static " ]; echo $?)
check "calls_64_static: the module's base is the program's first address" $(grep -q "^module [0-9]* $(printf '%#x' "$(base calls_64_static)") .*/calls_64_static\$" "$tmp/calls_64_static.list"; echo $?)
env -i "$elfemu" --coverage="$tmp/again.drcov" ./calls_64_dyn >/dev/null 2>&1 </dev/null
check "the same run, the same file" $(cmp -s "$tmp/again.drcov" "$tmp/calls_64_dyn.drcov"; echo $?)

env -i "$elfemu" --coverage "$tmp/h32.drcov" ./hello_asm32 >/dev/null 2>&1 </dev/null
check "hello_asm32 (ia32): exit 3" $([ $? = 3 ]; echo $?)
python3 "$reader" "$tmp/h32.drcov" >"$tmp/h32.list"
start=$((0x$(nm hello_asm32 | awk '$3 == "_start" { print $1 }') - $(base hello_asm32)))
check "hello_asm32: the blocks cover _start" $(covered "$tmp/h32.list" /hello_asm32 $start $((start + 1)); echo $?)

"$elfemu" --coverage=/nonexistent/dir/x.drcov ./calls_64_static >"$tmp/out" 2>"$tmp/err"
check "an uncreatable file: refused before the run (one line, status 1)" $([ $? = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ]; echo $?)
"$elfemu" --coverage >/dev/null 2>"$tmp/err"
check "--coverage without a file: refused (status 2)" $([ $? = 2 ]; echo $?)

checks_done
