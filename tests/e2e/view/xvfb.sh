# Sourced by the window tests (window.sh, window_runs.sh): skip (exit 77)
# where Xvfb or xdotool is missing; $tmp (removed at the end) and fail().
# in_xvfb SCRIPT runs a driver script under a fresh Xvfb server.
for tool in xvfb-run Xvfb xauth xdotool; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: $tool is not installed (tools/install-deps installs xvfb, xauth and xdotool)"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# (-r: no auto-repeat, so that a key press slowed down by a loaded machine
# is still one press: one step)
in_xvfb() {
    chmod +x "$1"
    timeout 120 xvfb-run -a -s "-screen 0 1280x800x24 -r" "$1"
}
