#!/bin/sh
# trace.sh ELFEMU GUEST_DIR EXPECTED_DIR: --trace.
#  - the libc-free guests (tests/guest/trace_asm64.S, hello_asm32.S) compared
#    line for line with expected files: Intel and AT&T syntax, --trace=mem,
#    ia32;
#  - each filter cuts exactly where it should (compared with the full trace);
#  - a glibc program's trace starts in ld.so and has main, printf and ld.so's
#    functions in their places;
#  - --trace-file, and no trace without --trace.
# The guests run from their directory under a relative name with an empty
# environment, so that the initial stack (and every stack address in the
# trace) is the same on every machine.
elfemu=$1 guests=$2 dir=$3
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$guests" || exit 1

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
same() { # same EXPECTED ACTUAL
    cmp -s "$1" "$2" && return 0
    diff "$1" "$2" | head -20 >&2
    return 1
}
run() { # run OUTPUT [OPTIONS...] PROGRAM: the trace on stderr into OUTPUT
    out=$1
    shift
    env -i "$elfemu" "$@" >"$tmp/stdout" 2>"$out" </dev/null
}
# The sequence numbers of a trace's instruction lines, on one line.
seqs() { grep -v '^ ' "$1" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//'; }
# Every instruction line of $1 is the same line of the full trace $2.
subset() { grep -v '^ ' "$1" | while IFS= read -r l; do grep -qxF -- "$l" "$2" || { echo "not in the full trace: $l" >&2; exit 1; }; done; }

run "$tmp/intel" --trace ./trace_asm64
check "trace_asm64: exit status 5" $([ $? = 5 ]; echo $?)
check "trace_asm64: Intel syntax as expected" $(same "$dir/trace_asm64.intel" "$tmp/intel"; echo $?)
run "$tmp/att" --trace --syntax=att ./trace_asm64
check "trace_asm64: AT&T syntax as expected" $(same "$dir/trace_asm64.att" "$tmp/att"; echo $?)
run "$tmp/mem" --trace=mem ./trace_asm64
check "trace_asm64: --trace=mem as expected" $(same "$dir/trace_asm64.mem" "$tmp/mem"; echo $?)
run "$tmp/h32" --trace ./hello_asm32
check "hello_asm32 (ia32): as expected" $(same "$dir/hello_asm32.intel" "$tmp/h32"; echo $?)
check "hello_asm32: the guest's output" $([ "$(cat "$tmp/stdout")" = hello ]; echo $?)

# Filters, against the full trace (instructions 1..25; outer is 9-10 and
# 14-15 with inner, 11-13, called in between).
run "$tmp/f" --trace-start=5 --trace-count=3 --trace ./trace_asm64
check "--trace-start=5 --trace-count=3: 5 6 7" $([ "$(seqs "$tmp/f")" = "5 6 7" ] && subset "$tmp/f" "$tmp/intel"; echo $?)
run "$tmp/f" --trace --trace-start=24 ./trace_asm64
check "--trace-start=24: 24 25" $([ "$(seqs "$tmp/f")" = "24 25" ] && subset "$tmp/f" "$tmp/intel"; echo $?)
run "$tmp/f" --trace --trace-count=1 ./trace_asm64
check "--trace-count=1: 1 (and the guest runs on)" $([ "$(seqs "$tmp/f")" = "1" ] && grep -q '^1 0x401000 <_start> ' "$tmp/f"; echo $?)
outer=$(nm trace_asm64 | sed -n 's/^0*\([0-9a-f]*\) t outer$/0x\1/p')
inner=$(nm trace_asm64 | sed -n 's/^0*\([0-9a-f]*\) t inner$/0x\1/p')
run "$tmp/f" --trace --trace-range="$outer-$inner" ./trace_asm64
check "--trace-range=outer-inner: 9 10 14 15" $([ "$(seqs "$tmp/f")" = "9 10 14 15" ] && subset "$tmp/f" "$tmp/intel"; echo $?)
run "$tmp/f" --trace --trace-range="$inner-$(printf '%#x' $((inner + 7)))" ./trace_asm64
check "--trace-range=inner-inner+7 (end excluded): 11 12 13" $([ "$(seqs "$tmp/f")" = "11 12 13" ]; echo $?)
run "$tmp/f" --trace --trace-sym=inner ./trace_asm64
check "--trace-sym=inner: 11 12 13" $([ "$(seqs "$tmp/f")" = "11 12 13" ] && subset "$tmp/f" "$tmp/intel"; echo $?)
run "$tmp/f" --trace --trace-sym=outer ./trace_asm64
check "--trace-sym=outer (and its callee): 9 to 15" $([ "$(seqs "$tmp/f")" = "9 10 11 12 13 14 15" ] && subset "$tmp/f" "$tmp/intel"; echo $?)
run "$tmp/f" --trace --trace-sym=outer --trace-start=12 --trace-count=2 ./trace_asm64
check "--trace-sym=outer --trace-start=12 --trace-count=2: 12 13" $([ "$(seqs "$tmp/f")" = "12 13" ]; echo $?)
run "$tmp/f" --trace=mem --trace-sym=inner ./trace_asm64
check "--trace=mem --trace-sym=inner: the accesses of 11-13 only" $([ "$(grep -c '^ ' "$tmp/f")" = 1 ] && grep -qx '    read  8 @ 0x3fffffffee30 = 0x0000000000401050' "$tmp/f"; echo $?)
run "$tmp/f" --trace --trace-sym=nosuchfunction ./trace_asm64
check "--trace-sym of an unknown name: no line, exit 5" $([ $? = 5 ] && [ ! -s "$tmp/f" ]; echo $?)

# Options refused.
for bad in --trace=bogus --syntax=arm --trace-range=5 --trace-range=0x10-0x8 --trace-count=0 --trace-start=x; do
    "$elfemu" --trace $bad ./trace_asm64 >/dev/null 2>"$tmp/err"
    check "$bad: refused (status 2, one line)" $([ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; echo $?)
done

# A glibc program (showargs exits with argc): ld.so first, then main calls
# printf (through the PLT and, the first time, ld.so's lazy resolver).
run "$tmp/g" --trace ./showargs_64_dyn one
check "showargs_64_dyn: exit status 2 and its output" $([ $? = 2 ] && grep -qx 'argv\[1\]=one' "$tmp/stdout"; echo $?)
entry=$(env -i "$elfemu" --explain-only ./showargs_64_dyn | sed -n 's/.*Execution starts at \(0x[0-9a-f]*\) (the interpreter.s entry.*/\1/p')
check "glibc: the first instruction is ld.so's entry ($entry)" $([ -n "$entry" ] && [ "$(head -1 "$tmp/g" | cut -d' ' -f1-2)" = "1 $entry" ]; echo $?)
check "glibc: main is traced" $(grep -q '^[0-9]* 0x[0-9a-f]* <main> ' "$tmp/g"; echo $?)
p=$(grep -n -m1 '^[0-9]* 0x[0-9a-f]* <printf> ' "$tmp/g" | cut -d: -f1)
check "glibc: printf is called by main" $([ -n "$p" ] && head -n "$p" "$tmp/g" | grep '<main+0x[0-9a-f]*> ' | tail -1 | grep -q ' call '; echo $?)
# ld.so's functions before main, and libc's exit after it.
m=$(grep -n -m1 '<main>' "$tmp/g" | cut -d: -f1)
check "glibc: ld.so's functions (_dl_*) before main" $(head -n "$m" "$tmp/g" | grep -q '<_dl_[a-z_]*[+>]'; echo $?)
check "glibc: exit after main" $(tail -n +"$m" "$tmp/g" | grep -q '<exit[+>]'; echo $?)
check "glibc: the sequence numbers go 1, 2, 3... without a gap" $(awk '$1 != NR { exit 1 }' "$tmp/g"; echo $?)

# Threads: each line carries its thread's id, and --trace-sym follows the
# function in every thread (threads.c runs detached() on many threads: 5
# instructions each, the last its ret).
run "$tmp/t" --trace --trace-sym=detached ./threads_64_static
check "threads: exit status as natively (5)" $([ $? = 5 ]; echo $?)
check "threads: every line is [TID] in detached" $([ -s "$tmp/t" ] && ! grep -qv '^[0-9]* \[[0-9]*\] 0x[0-9a-f]* <detached[+>]' "$tmp/t"; echo $?)
check "threads: 5 lines per thread, the last a ret" $(cut -d' ' -f2 "$tmp/t" | sort | uniq -c | awk '$1 != 5 { exit 1 }' &&
    for tid in $(cut -d' ' -f2 "$tmp/t" | sort -u | tr -d '[]'); do grep -F " [$tid] " "$tmp/t" | tail -1 | grep -q ' ret' || exit 1; done; echo $?)

# --trace-file: the file, nothing on stderr; truncated when run again.
env -i "$elfemu" --trace --trace-file "$tmp/file" ./trace_asm64 >/dev/null 2>"$tmp/err"
check "--trace-file: the file as expected, stderr empty" $(same "$dir/trace_asm64.intel" "$tmp/file" && [ ! -s "$tmp/err" ]; echo $?)
env -i "$elfemu" --trace --trace-file="$tmp/file" ./trace_asm64 >/dev/null 2>"$tmp/err"
check "--trace-file=FILE: truncates" $(same "$dir/trace_asm64.intel" "$tmp/file"; echo $?)
# The tools' files survive the guest's close_range(3, ~0) (closefrom.c): the
# trace goes on into after_close() and to the exit, the stats report and
# the --strace lines after it are written.
env -i "$elfemu" --trace --trace-file="$tmp/cf" --stats --stats-file="$tmp/cs" ./closefrom_64_static >"$tmp/cout" 2>"$tmp/err"
check "closefrom: runs as natively" $([ $? = 0 ] && [ "$(cat "$tmp/cout")" = "close_range 0, then 1" ] && [ ! -s "$tmp/err" ]; echo $?)
check "closefrom: the trace goes on after close_range" $(grep -q ' <after_close>' "$tmp/cf" && tail -1 "$tmp/cf" | grep -q ' <_exit+0x[0-9a-f]*> .* syscall'; echo $?)
check "closefrom: the stats report is written" $(grep -q 'close_range' "$tmp/cs" && grep -q 'exit_group' "$tmp/cs"; echo $?)
env -i "$elfemu" --strace --trace-file="$tmp/cx" --trace --stats ./closefrom_64_static >/dev/null 2>"$tmp/err"
check "closefrom: --strace into the shared file goes on after close_range" $(grep -q '^close_range(3, 4294967295, 0) *= 0$' "$tmp/cx" && grep -q '^write(1, "close_range 0, then 1' "$tmp/cx" && grep -q '^+++ exited with 0 +++$' "$tmp/cx"; echo $?)
run "$tmp/f" ./trace_asm64
check "without --trace: no trace" $([ $? = 5 ] && [ ! -s "$tmp/f" ]; echo $?)

[ $fails = 0 ] || exit 1
