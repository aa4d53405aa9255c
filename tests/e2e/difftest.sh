#!/bin/sh
# difftest.sh DIFFTEST GUEST_DIR [asm|glibc|fuzz|GUEST...]
# elfemu-difftest end to end: the emulator in lockstep with the CPU must
# agree on every instruction of the guests ("0 mismatches"), faults must
# match, an unimplemented instruction must be reported as such (status 2),
# and the command line must behave.
#   asm    the libc-free guests and the command line (default: asm and glibc)
#   glibc  glibc guests, x86_64 (static, static-pie, dynamic) and ia32
#   programs  the CPU-heavy glibc guests: qsort in full; printf of doubles and
#          long doubles, C++ exceptions, sha256 and the string functions over
#          their first 200-500 thousand instructions (ptrace stepping runs at
#          20-40k instructions a second; full runs are for `difftest.sh GUEST`)
#   fuzz   2400 generated programs of random instructions, about 208k instructions (--fuzz 1 2400)
#   GUEST  the named guests from GUEST_DIR, each expected to agree
# DIFFTEST_ALLOW_UNIMPLEMENTED=1 turns "unimplemented instruction" on a glibc
# guest into a skip instead of a failure.
difftest=$1 guests=$2
shift 2
groups=${*:-asm glibc}
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then
        echo "ok: $1"
    else
        echo "FAIL: $1 (status $status)"
        sed -n '1,60p' "$tmp/err"
        fails=$((fails + 1))
    fi
}
run() { # run ARGS...: sets $status; output in $tmp/out, $tmp/err
    "$difftest" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    status=$?
}
has() { grep -q -- "$1" "$tmp/err"; }
out_has() { grep -q -- "$1" "$tmp/out"; }

agree() { # agree [--max=N] GUEST [ARGS...]: status 0 and "0 mismatches"
    opt=
    case $1 in --max=*) opt=$1; shift ;; esac
    g=$1
    shift
    if [ ! -x "$guests/$g" ]; then
        echo "skip: $g (not built)"
        return
    fi
    run $opt "$guests/$g" "$@"
    if [ $status = 2 ] && [ "${DIFFTEST_ALLOW_UNIMPLEMENTED:-0}" = 1 ] &&
        has 'emulator: unimplemented instruction'; then
        echo "skip: $g: $(sed -n 2p "$tmp/err" | tr -s ' ')"
        return
    fi
    check "$g: $(grep -m1 '^difftest:' "$tmp/err")" $([ $status = 0 ] && has ' 0 mismatches'; echo $?)
}

# Without ptrace (a locked-down container) there is nothing to test: skip (77).
run --max=1 "$guests/hello_asm64"
if [ $status = 3 ] && has 'ptrace'; then
    echo "skip: ptrace is not available here: $(head -1 "$tmp/err")"
    exit 77
fi

for group in $groups; do
    case $group in
    asm)
        run "$guests/hello_asm64"
        check "hello_asm64: lockstep to the exit" $([ $status = 0 ] && has '^difftest: 8 instructions, 0 mismatches (the guest exited with status 3 on both sides)' && out_has '^hello$'; echo $?)
        run "$guests/hello_asm32"
        check "hello_asm32 (ia32): lockstep to the exit" $([ $status = 0 ] && has ' 0 mismatches (the guest exited with status 3 on both sides)'; echo $?)
        for f in ud2:SIGILL bad:SIGILL hlt:SIGSEGV int3:SIGTRAP; do
            run "$guests/fault_${f%%:*}_asm64"
            check "fault_${f%%:*}_asm64: both sides die of ${f#*:} at the same instruction" $([ $status = 0 ] && has " 0 mismatches (the guest died of ${f#*:} at 0x[0-9a-f]* <_start+0x18> on both sides)"; echo $?)
        done
        run "$guests/difftest_ops"
        check "difftest_ops: ALU, flags, calls and replayed syscalls" $([ $status = 0 ] && has ' 0 mismatches (the guest exited with status 0 on both sides)' && out_has '^difftest_ops ok$'; echo $?)
        run --fp-interval=0 --start=100 "$guests/difftest_ops"
        check "difftest_ops with --fp-interval=0 --start=100" $([ $status = 0 ] && has ' 0 mismatches'; echo $?)
        run --fp-interval=7 --full-sync "$guests/difftest_ops"
        check "difftest_ops with --fp-interval=7 --full-sync" $([ $status = 0 ] && has ' 0 mismatches'; echo $?)
        run "$guests/difftest_unimpl"
        check "an instruction the emulator lacks: status 2, named" $([ $status = 2 ] && has '^difftest: emulator: unimplemented instruction' && has 'lsl eax, ecx'; echo $?)
        run --max=3 "$guests/hello_asm64"
        check "--max=3 stops after 3 instructions" $([ $status = 0 ] && has '^difftest: 3 instructions, 0 mismatches (stopped by --max)'; echo $?)
        run --quiet "$guests/hello_asm64"
        check "--quiet: no summary" $([ $status = 0 ] && ! has 'difftest:'; echo $?)
        run
        check "no PROGRAM: usage status 64" $([ $status = 64 ] && has 'no PROGRAM'; echo $?)
        run --frobnicate "$guests/hello_asm64"
        check "unknown option: usage status 64" $([ $status = 64 ] && has 'unknown option: --frobnicate'; echo $?)
        run --max=x "$guests/hello_asm64"
        check "--max needs a number" $([ $status = 64 ]; echo $?)
        run /nonexistent/prog
        check "missing program: 127" $([ $status = 127 ] && has 'No such file'; echo $?)
        run --help
        check "--help" $([ $status = 0 ] && out_has '^usage: elfemu-difftest'; echo $?)
        ;;
    programs)
        agree qsort_64_static 500
        agree --max=400000 printf_float_64_dyn
        agree --max=500000 cxx_exceptions_64_dyn
        agree --max=200000 sha256_64_dyn 1
        agree --max=200000 strfuncs_64_static
        agree qsort_32_static 500
        agree --max=200000 sha256_32_dyn 1
        agree --max=200000 strfuncs_32_static
        agree --max=300000 printf_float_32_dyn
        agree --max=300000 cxx_exceptions_32_dyn
        ;;
    glibc)
        agree showargs_64_static a b
        agree showargs_64_spie a b
        agree showargs_64_dyn a b
        agree selfmod_64_dyn
        agree showargs_32_static a b
        agree --max=300000 printf_float_32_static
        ;;
    fuzz)
        # The random instructions come from every extension the emulated CPU
        # claims; the native side can only run them if the host has them too.
        for f in sse4_2 ssse3 aes pclmulqdq bmi1 bmi2 adx movbe popcnt abm rdrand rdseed; do
            grep -qw "$f" /proc/cpuinfo || { echo "skip: fuzz: the host CPU lacks $f"; exit 77; }
        done
        run --fuzz 1 2400
        check "--fuzz 1 2400: $(grep -m1 '^difftest --fuzz:' "$tmp/err")" $([ $status = 0 ] && has ' 0 mismatches'; echo $?)
        ;;
    *)
        agree "$group"
        ;;
    esac
done
[ $fails = 0 ] || { echo "$fails difftest check(s) failed"; exit 1; }
