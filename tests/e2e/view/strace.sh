#!/bin/sh
# strace.sh VIEWER ELFEMU GUEST_DIR EXPECTED_DIR: elfemu-view's syscall pane
# shows the --strace lines.  Its text (the `strace=` lines of --state-file,
# the pane's lines oldest first) equals what `elfemu --strace --trace-file`
# writes for the same run, line for line: the libc-free demos (x86_64
# structures, a fault and the death by SIGSEGV, the i386 structures) and a
# dynamic glibc program (ld.so's calls).  Only what the host makes differ
# between two runs is normalized: the pid set_tid_address returns,
# getrandom's bytes (escapes included: a '"' byte prints as \", which made
# the old [^"]* pattern stop short now and then), sysinfo's numbers.  The
# viewer steps the guest instruction by instruction, so the lines at its
# end (`exit_group(0) = ?`, `+++ exited with 0 +++`) come from the stepping
# path.
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
viewer=$(abs "$1") elfemu=$(abs "$2") guests=$(abs "$3") expected=$(abs "$4")
. "$(dirname "$0")/../checks.sh"
unset DISPLAY WAYLAND_DISPLAY
exec 3>&- 4>&- # the demos' pipe gets fds 3 and 4, as in the expected files

norm() {
    sed -e 's/^\(set_tid_address(.*= \)[0-9]*$/\1PID/' \
        -e 's/^getrandom("\([^"\\]\|\\.\)*"/getrandom("R"/' -e '/^sysinfo(/s/[0-9][0-9]*/N/g' "$1"
}
# same NAME PROGRAM ARGS...: the pane's lines against the CLI's, from the
# folder the guest runs in (stdout a file: a write to /dev/null would not
# read the demo's bad buffer).
same() {
    name=$1
    shift
    mkdir -p "$tmp/$name/cli.d" "$tmp/$name/view.d"
    # (a shell of its own says "Segmentation fault" for the fault demo, to /dev/null)
    sh -c 'cd "$1" && shift && (env -i LANG=C "$@" >../cli.out 2>../cli.err </dev/null)' \
        sh "$tmp/$name/cli.d" "$elfemu" --strace --trace-file ../cli "$@" 2>/dev/null
    (cd "$tmp/$name/view.d" && timeout -k 5 300 "$viewer" --env-clear -E LANG=C --screenshot ../shot.png --at=exit \
        --state-file ../state "$@" >../view.out 2>../view.err </dev/null)
    check "$name: the viewer ran (status 0, nothing on stderr)" $([ $? = 0 ] && [ ! -s "$tmp/$name/view.err" ]; echo $?)
    sed -n 's/^strace=//p' "$tmp/$name/state" >"$tmp/$name/pane"
    norm "$tmp/$name/cli" >"$tmp/$name/cli.norm"
    norm "$tmp/$name/pane" >"$tmp/$name/pane.norm"
    cmp -s "$tmp/$name/cli.norm" "$tmp/$name/pane.norm" ||
        diff "$tmp/$name/cli.norm" "$tmp/$name/pane.norm" | head -10
    check "$name: the pane's lines are elfemu --strace's ($(wc -l <"$tmp/$name/cli") lines)" \
        $([ -s "$tmp/$name/cli" ] && cmp -s "$tmp/$name/cli.norm" "$tmp/$name/pane.norm"; echo $?)
    check "$name: the program's output is the CLI's" $(cmp -s "$tmp/$name/cli.out" "$tmp/$name/view.out"; echo $?)
}

same demo "$guests/strace_demo_asm64"
check "demo: the pane is the expected trace" $(cmp -s "$expected/strace_demo.expected" "$tmp/demo/pane"; echo $?)
same fault "$guests/strace_demo_asm64" crash
check "fault: ends with the signal and the death" \
    $(tail -2 "$tmp/fault/pane" | head -1 | grep -q '^--- SIGSEGV {si_signo=SIGSEGV' &&
      tail -1 "$tmp/fault/pane" | grep -qx '+++ killed by SIGSEGV +++'; echo $?)
same demo32 "$guests/strace_demo32"
same dyn "$guests/showargs_64_dyn" one "two words"
check "dyn: ld.so's calls are there" $(grep -q '^openat(AT_FDCWD, "[^"]*libc.so.6", O_RDONLY|O_CLOEXEC) = 3$' "$tmp/dyn/pane"; echo $?)
check "dyn: ends with the exit" $(tail -1 "$tmp/dyn/pane" | grep -qx '+++ exited with 3 +++'; echo $?)
checks_done
