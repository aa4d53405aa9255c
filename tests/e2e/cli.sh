#!/bin/sh
# cli.sh ELFEMU GUEST_DIR: the command line, end to end.
elfemu=$1 guests=$2
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
run() { # run ARGS...: sets $status, $out, $err
    "$elfemu" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    status=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}
one_line() { [ "$(printf '%s\n' "$err" | wc -l)" = 1 ]; }

run --help
check "--help exits 0 and shows usage" $([ $status = 0 ] && printf '%s\n' "$out" | grep -q '^usage: elfemu'; echo $?)
run
check "no PROGRAM: status 2, one line" $([ $status = 2 ] && one_line && echo "$err" | grep -q 'no PROGRAM'; echo $?)
run --frobnicate x
check "unknown option: status 2" $([ $status = 2 ] && echo "$err" | grep -q 'unknown option: --frobnicate'; echo $?)
run --seed nope x
check "--seed needs a number" $([ $status = 2 ] && one_line; echo $?)
run /nonexistent/prog
check "missing file: 127, one line" $([ $status = 127 ] && [ "$err" = "elfemu: /nonexistent/prog: No such file or directory" ]; echo $?)
run no-such-command-anywhere-xyz
check "PATH search miss: 127" $([ $status = 127 ] && one_line; echo $?)
run /
check "directory: 126" $([ $status = 126 ] && [ "$err" = "elfemu: /: Is a directory" ]; echo $?)
printf 'just text\n' >"$tmp/text"
run "$tmp/text"
check "text file: 126, one line" $([ $status = 126 ] && one_line && echo "$err" | grep -q 'not an ELF file'; echo $?)

run "$guests/hello_asm64"
check "asm hello: output and status 3" $([ $status = 3 ] && [ "$out" = hello ] && [ -z "$err" ]; echo $?)
run --explain "$guests/hello_asm64"
check "--explain narrates, then runs" $([ $status = 3 ] && printf '%s\n' "$out" | grep -q 'argc=1' && [ "$(printf '%s\n' "$out" | tail -1)" = hello ]; echo $?)
run -E FOO=bar -U HOME -0 myname --explain-only "$guests/hello_asm64" one
check "-E/-U/-0 shape argv and envp" $([ $status = 0 ] && printf '%s\n' "$out" | grep -qF "'FOO=bar\0'" && ! printf '%s\n' "$out" | grep -q "'HOME=" && printf '%s\n' "$out" | grep -q "argv.0.=.*'myname" && printf '%s\n' "$out" | grep -q "argv.1.=.*'one"; echo $?)
run -E A=1,B=two -U HOME,PATH --explain-only "$guests/hello_asm64"
check "-E and -U take comma-separated lists (qemu-user)" $([ $status = 0 ] && printf '%s\n' "$out" | grep -qF "'A=1\0'" && printf '%s\n' "$out" | grep -qF "'B=two\0'" && ! printf '%s\n' "$out" | grep -q "'HOME=\|'PATH="; echo $?)
run -E A=1,B -- "$guests/hello_asm64"
check "-E with an item lacking =: status 2" $([ $status = 2 ] && one_line; echo $?)
run --explain-only "$guests/hello_asm32"
check "ia32 explain: i686, AT_SYSINFO" $([ $status = 0 ] && printf '%s\n' "$out" | grep -qF "'i686\0'" && printf '%s\n' "$out" | grep -q 'AT_SYSINFO(32)=' && printf '%s\n' "$out" | grep -q '4-byte slots'; echo $?)

# A dynamic program: ld.so is mapped too.
dyn=$guests/showargs_64_dyn
run --explain-only "$dyn"
check "dynamic explain: interpreter, AT_BASE, vDSO" $([ $status = 0 ] && printf '%s\n' "$out" | grep -q 'PT_INTERP asks for /lib64/ld-linux-x86-64.so.2' && printf '%s\n' "$out" | grep -q 'AT_BASE(7)=0x3ff' && printf '%s\n' "$out" | grep -q 'AT_SYSINFO_EHDR(33)=' && printf '%s\n' "$out" | grep -q '\[vdso\]'; echo $?)
run --explain-only "$guests/showargs_32_dyn"
check "ia32 dynamic explain: /lib/ld-linux.so.2" $([ $status = 0 ] && printf '%s\n' "$out" | grep -q 'PT_INTERP asks for /lib/ld-linux.so.2'; echo $?)

# Determinism, --seed and --aslr.
"$elfemu" --seed 5 --explain-only "$dyn" >"$tmp/a" 2>&1
"$elfemu" --seed 5 --explain-only "$dyn" >"$tmp/b" 2>&1
check "--seed: identical explain output" $(cmp -s "$tmp/a" "$tmp/b"; echo $?)
"$elfemu" --aslr --seed 1 --explain-only "$dyn" | grep 'argc=' >"$tmp/a"
"$elfemu" --aslr --seed 2 --explain-only "$dyn" | grep 'argc=' >"$tmp/b"
check "--aslr: the stack moves with the seed" $(! cmp -s "$tmp/a" "$tmp/b"; echo $?)

# #! scripts.
printf '#!%s\n' "$guests/hello_asm64" >"$tmp/script"
chmod +x "$tmp/script"
run "$tmp/script"
check "#! script runs its interpreter" $([ $status = 3 ] && [ "$out" = hello ]; echo $?)
printf '#!/nonexistent/interp\n' >"$tmp/bad-script"
run "$tmp/bad-script"
check "#! with missing interpreter: 127" $([ $status = 127 ] && one_line && echo "$err" | grep -q 'interpreter.*/nonexistent/interp'; echo $?)

echo "$fails failure(s)"
[ $fails = 0 ]
