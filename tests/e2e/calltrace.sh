#!/bin/sh
# calltrace.sh CALLTRACE GUEST_DIR: the example tracer built on the public
# API (tools/example_calltrace.c) counts calls per function:
# tests/guest/calls.c calls f() exactly 1000 times and main once (static and
# dynamic; the dynamic one's calls through the PLT named write@plt...),
# trace_asm64 calls outer and inner once each; -n limits the
# lines; the guest's output and exit status are untouched.
calltrace=$1 guests=$2
. "$(dirname "$0")/checks.sh"
cd "$guests" || exit 1

for g in calls_64_static calls_64_dyn; do
    "$calltrace" -n 100000 ./$g >"$tmp/out" 2>"$tmp/calls" </dev/null
    check "$g: exit 0, its output" $([ $? = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "one two three " ]; echo $?)
    check "$g: f called 1000 times, the most called" $(head -1 "$tmp/calls" | grep -qE '^ +1000 f$'; echo $?)
    check "$g: main called once, never_called never" $(grep -qE '^ +1 main$' "$tmp/calls" && ! grep -q never_called "$tmp/calls"; echo $?)
done
# Calls through the PLT are named as objdump names the entries.
"$calltrace" -n 1000 ./calls_64_dyn >/dev/null 2>"$tmp/calls" </dev/null
check "calls_64_dyn: write@plt 3 times, open@plt once" $(grep -qE '^ +3 write@plt$' "$tmp/calls" && grep -qE '^ +1 open@plt$' "$tmp/calls"; echo $?)
"$calltrace" ./trace_asm64 >/dev/null 2>"$tmp/calls" </dev/null
check "trace_asm64: exit 5; outer and inner once each, nothing else" $([ $? = 5 ] && [ "$(sed 's/^ *//' "$tmp/calls" | sort | tr '\n' ' ')" = "1 inner 1 outer " ]; echo $?)
"$calltrace" -n 1 ./calls_64_dyn >/dev/null 2>"$tmp/calls" </dev/null
check "-n 1: one line" $([ "$(wc -l <"$tmp/calls")" = 1 ]; echo $?)
"$calltrace" >/dev/null 2>"$tmp/err"
check "no program: usage, status 2" $([ $? = 2 ] && grep -q '^usage:' "$tmp/err"; echo $?)

checks_done
