# lib.sh: sourced by the e2e scripts that run real Debian programs natively and
# under elfemu and compare the two runs. The host is the oracle.
#
#   . lib.sh ELFEMU            sets up $tmp, the counters and the functions below
#   need PROG...               each PROG must exist in /usr/bin or /bin: a missing
#                              one is a failure, never a silent pass
#   need_run WHAT -- CMD...  CMD must succeed natively (a library, module or
#                              header the cases use): when it fails both runs
#                              would fail alike and pass, so it is a failure
#   fixture FUNC               FUNC (run natively) fills the fresh work directory
#                              before every run of the following cases
#   same NAME [-n] [-i FILE] -- PROG ARGS...
#                              PROG ARGS natively, then elfemu PROG ARGS: same
#                              stdout, exit status and stderr (-n: stderr not
#                              compared; -i: stdin from FILE, relative to the
#                              work directory, default /dev/null)
#   same_sh NAME [-n] [-i FILE] -- 'SHELL TEXT'
#                              SHELL TEXT run by the host's /bin/sh; every program
#                              it starts as `E prog args` runs natively in the
#                              first run and under elfemu in the second, so pipes
#                              and redirections between emulated programs are the
#                              host shell's, not the guest's
#   finish                     prints the count and exits 0 only without failures
#
# Both runs happen in the same directory path ($tmp/w, emptied and refilled by
# the fixture in between), with the same small environment, so paths, sizes and
# names printed by the programs agree. Lines elfemu itself writes to stderr
# ("elfemu: unsupported syscall ...") are the emulator's log, not the guest's
# output: they are left out of the stderr comparison and shown on a failure.
elfemu=$1
case $elfemu in /*) ;; *) elfemu=$PWD/$elfemu ;; esac
fails=0 passes=0
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
work=$tmp/w
fixture_fn=:
case_timeout=${E2E_TIMEOUT:-120}

need() {
    for p in "$@"; do
        if [ ! -x "/usr/bin/$p" ] && [ ! -x "/bin/$p" ]; then
            echo "FAIL: $p is not installed (tools/install-deps installs it)"
            fails=$((fails + 1))
        fi
    done
}

need_run() {
    what=$1
    shift 2
    if ! (cd "$tmp" && exec env -i PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C "$@") >"$tmp/need.out" 2>&1; then
        echo "FAIL: $what: missing natively, $1 failed (tools/install-deps installs it)"
        head -5 "$tmp/need.out" | sed 's/^/  /'
        fails=$((fails + 1))
    fi
}

fixture() { fixture_fn=$1; }

# fresh_work: an empty work directory with the current fixture in it.
fresh_work() {
    chmod -R u+w "$work" 2>/dev/null
    rm -rf "$work"
    mkdir "$work" && (cd "$work" && "$fixture_fn")
}

# run_one MODE STDIN KIND ARGS...: one run in the work directory; MODE is
# native or emu; output in $tmp/MODE.out, .err, .status.
run_one() {
    mode=$1 stdin=$2 kind=$3
    shift 3
    fresh_work
    runner=
    [ "$mode" = emu ] && runner=$elfemu
    (
        cd "$work" || exit 1
        if [ "$kind" = sh ]; then
            exec env -i PATH=/usr/bin:/bin HOME="$work" LC_ALL=C TZ=UTC TERM=dumb \
                E2E_RUNNER="$runner" timeout "$case_timeout" /bin/sh -c \
                'E() { if [ -n "$E2E_RUNNER" ]; then "$E2E_RUNNER" "$@"; else "$@"; fi; }
                 '"$1"
        fi
        exec env -i PATH=/usr/bin:/bin HOME="$work" LC_ALL=C TZ=UTC TERM=dumb \
            timeout "$case_timeout" ${runner:+"$runner"} "$@"
    ) <"$stdin" >"$tmp/$mode.out" 2>"$tmp/$mode.err"
    echo $? >"$tmp/$mode.status"
}

# compare NAME KIND [-n] [-i FILE] -- ARGS...
compare() {
    name=$1 kind=$2
    shift 2
    check_err=1 stdin=/dev/null
    while [ $# -gt 0 ]; do
        case $1 in
        -n) check_err=0 ;;
        -i) stdin=$work/$2; shift ;;
        --) shift; break ;;
        *) echo "lib.sh: bad option $1 in case $name"; exit 2 ;;
        esac
        shift
    done
    # stdin names a file of the fixture: keep a copy outside the work directory.
    if [ "$stdin" != /dev/null ]; then
        fresh_work
        cp "$stdin" "$tmp/stdin" && stdin=$tmp/stdin
    fi
    run_one native "$stdin" "$kind" "$@"
    run_one emu "$stdin" "$kind" "$@"
    grep -v '^elfemu: ' "$tmp/emu.err" >"$tmp/emu.guest-err"
    ns=$(cat "$tmp/native.status") es=$(cat "$tmp/emu.status")
    why=
    [ "$ns" = "$es" ] || why="status $ns native, $es elfemu"
    cmp -s "$tmp/native.out" "$tmp/emu.out" || why="${why:+$why; }stdout differs"
    if [ $check_err = 1 ] && ! cmp -s "$tmp/native.err" "$tmp/emu.guest-err"; then
        why="${why:+$why; }stderr differs"
    fi
    if [ -z "$why" ]; then
        echo "ok: $name"
        passes=$((passes + 1))
        return 0
    fi
    echo "FAIL: $name ($why)"
    diff "$tmp/native.out" "$tmp/emu.out" | head -10 | sed 's/^/  stdout /'
    [ $check_err = 1 ] && diff "$tmp/native.err" "$tmp/emu.guest-err" | head -6 | sed 's/^/  stderr /'
    grep '^elfemu: ' "$tmp/emu.err" | sort -u | head -8 | sed 's/^/  /'
    fails=$((fails + 1))
    return 1
}

same() { n=$1; shift; compare "$n" cmd "$@"; }
same_sh() { n=$1; shift; compare "$n" sh "$@"; }

finish() {
    echo "$passes passed, $fails failure(s)"
    [ $fails = 0 ]
    exit
}
