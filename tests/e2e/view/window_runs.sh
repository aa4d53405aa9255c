#!/bin/sh
# window_runs.sh VIEWER GUEST_DIR
# elfemu-view's window under Xvfb while the guest does what blocks or
# replaces a process:
# - cat reading a pipe that stays open: run (c), it waits in read(); the
#   window still takes keys (l, then q), and q ends the viewer while the
#   read still waits (the state says where the program waits);
# - a guest that execs a 32-bit program: run (c) in the first window; the
#   new program comes up in a window of its own name, stopped at its entry
#   point, and takes steps there (s s s, q): the state is the new program's;
# - a guest that forks and execs, run in the window: it ends as natively
#   (its children do not hang on what the window's thread held).
# Exit 77 (skipped) only where Xvfb or xdotool is not installed.
viewer=$1 guests=$2
. "$(dirname "$0")/xvfb.sh"
cat=$(command -v cat)

cat >"$tmp/drive.sh" <<EOS
#!/bin/sh
mkfifo "$tmp/fifo"
sleep 300 >"$tmp/fifo" &
writer=\$!
"$viewer" --env-clear --state-file "$tmp/read.state" --script c "$cat" <"$tmp/fifo" >"$tmp/read.out" 2>&1 &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name '^elfemu-view: ' | head -1)
[ -n "\$wid" ] || { echo "no window appeared"; kill \$pid \$writer; exit 1; }
xdotool windowfocus --sync "\$wid" || { kill \$pid \$writer; exit 1; }
# Until the guest (on the viewer's main thread) waits in read(): syscall 0.
for i in \$(seq 300); do
    [ "\$(cut -d' ' -f1 /proc/\$pid/syscall 2>/dev/null)" = 0 ] && break
    sleep 0.2
done
# l toggles a pane (the window must take it), q quits.
xdotool key l q
# q ends the viewer though the read still waits (the writer lives on).
for i in \$(seq 100); do
    kill -0 \$pid 2>/dev/null || break
    sleep 0.2
done
if kill -0 \$pid 2>/dev/null; then
    echo "q did not end the viewer while the guest waits in read()"
    kill -9 \$pid; kill \$writer; exit 1
fi
wait \$pid
st=\$?
kill \$writer
exit \$st
EOS
in_xvfb "$tmp/drive.sh" >"$tmp/drive.out" 2>&1 ||
    fail "the blocked-read run failed: $(cat "$tmp/drive.out" "$tmp/read.out" 2>/dev/null)"
grep -q '^exited=no' "$tmp/read.state" || fail "read: $(cat "$tmp/read.state")"
grep -q '^status=the program waits in read()' "$tmp/read.state" ||
    fail "read: the status does not say where it waits: $(grep '^status=' "$tmp/read.state")"

# execve in the window.
(cd "$tmp" && env -i LANG=C "$guests/execargs_64" "$guests/execargs_32") >"$tmp/exec.native" 2>&1
cat >"$tmp/drive2.sh" <<EOS
#!/bin/sh
cd "$tmp"
# The guest's environment is empty: the new window finds the display all the same.
env -i LANG=C DISPLAY="\$DISPLAY" XAUTHORITY="\$XAUTHORITY" "$viewer" --env-clear --state-file "$tmp/exec.state" \
    "$guests/execargs_64" "$guests/execargs_32" >"$tmp/exec.out" 2>&1 &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name '^elfemu-view: .*/execargs_64\$' | head -1)
[ -n "\$wid" ] || { echo "no window appeared"; kill \$pid; exit 1; }
xdotool windowfocus --sync "\$wid" && xdotool key c || { kill \$pid; exit 1; }
# The old window goes away while xdotool may be looking at it (BadWindow):
# search again until the new one is there.
wid=
for i in \$(seq 150); do
    wid=\$(xdotool search --name '^elfemu-view: .*/execargs_32\$' 2>/dev/null | head -1)
    [ -n "\$wid" ] && break
    sleep 0.2
done
[ -n "\$wid" ] || { echo "no window for the new program"; kill \$pid; exit 1; }
xdotool windowfocus --sync "\$wid" && xdotool key --delay 50 s s s q || { kill \$pid; exit 1; }
wait \$pid
EOS
in_xvfb "$tmp/drive2.sh" >"$tmp/drive2.out" 2>&1 ||
    fail "the exec run failed: $(cat "$tmp/drive2.out" "$tmp/exec.out" 2>/dev/null)"
grep -qx "program=$guests/execargs_32" "$tmp/exec.state" ||
    fail "exec: the state is not the new program's: $(grep '^program=' "$tmp/exec.state")"
grep -q '^icount=3 ' "$tmp/exec.state" || fail "exec: not three steps into it: $(grep icount "$tmp/exec.state")"
grep -q '^exited=no' "$tmp/exec.state" || fail "exec: the new program ended"
# What ran before the window was closed: the first program's output, all of it.
head -n "$(wc -l <"$tmp/exec.out")" "$tmp/exec.native" | diff - "$tmp/exec.out" >/dev/null &&
    [ -s "$tmp/exec.out" ] || fail "exec: output: $(diff "$tmp/exec.native" "$tmp/exec.out")"
# fork and exec from the window's guest: the children (a copy of the viewer
# whose window thread did not come along) run on and end; the program ends
# as natively.
fork=$guests/forkexec_64_static
(cd "$tmp" && env -i LANG=C "$fork") >"$tmp/fork.native" 2>&1
last=$(tail -n 1 "$tmp/fork.native")
cat >"$tmp/drive3.sh" <<EOS
#!/bin/sh
cd "$tmp"
"$viewer" --env-clear -E LANG=C --state-file "$tmp/fork.state" --script c "$fork" >"$tmp/fork.out" 2>&1 &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name '^elfemu-view: ' | head -1)
[ -n "\$wid" ] || { echo "no window appeared"; kill \$pid; exit 1; }
for i in \$(seq 300); do
    grep -qxF "$last" "$tmp/fork.out" && break
    sleep 0.2
done
xdotool windowfocus --sync "\$wid" && xdotool key q || { kill \$pid; exit 1; }
wait \$pid
EOS
in_xvfb "$tmp/drive3.sh" >"$tmp/drive3.out" 2>&1 ||
    fail "the fork run failed: $(cat "$tmp/drive3.out")"
diff "$tmp/fork.native" "$tmp/fork.out" >/dev/null ||
    fail "fork in the window: $(diff "$tmp/fork.native" "$tmp/fork.out" | head -5)"
grep -q '^exited=yes' "$tmp/fork.state" || fail "fork: $(grep -E '^(exited|status)=' "$tmp/fork.state")"
echo "ok: the window took keys while the guest waited in read(), and q ended it; an execve brought the new program up in a new window"
