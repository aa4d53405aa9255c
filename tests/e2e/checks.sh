# checks.sh: sourced by the e2e scripts that print one line per check.
#   . "$(dirname "$0")/checks.sh"   $tmp: a scratch folder removed at the end
#   check NAME RESULT               "ok: NAME" when RESULT is 0, else
#                                   "FAIL: NAME" (counted)
#   checks_done                     exits 0 only when nothing failed
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

check() {
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

checks_done() {
    [ $fails = 0 ]
    exit
}
