#!/bin/sh
# strace_demo.sh ELFEMU DEMO EXPECTED_DIR DEMO32: --strace and --trace-file
# on a libc-free guest (tests/guest/strace_demo_asm64.S), and the i386
# structures with a libc-free i386 guest (tests/guest/strace_demo32.c),
# compared line for line with expected files.  Where the real strace works
# on this host, the expected files are also checked against it (the native
# oracle), minus strace's first line (the execve elfemu itself performs).
elfemu=$1 demo=$2 dir=$3 demo32=$4
exec 3>&- 4>&- # the guest's pipe must get fds 3 and 4, as in the expected files
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
same() { # same EXPECTED ACTUAL
    cmp -s "$1" "$2" && return 0
    diff "$1" "$2" | head -20 >&2
    return 1
}

"$elfemu" --strace "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
status=$?
check "--strace: exit status 0" $([ $status = 0 ]; echo $?)
check "--strace: trace on stderr as expected" $(same "$dir/strace_demo.expected" "$tmp/err"; echo $?)

# (the shell's own "Segmentation fault" goes to /dev/null)
{ (exec "$elfemu" --strace "$demo" crash >"$tmp/out" 2>"$tmp/err" </dev/null); } 2>/dev/null
status=$?
check "--strace: killed by SIGSEGV (status $status)" $([ $status = 139 ]; echo $?)
check "--strace: the fault and the death as expected" $(same "$dir/strace_demo_fault.expected" "$tmp/err"; echo $?)

"$elfemu" --strace --trace-file "$tmp/trace" "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
check "--trace-file: nothing on stderr" $([ ! -s "$tmp/err" ]; echo $?)
check "--trace-file: the file as expected" $(same "$dir/strace_demo.expected" "$tmp/trace"; echo $?)
"$elfemu" --strace --trace-file "$tmp/trace" "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
check "--trace-file: truncates" $(same "$dir/strace_demo.expected" "$tmp/trace"; echo $?)
"$elfemu" --strace --trace-file-append "$tmp/trace" "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
cat "$dir/strace_demo.expected" "$dir/strace_demo.expected" >"$tmp/twice"
check "--trace-file-append: appends" $(same "$tmp/twice" "$tmp/trace"; echo $?)
# (stdout a file as above: a write(2) to /dev/null never reads its buffer, so
# the bad buffer of the demo would not fail there, natively either)
(cd "$tmp" && "$elfemu" --strace --trace-file rel "$demo" >"$tmp/out" 2>/dev/null </dev/null)
check "--trace-file: a relative name" $(same "$dir/strace_demo.expected" "$tmp/rel"; echo $?)
"$elfemu" --strace --trace-file /nonexistent/dir/trace "$demo" >"$tmp/out" 2>"$tmp/err"
status=$?
check "--trace-file: unwritable file: status 1, one line" $([ $status = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'trace file' "$tmp/err"; echo $?)
"$elfemu" "$demo" >"$tmp/out" 2>"$tmp/err" </dev/null
check "without --strace: no trace" $([ ! -s "$tmp/err" ]; echo $?)

# exec: the re-executed elfemu traces on into the same file (appending);
# run through a short name so that the lines do not depend on the path.
ln -s "$demo" "$tmp/d"
(cd "$tmp" && "$elfemu" --strace --trace-file exectrace ./d exec >out 2>err </dev/null)
check "exec: exit status 0" $([ $? = 0 ]; echo $?)
check "exec: both programs traced into the file" $(same "$dir/strace_demo_exec.expected" "$tmp/exectrace"; echo $?)
(cd "$tmp" && "$elfemu" --strace ./d exec >out 2>err </dev/null)
check "exec: the same on stderr" $(same "$dir/strace_demo_exec.expected" "$tmp/err"; echo $?)

# fork: from the fork on, lines carry the pid of their process.  The
# processes run concurrently, so each one's lines are compared in order,
# the parent's first; pids become P and C, alignment spaces one space, the
# child's CPU times in SIGCHLD's siginfo T (strace -f shows the same lines).
"$elfemu" --strace --trace-file "$tmp/forktrace" "$demo" fork >"$tmp/out" 2>"$tmp/err" </dev/null &
ppid=$!
wait $ppid
check "fork: exit status 0" $([ $? = 0 ]; echo $?)
check "fork: the child wrote" $(grep -qx child "$tmp/out"; echo $?)
cpid=$(sed -n 's/^\[pid *'$ppid'\] fork() *= \([0-9]*\)$/\1/p' "$tmp/forktrace")
sed -e 's/^\[pid *'"$ppid"'\]/[pid P]/' -e 's/^\[pid *'"${cpid:-none}"'\]/[pid C]/' \
    -e 's/= '"${cpid:-none}"'$/= C/' -e 's/) *= /) = /' -e 's/si_pid='"${cpid:-none}"',/si_pid=C,/' \
    -e 's/si_utime=[0-9]*, si_stime=[0-9]*/si_utime=T, si_stime=T/' "$tmp/forktrace" >"$tmp/forknorm"
# The parent's SIGCHLD comes after its wait4, or before it when the child
# was quicker (natively too): checked on its own.
{ grep -v '^\[pid C\]' "$tmp/forknorm" | grep -v SIGCHLD; grep '^\[pid C\]' "$tmp/forknorm"; } >"$tmp/forksorted"
check "fork: each process's lines as expected" $(same "$dir/strace_demo_fork.expected" "$tmp/forksorted"; echo $?)
check "fork: the parent's SIGCHLD line" $([ "$(grep -c SIGCHLD "$tmp/forknorm")" = 1 ] &&
    grep -qxF '[pid P] --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=C, si_uid=0, si_status=3, si_utime=T, si_stime=T} ---' "$tmp/forknorm"; echo $?)

# ia32: every i386 structure the trace decodes, in a folder of its own (the
# guest makes a directory there).  What differs between hosts is
# normalized: the node name, sysinfo's numbers and pipefs' f_fsid.
norm32() {
    sed -e 's/nodename="[^"]*"/nodename="N"/' -e '/^sysinfo(/s/[0-9][0-9]*/N/g' \
        -e 's/f_fsid={val=\[[^]]*\]}/f_fsid={val=[F]}/' "$1"
}
mkdir "$tmp/w32"
(cd "$tmp/w32" && "$elfemu" --strace "$demo32" >out 2>trace </dev/null)
check "ia32: exit status 0" $?
check "ia32: the program's output" $(grep -qx done "$tmp/w32/out"; echo $?)
norm32 "$tmp/w32/trace" >"$tmp/w32/norm"
check "ia32: the i386 structures as expected" $(same "$dir/strace_demo32.expected" "$tmp/w32/norm"; echo $?)
# clone and waitpid: normalized as for the fork above.
"$elfemu" --strace --trace-file "$tmp/fork32" "$demo32" fork >"$tmp/out" 2>"$tmp/err" </dev/null &
ppid=$!
wait $ppid
check "ia32 fork: exit status 0" $?
cpid=$(sed -n 's/^\[pid *'$ppid'\] clone(.*) *= \([0-9]*\)$/\1/p' "$tmp/fork32")
sed -e 's/^\[pid *'"$ppid"'\]/[pid P]/' -e 's/^\[pid *'"${cpid:-none}"'\]/[pid C]/' \
    -e 's/= '"${cpid:-none}"'$/= C/' -e 's/(\('"${cpid:-none}"'\),/(C,/' -e 's/) *= /) = /' \
    "$tmp/fork32" >"$tmp/fork32norm"
{ grep -v '^\[pid C\]' "$tmp/fork32norm"; grep '^\[pid C\]' "$tmp/fork32norm"; } >"$tmp/fork32sorted"
check "ia32 fork: each process's lines as expected" $(same "$dir/strace_demo32_fork.expected" "$tmp/fork32sorted"; echo $?)

# The native oracle, where strace can trace (ptrace may be forbidden).
if command -v strace >/dev/null 2>&1 && strace -o "$tmp/probe" true 2>/dev/null; then
    # stdout to a file: /dev/null would not even read the bad pointer
    strace -o "$tmp/native" "$demo" >"$tmp/out" 2>&1 </dev/null
    tail -n +2 "$tmp/native" >"$tmp/native.tail"
    check "native strace agrees with strace_demo.expected" $(same "$dir/strace_demo.expected" "$tmp/native.tail"; echo $?)
    { (exec strace -o "$tmp/native" "$demo" crash >"$tmp/out" 2>&1 </dev/null); } 2>/dev/null
    tail -n +2 "$tmp/native" >"$tmp/native.tail"
    check "native strace agrees with strace_demo_fault.expected" $(same "$dir/strace_demo_fault.expected" "$tmp/native.tail"; echo $?)
    (cd "$tmp" && strace -o native ./d exec >out 2>&1 </dev/null)
    tail -n +2 "$tmp/native" >"$tmp/native.tail"
    check "native strace agrees with strace_demo_exec.expected" $(same "$dir/strace_demo_exec.expected" "$tmp/native.tail"; echo $?)
    mkdir "$tmp/n32"
    (cd "$tmp/n32" && strace -o native "$demo32" >out 2>/dev/null </dev/null)
    tail -n +2 "$tmp/n32/native" >"$tmp/n32/tail"
    norm32 "$tmp/n32/tail" >"$tmp/native.tail"
    check "native strace agrees with strace_demo32.expected" $(same "$dir/strace_demo32.expected" "$tmp/native.tail"; echo $?)
else
    echo "skip: the native oracle (strace cannot trace here)"
fi

[ $fails = 0 ] || exit 1
