#!/bin/sh
# runs.sh VIEWER GUEST_DIR
# elfemu-view headless (--screenshot) on guests that exec and that have
# threads, against their native runs:
# - execve: a chain of execs (x86_64 -> ia32 -> x86_64) and a guest that
#   forks and execs end with the native output, and the viewer's state is
#   the last program's (its name, its end); the same with elfemu-view copied
#   alone into a directory (no elfemu CLI beside it: the viewer starts itself
#   again on the new program);
# - threads: stopped in the first thread, stepped 60 instructions through a
#   loop that waits for a spinning thread to count: the spinner is parked
#   (the wait never ends), and `t` shows its registers; `c` lets it run and
#   the program ends as natively; a threaded guest that ends in exit() with
#   threads still blocked prints what it prints natively, and the viewer
#   shows its end;
# - signals: a guest with handlers, stepped to its end, as natively.
# Each viewer runs under timeout (a hang ends, its guests with it).
viewer=$1 guests=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset DISPLAY WAYLAND_DISPLAY
mkdir "$tmp/alone"
cp "$viewer" "$tmp/alone/elfemu-view"
[ -e "$tmp/alone/elfemu" ] && fail "the copy has an elfemu beside it"

native() { # NAME PROGRAM ARGS...: its output and "exited with status N"
    name=$1
    shift
    (cd "$tmp" && env -i LANG=C "$@") >"$tmp/$name.native" 2>&1
    echo "the program exited with status $?" >"$tmp/$name.native-status"
}
view() { # NAME VIEWER [--script WORDS] PROGRAM ARGS...: headless, --at=exit unless --script
    name=$1 v=$2
    shift 2
    at=exit
    [ "$1" = --script ] && at=entry
    (cd "$tmp" && timeout -k 5 300 env -i LANG=C "$v" --screenshot "$tmp/$name.png" --at=$at \
        --state-file "$tmp/$name.state" "$@") >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        fail "$name: viewer status $? ($(cat "$tmp/$name.err"))"
    [ -s "$tmp/$name.png" ] || fail "$name: no picture"
}
same_as_native() { # NAME NATIVE
    diff "$tmp/$2.native" "$tmp/$1.out" >/dev/null ||
        fail "$1: output differs from the native run: $(diff "$tmp/$2.native" "$tmp/$1.out" | head -5)"
    grep -qxF "status=$(cat "$tmp/$2.native-status")" "$tmp/$1.state" ||
        fail "$1: $(grep '^status=' "$tmp/$1.state"), natively $(cat "$tmp/$2.native-status")"
}

# execve: 64 -> 32 -> 64, then 64 -> 32 (the state is the 32-bit program's).
chain="$guests/execargs_64 $guests/execargs_32 $guests/execargs_64"
native chain $chain
native chain2 "$guests/execargs_64" "$guests/execargs_32"
view chain "$tmp/alone/elfemu-view" $chain
same_as_native chain chain
grep -q '^32-bit link, depth 1' "$tmp/chain.out" || fail "chain: no 32-bit link ran"
for v in "$viewer" "$tmp/alone/elfemu-view"; do
    view chain2 "$v" "$guests/execargs_64" "$guests/execargs_32"
    same_as_native chain2 chain2
    grep -qx "program=$guests/execargs_32" "$tmp/chain2.state" ||
        fail "chain2: the state is not the new program's: $(grep '^program=' "$tmp/chain2.state")"
    grep -q '^eip=' "$tmp/chain2.state" || fail "chain2: not the 32-bit program's registers"
    grep -q '^exited=yes' "$tmp/chain2.state" || fail "chain2: the new program did not end"
    # fork and exec (/bin/echo, /bin/sh, scripts, fexecve) in the children.
    native fork "$guests/forkexec_64_static"
    view fork "$v" "$guests/forkexec_64_static"
    same_as_native fork fork
done

# Threads: the spinner parked while the first thread is stepped.
spin=$guests/spinthread_64_static
steps=""
for i in $(seq 60); do steps="$steps s"; done
view parked "$viewer" --script "b=wait_for_the_spinner c$steps t" "$spin"
[ -s "$tmp/parked.out" ] && fail "parked: the first thread saw the spinner count: $(cat "$tmp/parked.out")"
grep -q '^thread=tid [0-9]* of 2 (1 parked' "$tmp/parked.state" ||
    fail "parked: t did not show the parked thread: $(grep -E '^(thread|status)=' "$tmp/parked.state")"
grep -q '^rip=.*wait_for_the_spinner' "$tmp/parked.state" &&
    fail "parked: t still shows the first thread"
# The first thread's own registers: still in the wait after the steps.
view first "$viewer" --script "b=wait_for_the_spinner c$steps t t" "$spin"
grep -Eq '^rip=.*<wait_for_the_spinner(\+0x[0-9a-f]+)?>' "$tmp/first.state" ||
    fail "parked: the first thread left the wait: $(grep '^rip=' "$tmp/first.state")"
grep -q '^thread=the first of 2' "$tmp/first.state" || fail "t t: not back at the first thread"
native spin "$spin"
view released "$viewer" --script "b=wait_for_the_spinner c s s s c" "$spin"
same_as_native released spin
# It ends in exit() with three threads blocked: the viewer holds the end
# for its picture and state.
native threads "$guests/threads_64_static"
view threads "$viewer" "$guests/threads_64_static"
same_as_native threads threads
# Signals caught, ignored and sent while the viewer steps every
# instruction (a queued signal is delivered at the step it arrives before,
# as the run loop does; a SYSCALL would otherwise wait for it for ever).
for sig in signals_64_static signals_32_static; do
    native $sig "$guests/$sig"
    view $sig "$viewer" "$guests/$sig"
    same_as_native $sig $sig
done
echo "ok: signals under single steps as natively; execs (with and without elfemu beside the viewer), fork+exec and threads as natively; a stepped thread's spinner stayed parked"
