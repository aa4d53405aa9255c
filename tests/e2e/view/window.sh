#!/bin/sh
# window.sh VIEWER GUEST_DIR
# elfemu-view's window under Xvfb: it opens, takes ten presses of `s` from
# xdotool (real X key events through the X server), a resize and `q`; the register
# pane (written by --state-file when the viewer ends) then shows the guest
# ten instructions on: icount 10, rip moved on from _start, rsp moved by the
# pushes, the last instruction's changes highlighted.  A second window gets
# a breakpoint typed at its prompt (b, main, Return) and c: it stops at
# main.  Exit 77 (skipped)
# only where Xvfb or xdotool is not installed.
viewer=$1 guests=$2
. "$(dirname "$0")/xvfb.sh"
program=$guests/showargs_64_static

# The state at the entry point, for comparison (headless).
"$viewer" --env-clear --screenshot "$tmp/entry.png" --state-file "$tmp/entry.state" "$program" one ||
    fail "the headless run failed"

cat >"$tmp/drive.sh" <<EOS
#!/bin/sh
"$viewer" --env-clear --state-file "$tmp/window.state" "$program" one >"$tmp/viewer.out" 2>&1 &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name '^elfemu-view: ' | head -1)
if [ -z "\$wid" ]; then
    echo "no window appeared"; kill \$pid; exit 1
fi
xdotool windowfocus --sync "\$wid" || { kill \$pid; exit 1; }
for i in 1 2 3 4 5 6 7 8 9 10; do
    xdotool key --delay 20 s || { kill \$pid; exit 1; }
done
# Resizable: the panes follow the new size.
xdotool windowsize --sync "\$wid" 1024 700 || { kill \$pid; exit 1; }
sleep 0.5
xdotool key q
wait \$pid
EOS
in_xvfb "$tmp/drive.sh" >"$tmp/drive.out" 2>&1 ||
    fail "the window run failed: $(cat "$tmp/drive.out" "$tmp/viewer.out" 2>/dev/null)"

# A second window: a breakpoint typed at the prompt (b, "main", Return)
# and run (c): it stops at main.
cat >"$tmp/drive2.sh" <<EOS
#!/bin/sh
"$viewer" --env-clear --state-file "$tmp/bp.state" "$program" one >"$tmp/viewer2.out" 2>&1 &
pid=\$!
wid=\$(timeout 30 xdotool search --sync --name '^elfemu-view: ' | head -1)
[ -n "\$wid" ] || { echo "no window appeared"; kill \$pid; exit 1; }
xdotool windowfocus --sync "\$wid" &&
xdotool key --delay 50 b && xdotool type --delay 50 main && xdotool key --delay 50 Return c ||
    { kill \$pid; exit 1; }
sleep 1
xdotool key q
wait \$pid
EOS
in_xvfb "$tmp/drive2.sh" >"$tmp/drive2.out" 2>&1 ||
    fail "the breakpoint run failed: $(cat "$tmp/drive2.out" "$tmp/viewer2.out" 2>/dev/null)"
grep -q '^rip=.*<main> (changed)$' "$tmp/bp.state" ||
    fail "b main, c: not stopped at main: $(grep rip "$tmp/bp.state")"

state=$tmp/window.state
[ -s "$state" ] || fail "no state file: $(cat "$tmp/drive.out" "$tmp/viewer.out")"
grep -q '^icount=0 ' "$tmp/entry.state" || fail "entry: $(cat "$tmp/entry.state")"
grep -q '^icount=10 instructions' "$state" || fail "not ten steps: $(grep icount "$state")"
grep -q '^exited=no' "$state" || fail "the guest ended"
grep -q '^rip=.*<_start+0x' "$state" || fail "rip: $(grep rip "$state")"
for r in rip rsp; do
    [ "$(grep "^$r=" "$state")" != "$(grep "^$r=" "$tmp/entry.state")" ] ||
        fail "$r did not change in the register pane"
done
grep -q '^size=1280x800$' "$tmp/entry.state" || fail "entry: $(grep size "$tmp/entry.state")"
grep -q '^size=1024x700$' "$state" || fail "not resized: $(grep size "$state")"
# The tenth instruction changed something: highlighted in the pane.
grep -q ' (changed)$' "$state" || fail "nothing highlighted as changed: $(cat "$state")"
echo "ok: a typed breakpoint stopped the run at main; the window took ten steps: $(grep '^rip=' "$state"), $(grep -c ' (changed)$' "$state") fields highlighted"
