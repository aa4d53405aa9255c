#!/bin/sh
# screenshots.sh VIEWER GUEST_DIR
# elfemu-view --screenshot, headless (no display: the software renderer
# draws into a surface): at the entry point, at main and at the exit of a
# known static guest, and at the entry of a dynamic one, each a PNG of the
# size asked for that is not blank (png_stats.py: colours and ink); the
# pictures at entry and at main differ; bad requests fail with one line.
viewer=$1 guests=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset DISPLAY WAYLAND_DISPLAY
shot() { # NAME SIZE AT [--script WORDS] PROGRAM ARGS...
    name=$1 size=$2 at=$3
    shift 3
    timeout -k 5 300 "$viewer" --env-clear -E LANG=C --size "$size" --screenshot "$tmp/$name.png" --at="$at" \
        --state-file "$tmp/$name.state" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        fail "$name: exit status $? ($(cat "$tmp/$name.err"))"
    [ -s "$tmp/$name.err" ] && fail "$name: stderr: $(cat "$tmp/$name.err")"
    w=${size%x*} h=${size#*x}
    python3 "$here/png_stats.py" "$tmp/$name.png" "$w" "$h" || exit 1
}
static=$guests/showargs_64_static
shot entry 1280x800 entry "$static" one "two words"
shot main 1280x800 main "$static" one "two words"
shot small 800x500 entry "$static" one
shot exit 1280x800 exit "$static" one "two words"
shot dyn 1280x800 entry "$guests/showargs_64_dyn" one
shot ia32 1024x768 main "$guests/showargs_32_static" one

# The state each picture shows: the first instruction, main, the end.
grep -q '^icount=0 ' "$tmp/entry.state" || fail "entry: $(cat "$tmp/entry.state")"
grep -q '^rip=.*<_start>' "$tmp/entry.state" || fail "entry: rip not at _start"
grep -q '^rip=.*<main>' "$tmp/main.state" || fail "main: rip not at main: $(cat "$tmp/main.state")"
grep -q '^eip=.*<main>' "$tmp/ia32.state" || fail "ia32: eip not at main"
grep -q '^exited=yes' "$tmp/exit.state" || fail "exit: the program did not end"
grep -q '^argv\[1\]=one$' "$tmp/exit.out" || fail "exit: the guest's output: $(cat "$tmp/exit.out")"
cmp -s "$tmp/entry.png" "$tmp/main.png" && fail "the pictures at entry and at main are the same"

# The controls, by --script words (the same code as the keys): a breakpoint
# on a symbol and run; run to the next syscall; step over main's calls.
shot bp 1280x800 entry --script "b=main c" "$static" one
grep -q '^rip=.*<main>' "$tmp/bp.state" || fail "b=main c: $(grep rip "$tmp/bp.state")"
grep -q '^status=breakpoint at 0x[0-9a-f]* <main>$' "$tmp/bp.state" ||
    fail "b=main c: the status does not name the breakpoint: $(grep '^status=' "$tmp/bp.state")"
shot sys 1280x800 entry --script "y" "$static" one
grep -q '^syscalls=1$' "$tmp/sys.state" || fail "y: $(grep syscalls "$tmp/sys.state")"
grep -q '^exited=no' "$tmp/sys.state" || fail "y: the program ended"
# From main, twenty steps over: printf is stepped over whole (it makes
# syscalls: stdout's fstat) and rip is still in main.
shot over 1280x800 main --script "n n n n n n n n n n n n n n n n n n n n" "$static" one
grep -q '^rip=.*<main+0x' "$tmp/over.state" || fail "n: left main: $(grep rip "$tmp/over.state")"
calls() { sed -n 's/^syscalls=//p' "$1"; }
[ "$(calls "$tmp/over.state")" -gt "$(calls "$tmp/main.state")" ] ||
    fail "n: no syscall in the calls stepped over"
# Clicks: a pointer's row selects what it points at; AT_ENTRY's row shows
# the code at the entry point (away from main) and selects its mapping.
shot click 1280x800 main --script "click-slot=argv[1] click-slot=AT_ENTRY" "$static" one
grep -qxF "stack_selected='one\\0'" "$tmp/click.state" || fail "click argv[1]: $(grep stack_selected "$tmp/click.state")"
grep -q '^map_selected=showargs_64_static text$' "$tmp/click.state" || fail "click AT_ENTRY: map"
entry=$(grep '^rip=' "$tmp/entry.state" | sed 's/^rip=0*\([0-9a-f]*\) .*/\1/')
grep -q "^code_at=0x$entry\$" "$tmp/click.state" || fail "click AT_ENTRY: code at $entry: $(grep code_at "$tmp/click.state")"

# A guest that forks and execs: the children run on without the window
# (their execs too: runs.sh); the output is the native run's and the
# picture is the parent's, at its end.
fork=$guests/forkexec_64_static
shot fork 1280x800 exit "$fork"
grep -q '^exited=yes' "$tmp/fork.state" || fail "forkexec: the parent did not end"
(cd "$tmp" && env -i LANG=C "$fork") >"$tmp/fork.native" 2>&1
diff "$tmp/fork.native" "$tmp/fork.out" >/dev/null ||
    fail "forkexec under the viewer: $(diff "$tmp/fork.native" "$tmp/fork.out" | head -5)"

# Bad requests: one line, a non-zero status, no file.
check_error() { # WANT_STATUS ARGS...
    want=$1
    shift
    timeout -k 5 300 "$viewer" "$@" >"$tmp/err.out" 2>"$tmp/err.txt"
    st=$?
    [ "$st" = "$want" ] || fail "$*: status $st, want $want"
    [ "$(wc -l <"$tmp/err.txt")" = 1 ] || fail "$*: not one line: $(cat "$tmp/err.txt")"
    [ -e "$tmp/bad.png" ] && fail "$*: wrote a picture"
    return 0
}
check_error 1 --screenshot "$tmp/bad.png" --at=main "$guests/hello_asm64"
check_error 1 --screenshot "$tmp/bad.png" --at=soon "$static"
check_error 2 --screenshot "$tmp/bad.png" --size 10x10 "$static"
check_error 127 --screenshot "$tmp/bad.png" "$tmp/no-such-program"
check_error 1 --screenshot "$tmp/no-such-dir/bad.png" "$static"
# No display and no --screenshot: said, not a window nobody sees.
check_error 1 "$static"
echo "ok: elfemu-view screenshots"
