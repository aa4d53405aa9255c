#!/bin/sh
# mixedtree.sh ELFEMU GUEST_DIR: process trees that mix 32-bit and 64-bit
# programs (issue 5): a 32-bit program execs a 64-bit one and back, an
# x86_64 bash runs -m32 programs, a 32-bit program runs an x86_64 shell that
# runs 64-bit ones.  Each tree is compared with its native run (see lib.sh),
# then run once more with --strace into a file: every program of the tree
# must show up there, i.e. stayed under elfemu (a program that escaped to
# native execution would give the same output but write no trace lines).
. "$(dirname "$0")/lib.sh"
g=$2
need bash sh echo
for p in execargs_32 execargs_64 showargs_32_dyn showargs_32_static showargs_64_dyn; do
    [ -x "$g/$p" ] || { echo "FAIL: $g/$p is not built"; fails=$((fails + 1)); }
done

same "32 -> 64 -> 32 -> /bin/echo" -- "$g/execargs_32" "$g/execargs_64" "$g/execargs_32" /bin/echo "a b" c
same "64 -> 32 -> 32 static" -- "$g/execargs_64" "$g/execargs_32" "$g/showargs_32_static" "x y"
same "bash runs -m32 programs" -- /bin/bash -c \
    "'$g/showargs_32_dyn' 'x y' z; echo status \$?; '$g/showargs_32_static' | grep platform
     '$g/execargs_32' '$g/showargs_64_dyn' q | tail -3; echo \"\${PIPESTATUS[@]}\""
same "32-bit program runs sh running 64-bit programs" -- "$g/execargs_32" /bin/sh -c \
    "'$g/execargs_64'; echo status \$?; '$g/showargs_32_dyn' 1 2 | head -2"

# Every link of the chain wrote its lines under elfemu.
trace=$tmp/trace
if (cd "$tmp" && env -i PATH=/usr/bin:/bin LC_ALL=C "$elfemu" --strace --trace-file "$trace" \
        /bin/bash -c "'$g/execargs_32' '$g/execargs_64' '$g/execargs_32' /bin/echo end; true") \
        >"$tmp/out" 2>"$tmp/err"; then
    missing=
    for want in 'write(1, "32-bit link, depth 0' 'write(1, "64-bit link, depth 1' \
                'write(1, "32-bit link, depth 2' 'write(1, "end\n"'; do
        grep -qF "$want" "$trace" || missing="$missing '$want'"
    done
    if [ -z "$missing" ]; then
        echo "ok: every program of bash -> 32 -> 64 -> 32 -> echo ran under elfemu"
        passes=$((passes + 1))
    else
        echo "FAIL: not in the trace:$missing"
        fails=$((fails + 1))
    fi
else
    echo "FAIL: the traced tree failed"
    head -5 "$tmp/err"
    fails=$((fails + 1))
fi
finish
