#!/bin/sh
# shells.sh ELFEMU: bash and dash scripts run under elfemu, compared with their
# native runs (stdout, exit status, stderr; see lib.sh). The POSIX scripts run
# under both shells, the bash ones under bash only.
. "$(dirname "$0")/lib.sh"
need bash dash sh sleep rev tac head basename env cat tr sort seq wc grep diff ldd sed

scripts() {
    mkdir d && printf 'one\ntwo\nthree\n' >d/lines && printf 'b\na\nc\n' >d/abc

    # Only builtins: variables, arithmetic, control flow, functions, words.
    cat >basic.sh <<'EOF'
fib() { if [ "$1" -lt 2 ]; then r=$1; else fib $(($1 - 1)); a=$r; fib $(($1 - 2)); r=$((a + r)); fi; }
fib 15; echo "fib 15 = $r"
i=0 sum=0
while [ $i -lt 100 ]; do i=$((i + 1)); sum=$((sum + i * i)); done
printf 'sum of squares %d, hex %x\n' $sum $sum
for w in alpha beta "gamma delta"; do
    case $w in a*) echo "a-word $w" ;; *\ *) echo "two words: $w" ;; *) echo "other $w" ;; esac
done
x=/usr/lib/x86_64/libfoo.so.1
echo "${x##*/} ${x%/*} ${x#/usr} ${#x} ${y:-default} ${z:=assigned} $z"
set -- one "two three" four
echo "$# args, second is '$2'"; shift 2; echo "now $# : $*"
IFS=: read -r a b c <<'X'
p:q:r
X
echo "$c$b$a"
while read -r line; do n=$((${n:-0} + 1)); echo "$n: $line"; done <d/lines
printf '%s|%5d|%-6s|%.3f\n' str 42 left 2.5
OPTIND=1
while getopts "ab:c" o -a -b val -c; do echo "opt $o ${OPTARG:-}"; done
f() { local v=inner; echo "in f: $v"; return 7; }
v=outer; f; echo "status $? and v=$v"
[ -d d ] && [ ! -e nope ] && echo tests ok
false || echo "or ok"; true && echo "and ok"
echo $((7 / 2)) $((7 % 3)) $((1 << 10)) $((0x1f)) $((-5 / 2)) $(( (3 > 2) && (1 != 1) ))
unset x; echo "x is ${x-unset}"
echo "redirected" >out.txt; read -r back <out.txt; echo "read back: $back"
exit 3
EOF

    # Here-documents read by builtins (so no process is started): quoted ones,
    # which dash also serves without a fork, under both shells...
    cat >heredoc.sh <<'EOF'
while read -r a b; do echo "[$b/$a]"; done <<'END'
1 x
2 $y
END
IFS= read -r l <<-'END'
	tab stripped
	END
echo "<$l>"
EOF
    # ...and expanding ones under bash.
    cat >heredoc_bash.sh <<'EOF'
name=world
while IFS= read -r l; do echo "$l"; done <<END
hello $name, $((6 * 7))
  indented \$ literal ${name#w}
END
while IFS= read -r l; do echo "$l"; done <<-END
	tabs stripped for $name
	END
EOF

    # Subshells, command substitution, pipes and background jobs made of
    # builtins: the shell forks but execs nothing.
    cat >forks.sh <<'EOF'
x=$(echo sub); echo "substitution: $x"
n=`printf '%s' back`; echo "backticks: $n"
echo "nested $(echo "in $(echo deeper)")"
( cd d && echo "subshell in ${PWD##*/}"; exit 4 ); echo "subshell status $?"
echo "still in ${PWD##*/}"
echo one two | { read -r a b; echo "piped: $b $a"; }
printf 'l1\nl2\nl3\n' | while read -r l; do echo "loop $l"; done
x=$(exit 5); echo "substitution status $?"
false | true; echo "pipeline status $?"
{ echo grouped; echo out; } >g.txt; while read -r l; do echo "g: $l"; done <g.txt
( echo to-stderr >&2 ) 2>&1
f() { echo "func in $1"; }; r=$(f sub); echo "$r"
EOF

    # Background jobs and wait (dash waits in sigsuspend for SIGCHLD).
    cat >jobs.sh <<'EOF'
echo bg >bg.txt & wait $!; echo "waited $?"; read -r b <bg.txt; echo "bg wrote $b"
( exit 7 ) & wait $!; echo "background status $?"
( exit 1 ) & a=$!; ( exit 2 ) & b=$!; wait $b; echo "second $?"; wait $a; echo "first $?"
sleep 10 & kill $!; wait $!; echo "killed job status $?"
sleep 10 & p=$!; kill -USR1 $p; wait $p 2>/dev/null; echo "USR1 job status $?"
for i in 1 2 3; do echo "job $i" >j$i & done; wait; cat j1 j2 j3
EOF

    # Traps: EXIT, signals the script sends itself, a trap in a subshell,
    # a handler that exits.
    cat >traps.sh <<'EOF'
trap 'echo "exit trap, status $?"' EXIT
trap 'echo got USR1' USR1
kill -USR1 $$
echo after kill
trap - USR1
trap 'echo got HUP' HUP; kill -HUP $$; trap '' HUP; kill -HUP $$; echo "HUP ignored"
( trap 'echo subshell exit' EXIT; echo in subshell )
trap 'echo got TERM; exit 9' TERM
kill -TERM $$
echo not reached
EOF

    # Programs the shell starts: each execve re-enters elfemu, so the whole
    # process tree is emulated (pipelines, #! scripts, exec, signals).
    cat >execs.sh <<'EOF'
echo hello | tr a-z A-Z | rev
seq 1 200 | sort -rn | head -3
x=$(echo inner $(basename /a/nested)); echo "[$x]"
(cd / && pwd); pwd | wc -c
for i in 1 2 3; do echo $i; done >f; cat f; wc -l <f
echo out 2>&1 | cat
sh -c 'exit 4'; echo "child shell status $?"
nonexistent-command-xyz 2>/dev/null; echo "missing command status $?"
printf '#!/bin/sh\necho script $1\nexit 6\n' >s.sh; chmod +x s.sh; ./s.sh arg; echo "script status $?"
printf 'echo no shebang $1\n' >n.sh; chmod +x n.sh; ./n.sh arg
printf 'not executable\n' >x.sh; ./x.sh 2>/dev/null; echo "no permission status $?"
env A=1 sh -c 'echo "A=$A"'
sh -c 'kill -TERM $$'; echo "killed child status $?"
exec echo replaced by exec
echo not reached
EOF

    # Redirections and file descriptors around external programs,
    # here-documents read by cat.
    cat >redirs.sh <<'EOF'
name=world
cat <<END
hello $name, $((6 * 7))
  indented \$ literal
END
cat <<-'END'
	no $expansion, tabs stripped
	END
echo "lines: $(cat d/lines | tr a-z A-Z | sort)"
ls d nope 2>&1 | sort
sort <d/abc >sorted; cat sorted
exec 3>fd3.txt; echo via fd 3 >&3; exec 3>&-; cat fd3.txt
echo append >>fd3.txt; cat fd3.txt
exec 4<d/lines; read -r first <&4; head -n 1 <&4; exec 4<&-; echo "first $first"
if seq 3 | grep -q 2; then echo "pipeline status ok"; fi
for f in d/*; do echo "file $f: $(wc -l <"$f")"; done
cat nope 2>/dev/null || echo "cat status $?"
{ echo out; echo err >&2; } 2>&1 >/dev/null | tr a-z A-Z
EOF

    # bash only: process substitution, pipefail, PIPESTATUS, coproc.
    cat >bashpipes.sh <<'EOF'
diff <(sort d/abc) <(printf 'a\nb\nc\n') && echo "process substitution ok"
while read -r l; do echo "got $l"; done < <(seq 3 | tac)
set -o pipefail; false | true; echo "pipefail $?"; set +o pipefail
true | false | true; echo "PIPESTATUS ${PIPESTATUS[*]}"
seq 5 | { sum=0; while read -r n; do sum=$((sum + n)); done; echo "sum $sum"; }
shopt -s lastpipe; set +m; seq 2 | read -r lp; echo "lastpipe $lp"
coproc { read -r l; echo "coproc got $l"; }; echo ping >&"${COPROC[1]}"; read -r r <&"${COPROC[0]}"; echo "$r"; wait
EOF

    # bash only: arrays, [[ ]], expansions.
    cat >bashisms.sh <<'EOF'
a=(zero one two three); a+=(four)
echo "${#a[@]} ${a[2]} ${a[@]:1:2} ${!a[*]}"
declare -A m=([k1]=v1 [k2]=v2); for k in k2 k1; do echo "$k=${m[$k]}"; done
s="Hello World"; echo "${s,,} ${s^^} ${s//o/0} ${s:6:3}"
[[ $s == Hel* && $s =~ W(or)ld ]] && echo "match ${BASH_REMATCH[1]}"
printf -v pv '%03d' 7; echo "printf -v $pv"
echo {a..e} {1..10..3}
mapfile -t lines <d/lines; echo "mapfile ${#lines[@]}: ${lines[1]}"
f() { echo "FUNCNAME $FUNCNAME $#"; }; f 1 2
(( i = 2 ** 10 )); echo "i=$i"
shopt -s extglob; x=aaab; echo "${x/+(a)/X}"
declare -i n=5; n+=3; echo "declare -i $n"
EOF
}
fixture scripts

for sh in bash dash; do
    same "$sh: builtins, functions, arithmetic" -- $sh basic.sh
    same "$sh: quoted here-documents" -- $sh heredoc.sh
    same "$sh: subshells, substitution, pipes of builtins" -- $sh forks.sh
    same "$sh -c with a syntax error" -- $sh -c 'if then fi'
    same "$sh: pipelines, scripts and exec of programs" -- $sh execs.sh
    same "$sh: redirections, descriptors, cat here-documents" -- $sh redirs.sh
    same "$sh: basic.sh through a pipe" -- $sh -c "$sh basic.sh | cat; echo status \$?"
    same "$sh: kill -9 of itself" -- $sh -c 'kill -9 $$'
    same "$sh: background jobs and wait" -- $sh jobs.sh
    same "$sh: traps" -- $sh traps.sh
done
same "bash: expanding here-documents" -- bash heredoc_bash.sh
same "bash: arrays, [[ ]], expansions" -- bash bashisms.sh
same "bash: process substitution, pipefail, coproc" -- bash bashpipes.sh
same "bash: a background program" -- bash -c 'sleep 0.1 & wait $!; echo "status $?"'
same "bash --version" -- bash --version
# LD_ variables a shell passes to the programs it starts are theirs (and
# their dynamic loader's), not the host loader's that loads the emulator:
# ldd runs ld.so with LD_TRACE_LOADED_OBJECTS=1; env shows the order.
same "sh: ldd, LD_ variables of started programs" -- sh -c 'ldd /bin/true | sed "s/ (0x[0-9a-f]*)//";
    X=1 LD_BIND_NOW=1 ELFEMU_GUEST_ENV_Q=2 LD_LIBRARY_PATH=/nonexistent GLIBC_TUNABLES=glibc.malloc.check=0 Y=3 env;
    LD_TRACE_LOADED_OBJECTS=1 /bin/true | sed "s/ (0x[0-9a-f]*)//"'
finish
