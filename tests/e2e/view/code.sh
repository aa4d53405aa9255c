#!/bin/sh
# code.sh VIEWER ELFEMU GUEST_DIR: elfemu-view's code pane (the `code=`
# lines of --state-file): calls through the PLT are named `printf@plt` as
# objdump names them (x86_64 and i386 PIC, lazy and IBT's .plt.sec), a
# breakpoint on `printf@plt` stops in that entry with rip named so, and
# the instructions read as --trace prints them (lowercase hex).
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
viewer=$(abs "$1") elfemu=$(abs "$2") guests=$(abs "$3")
. "$(dirname "$0")/../checks.sh"
unset DISPLAY WAYLAND_DISPLAY
cd "$guests" || exit 1

state() { # NAME AT [--script WORDS] PROGRAM ARGS...: --state-file into $tmp/NAME
    name=$1 at=$2
    shift 2
    timeout -k 5 300 "$viewer" --env-clear -E LANG=C --screenshot "$tmp/$name.png" --at="$at" \
        --state-file "$tmp/$name" "$@" >/dev/null 2>"$tmp/$name.err" </dev/null
    check "$name: the viewer ran" $([ $? = 0 ] && [ ! -s "$tmp/$name.err" ]; echo $?)
}

for g in showargs_64_dyn showargs_64_ibt showargs_32_dyn showargs_32_ibt; do
    state "$g.main" main ./$g one
    check "$g: main's call to printf names printf@plt" \
        $(grep -qE '^code=  [0-9a-f]+ call 0x[0-9a-f]+ <printf@plt>$' "$tmp/$g.main"; echo $?)
    state "$g.bp" main --script "b=printf@plt c" ./$g one
    check "$g: b=printf@plt stops there, rip named printf@plt" \
        $(grep -qE '^[re]ip=[0-9a-f]+ <printf@plt> \(changed\)$' "$tmp/$g.bp" &&
          grep -qx 'code=<printf@plt>:' "$tmp/$g.bp"; echo $?)
done

# Lowercase hex, as --trace: the same instruction, the same text.
state asm entry ./trace_asm64
"$elfemu" --trace --trace-count=4 ./trace_asm64 >/dev/null 2>"$tmp/trace"
want='mov dword ptr [rbx+0x08], 0xdeadbeef'
check "trace_asm64: --trace shows '$want'" $(grep -qF "$want" "$tmp/trace"; echo $?)
check "trace_asm64: the code pane too" $(grep -qxF "code=  0000000000401014 $want" "$tmp/asm"; echo $?)
check "no uppercase hex digit in the code pane" \
    $(! grep -hE '^code=.*0x[0-9a-f]*[A-F]' "$tmp"/*.main "$tmp/asm" >/dev/null; echo $?)
checks_done
