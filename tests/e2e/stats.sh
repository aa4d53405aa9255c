#!/bin/sh
# stats.sh ELFEMU DIFFTEST GUEST_DIR: --stats.
#  - the instruction count of deterministic static programs equals what
#    elfemu-difftest counts stepping the real CPU (trace_asm64 with its REP
#    MOVSB: one instruction however many iterations, on both sides); of a
#    guest dying of a fault, one less (difftest counts the faulting step,
#    --stats retired instructions), but INT3, a trap, retires;
#  - --stats=json is one JSON object with every field, and the counts of a
#    guest with known calls (tests/guest/calls.c) are exact: 3 writes, 1
#    failing openat, f() 1000 times x its instructions, main there;
#  - the text report says the same; --stats-file; the reports of a process
#    tree (fork, execve) each parse and have their own pid;
#  - bad options are refused; no report without --stats.
# Guests run from their directory under a relative name with an empty
# environment, so that both sides of a comparison see the same stack.
elfemu=$1 difftest=$2 guests=$3
. "$(dirname "$0")/checks.sh"
cd "$guests" || exit 1
# json FILE EXPR: evaluate the Python expression EXPR over the JSON object
# d of FILE (one line), printing its value.
json() {
    python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read())
sys.stdout.write(str(eval(sys.argv[2])))' "$1" "$2"
}
# The number of instructions of function NAME in PROGRAM, up to its first ret.
insns_of() {
    objdump -d --no-show-raw-insn "$2" | awk -v f="<$1>:" '$2 == f {p = 1; next} p && /\tret/ {print n + 1; exit} p {n++}'
}

# --- the count against the CPU's
for g in trace_asm64 calls_64_static showargs_64_static hello_asm32 fault_int3_asm64 fault_ud2_asm64:1 fault_hlt_asm64:1; do
    less=${g#*:}
    [ "$less" = "$g" ] && less=0
    g=${g%:*}
    env -i "$elfemu" --stats=json --stats-file="$tmp/$g.json" ./$g one two >/dev/null 2>&1 </dev/null
    ours=$(json "$tmp/$g.json" 'd["instructions"]')
    env -i "$difftest" ./$g one two >/dev/null 2>"$tmp/dt" </dev/null
    status=$?
    if [ $status = 3 ] && grep -q ptrace "$tmp/dt"; then
        echo "skip: $g against the CPU (ptrace is not available here)"
        continue
    fi
    theirs=$(sed -n 's/^difftest: \([0-9]*\) instructions, 0 mismatches.*/\1/p' "$tmp/dt")
    check "$g: --stats counts $ours instructions, difftest ${theirs:-?} steps (less $less)" $([ -n "$theirs" ] && [ "$ours" = $((theirs - less)) ]; echo $?)
done

# --- JSON, and exact counts of a guest with known calls
env -i "$elfemu" --stats=json ./calls_64_static >"$tmp/out" 2>"$tmp/c.json" </dev/null
check "calls_64_static: exit 0, its output" $([ $? = 0 ] && [ "$(cat "$tmp/out")" = "one
two
three" ]; echo $?)
check "JSON: one object with every field" $(json "$tmp/c.json" 'sorted(d) == sorted(["pid", "program", "end", "code", "instructions", "wall_seconds", "mips", "blocks_decoded", "blocks_executed", "block_cache_hit_rate", "smc_invalidations", "syscalls", "mnemonics", "functions"]) and d["end"] == "exit" and d["code"] == 0 and d["program"] == "./calls_64_static"' | grep -qx True; echo $?)
sys() { json "$tmp/c.json" "[(s['calls'], s['errors']) for s in d['syscalls'] if s['name'] == '$1']"; }
check "write: 3 calls, no error" $([ "$(sys write)" = "[(3, 0)]" ]; echo $?)
check "openat: 1 call, 1 error" $([ "$(sys openat)" = "[(1, 1)]" ]; echo $?)
check "exit_group: 1 call" $([ "$(sys exit_group)" = "[(1, 0)]" ]; echo $?)
n=$(insns_of f calls_64_static)
check "f: 1000 x its $n instructions" $(json "$tmp/c.json" "[x['count'] for x in d['functions'] if x['name'] == 'f'] == [1000 * $n]" | grep -qx True; echo $?)
check "main among the functions, never_called not" $(json "$tmp/c.json" "'main' in [x['name'] for x in d['functions']] and 'never_called' not in [x['name'] for x in d['functions']]" | grep -qx True; echo $?)
check "mnemonics: at most 20, most executed first, within the instructions" $(json "$tmp/c.json" "0 < len(d['mnemonics']) <= 20 and [x['count'] for x in d['mnemonics']] == sorted([x['count'] for x in d['mnemonics']], reverse=True) and sum(x['count'] for x in d['mnemonics']) <= d['instructions']" | grep -qx True; echo $?)
check "blocks: decoded <= executed, hit rate between" $(json "$tmp/c.json" "0 < d['blocks_decoded'] <= d['blocks_executed'] and abs(d['block_cache_hit_rate'] - (1 - d['blocks_decoded'] / d['blocks_executed'])) < 1e-5" | grep -qx True; echo $?)

# --- the text report: the same numbers
env -i "$elfemu" --stats ./calls_64_static >/dev/null 2>"$tmp/c.txt" </dev/null
check "text: the same instruction count" $(grep -qx "instructions *$(json "$tmp/c.json" 'd["instructions"]')" "$tmp/c.txt"; echo $?)
check "text: header, openat with its failure" $(grep -q '^--- elfemu --stats: pid [0-9]*, ./calls_64_static: exited with status 0 ---$' "$tmp/c.txt" && grep -q '^  openat  *1  (1 failed)$' "$tmp/c.txt"; echo $?)

# --- a dynamic program: ld.so's and libc's functions are there too
env -i "$elfemu" --stats=json ./calls_64_dyn >/dev/null 2>"$tmp/d.json" </dev/null
check "calls_64_dyn: f 1000 times, ld.so's _dl_ functions counted" $(json "$tmp/d.json" "[x['count'] for x in d['functions'] if x['name'] == 'f'] == [1000 * $(insns_of f calls_64_dyn)] and any(x['name'].startswith('_dl_') for x in d['functions'])" | grep -qx True; echo $?)

# --- --stats-file, and a process tree (fork, execve): one report a process image
env -i "$elfemu" --stats=json --stats-file="$tmp/tree" /bin/sh -c '/bin/true; /bin/echo x; exit 4' >"$tmp/out" 2>"$tmp/err" </dev/null
check "sh -c: exit 4, its output, stderr empty" $([ $? = 4 ] && [ "$(cat "$tmp/out")" = x ] && [ ! -s "$tmp/err" ]; echo $?)
python3 - "$tmp/tree" >"$tmp/why" 2>&1 <<'EOF'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
ends = sorted(x["end"] for x in r)
# the shell exits 4; two forked children each exec (their reports end
# "execve"), and true and echo exit 0 as programs of their own.
assert len(r) == 5, len(r)
assert ends == ["execve", "execve", "exit", "exit", "exit"], ends
assert len({x["pid"] for x in r}) == 3
assert [x["code"] for x in r if x["program"] == "/bin/sh" and x["end"] == "exit"] == [4]
assert all(x["instructions"] > 0 for x in r)
EOF
check "--stats-file: the tree's 5 reports, 3 pids, each one JSON object" $(s=$?; [ $s = 0 ] || cat "$tmp/why" >&2; echo $s)

# --- options
for bad in --stats=xml --stats-file; do
    "$elfemu" --stats $bad ./trace_asm64 >/dev/null 2>"$tmp/err"
    check "$bad: refused (status 2, one line)" $([ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; echo $?)
done
env -i "$elfemu" ./calls_64_static >/dev/null 2>"$tmp/err" </dev/null
check "no --stats: no report" $([ ! -s "$tmp/err" ]; echo $?)

checks_done
