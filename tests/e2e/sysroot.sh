#!/bin/sh
# sysroot.sh ELFEMU GUEST_DIR: -L DIR with a small foreign root.
#
# The root holds copies of dynamic programs whose PT_INTERP names a path
# that exists only inside it (/xyzzy/ld-linux-x86-64.so.2, an absolute
# symlink to the root's own ld.so), their libraries under usr/lib with a
# relative lib -> usr/lib symlink (merged /usr), a marker file or two, and
# decoy /proc and /dev entries.  The programs cannot run natively from there;
# under elfemu -L they must run with the root's ld.so and libc (the inodes
# in their /proc/self/maps are the copies'), and the guest test procself
# must print exactly what it prints natively.
elfemu=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") guests=$2
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

check() { # check NAME CONDITION-RESULT
    if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

interp=$(readelf -lW "$guests/procself_64_dyn" 2>/dev/null |
         sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
case $interp in
/lib64/ld-linux-x86-64.so.2) ;;
*) echo "skip: the host's interpreter is '$interp', not /lib64/ld-linux-x86-64.so.2"; exit 77 ;;
esac
fake=/xyzzy/ld-linux-x86-64.so.2 # as long as $interp: patched in place
if [ -e /xyzzy ]; then
    echo "skip: /xyzzy exists on this host"
    exit 77
fi

# Where a host library goes inside the root: under usr/ (lib -> usr/lib).
place() {
    case $1 in
    /usr/*) echo "$root$1" ;;
    *) echo "$root/usr$1" ;;
    esac
}

mkdir -p "$root/usr/lib/x86_64-linux-gnu" "$root/bin" "$root/xyzzy" "$root/etc" \
    "$root/proc/self" "$root/dev" || exit 1
ln -s usr/lib "$root/lib"
ldso=$(readlink -f "$interp")
cp -L "$interp" "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" || exit 1
ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root$fake"

# add SRC NAME: copy a dynamic program to /bin/NAME in the root, its
# interpreter path patched, and the libraries it needs.
add() {
    cp "$1" "$root/bin/$2" || exit 1
    off=$(grep -obUaF "$interp" "$root/bin/$2" | head -1 | cut -d: -f1)
    [ -n "$off" ] || { echo "no PT_INTERP string in $1"; exit 1; }
    printf '%s' "$fake" | dd of="$root/bin/$2" bs=1 seek="$off" conv=notrunc 2>/dev/null
    ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | while read -r lib; do
        dest=$(place "$lib")
        [ -e "$dest" ] || { mkdir -p "$(dirname "$dest")" && cp -L "$lib" "$dest"; }
    done
}
# The program file NAME in $PATH (not a shell builtin of that name).
prog() {
    (IFS=:; for d in $PATH; do [ -f "$d/$1" ] && [ -x "$d/$1" ] && { echo "$d/$1"; exit 0; }; done
     exit 1)
}
add "$guests/procself_64_dyn" procself
add "$(prog cat)" cat
add "$(prog cat)" rootcat # a name the host has nowhere
add "$guests/sunpath_64_dyn" sunpath
add "$(prog find)" find
mkdir -p "$root/rootonly"
add "$(prog pwd)" pwd
add "$(prog dash || prog sh)" sh
echo "inside the root" >"$root/xyzzy/marker"
echo "root etc" >"$root/etc/marker"
mkdir -p "$root/usr/lib/deep/er" && echo deep >"$root/usr/lib/deep/er/marker2"
echo "decoy" >"$root/proc/version"
echo "decoy" >"$root/proc/self/cmdline"
echo "decoy" >"$root/dev/null"

"$root/bin/cat" /dev/null 2>/dev/null
check "the root's programs cannot run natively" $([ $? != 0 ]; echo $?)

# The guest test: same output as natively (paths it prints are facts only).
"$guests/procself_64_dyn" one two >"$tmp/native" 2>&1
native=$?
"$elfemu" -L "$root" /bin/procself one two >"$tmp/emu" 2>"$tmp/emu.err"
emu=$?
check "procself from the root: status $emu as natively" $([ $native = $emu ]; echo $?)
check "procself from the root: output as natively" $(cmp -s "$tmp/native" "$tmp/emu"; echo $?)
cmp -s "$tmp/native" "$tmp/emu" || { diff "$tmp/native" "$tmp/emu" | head; head -5 "$tmp/emu.err"; }

# Which files were mapped: the root's copies, by inode.
"$elfemu" -L "$root" /bin/cat /proc/self/maps >"$tmp/maps" 2>"$tmp/err"
check "cat /proc/self/maps from the root runs" $?
ino() { stat -c %i "$1"; }
libc=$(ldd "$(prog cat)" | sed -n 's/.*libc.so.6 => \(\/[^ ]*\) .*/\1/p')
libc_ino=$(ino "$(place "$libc")")
check "libc is the root's copy" \
    $(awk '/libc.so.6$/ { print $5 }' "$tmp/maps" | sort -u | grep -qx "$libc_ino"; echo $?)
check "libc is not the host's" \
    $(awk '/libc.so.6$/ { print $5 }' "$tmp/maps" | grep -qx "$(ino "$libc")"; [ $? != 0 ]; echo $?)
check "ld.so is the root's copy (through an absolute symlink)" \
    $(awk '/ld-linux-x86-64.so.2$/ { print $5 }' "$tmp/maps" | sort -u |
      grep -qx "$(ino "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")"; echo $?)
check "maps shows the program by its path in the root" \
    $(grep -q ' /bin/cat$' "$tmp/maps"; echo $?)
check "maps shows no host path of the root" $(grep -qF "$root" "$tmp/maps"; [ $? != 0 ]; echo $?)
[ "$(ino "$ldso")" != "$(ino "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")" ] ||
    echo "FAIL: the copy of ld.so has the host's inode"

# Paths the guest names.
out=$("$elfemu" -L "$root" /bin/cat /xyzzy/marker 2>&1)
check "a file only in the root" $([ "$out" = "inside the root" ]; echo $?)
out=$(PATH=/usr/local/bin:/bin "$elfemu" -L "$root" rootcat /xyzzy/marker 2>&1)
check "a bare PROGRAM name is searched in \$PATH inside the root" \
    $([ "$out" = "inside the root" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /../../../../xyzzy/../xyzzy/marker 2>&1)
check ".. stops at the root" $([ "$out" = "inside the root" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /etc/marker /etc/hostname 2>&1)
check "the root's file first, the host's when the root lacks it" \
    $([ "$out" = "root etc
$(cat /etc/hostname)" ]; echo $?)
out=$(cd "$root/usr" && "$elfemu" -L "$root" /bin/cat ../../../../../etc/marker 2>&1)
check "relative .. from a directory in the root stops at the root" \
    $([ "$out" = "root etc" ]; echo $?)
out=$(cd "$root/usr/lib" && "$elfemu" -L "$root" /bin/pwd -P 2>&1)
check "getcwd shows the root's part" $([ "$out" = /usr/lib ]; echo $?)
out=$(cd "$tmp" && "$elfemu" -L "$root" /bin/pwd -P 2>&1)
check "getcwd outside the root is the host's" $([ "$out" = "$(cd "$tmp" && pwd -P)" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/find /lib/ -name marker2 2>&1)
check "find walks the root's tree (descriptor-relative lookups)" \
    $([ "$out" = /lib/deep/er/marker2 ]; echo $?)
out=$(cd "$root/usr/lib/deep" && "$elfemu" -L "$root" /bin/find . -name marker2 2>&1)
check "find from a directory in the root" $([ "$out" = ./er/marker2 ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /proc/self/root/xyzzy/marker 2>&1)
check "/proc/self/root is the root" $([ "$out" = "inside the root" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /proc/version /dev/null 2>&1)
check "/proc and /dev are the host's" $([ "$out" = "$(cat /proc/version)" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /proc/self/cmdline 2>&1 | tr '\0' ' ')
check "/proc/self/cmdline is the guest's" $([ "$out" = "/bin/cat /proc/self/cmdline " ]; echo $?)
out=$("$elfemu" -L "$root" /bin/sh -c 'cd /usr/lib && /bin/pwd -P && exec /bin/cat /xyzzy/marker' 2>/dev/null)
check "exec and chdir inside the root" $([ "$out" = "/usr/lib
inside the root" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/sh -c 'cd /usr/lib && exec ../../../../../bin/rootcat /xyzzy/marker' 2>/dev/null)
check "exec of a relative path whose .. stops at the root" $([ "$out" = "inside the root" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/sh -c 'cd /proc/self && exec /bin/cat cmdline' 2>/dev/null | tr '\0' ' ')
check "a relative path in /proc/self" $([ "$out" = "/bin/cat cmdline " ]; echo $?)
out=$("$elfemu" -L "$root" /bin/sh -c 'echo made >/rootonly/new && /bin/cat /rootonly/new' 2>/dev/null)
check "a new file in a directory only the root has" \
    $([ "$out" = made ] && [ -f "$root/rootonly/new" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/sunpath /rootonly/sock 2>&1)
check "AF_UNIX paths inside the root, shown in the guest's view" \
    $([ "$out" = "bound /rootonly/sock
received hi from /rootonly/sock.peer" ]; echo $?)
out=$(cd "$tmp" && "$elfemu" -L "$root" /bin/sunpath "$tmp/hostsock" 2>&1)
check "AF_UNIX paths on the host" $([ "$out" = "bound $tmp/hostsock
received hi from $tmp/hostsock.peer" ]; echo $?)
out=$("$elfemu" -L "$root" /bin/cat /nonexistent-file 2>&1)
check "a file in neither: ENOENT" \
    $(echo "$out" | grep -q "/nonexistent-file: No such file or directory"; echo $?)

# Another distribution's libc: a musl program whose dynamic linker (musl's
# libc.so) exists only in the root, next to the glibc programs.
if [ -x "$guests/procself_musl_dyn" ]; then
    minterp=/lib/ld-musl-x86_64.so.1 mfake=/xyz/ld-musl-x86_64.so.1
    mkdir -p "$root/xyz"
    cp -L "$minterp" "$root$mfake" || exit 1
    cp "$guests/procself_musl_dyn" "$root/bin/procself-musl" || exit 1
    off=$(grep -obUaF "$minterp" "$root/bin/procself-musl" | head -1 | cut -d: -f1)
    printf '%s' "$mfake" | dd of="$root/bin/procself-musl" bs=1 seek="$off" conv=notrunc 2>/dev/null
    "$guests/procself_musl_dyn" one two >"$tmp/native" 2>&1
    "$elfemu" -L "$root" /bin/procself-musl one two >"$tmp/emu" 2>"$tmp/emu.err"
    check "musl procself from the root: output as natively" $(cmp -s "$tmp/native" "$tmp/emu"; echo $?)
    cmp -s "$tmp/native" "$tmp/emu" || { diff "$tmp/native" "$tmp/emu" | head; head -5 "$tmp/emu.err"; }
    "$elfemu" -L "$root" /bin/procself-musl --maps >"$tmp/maps" 2>/dev/null
    check "musl's dynamic linker is the root's copy" \
        $(awk -v f="$mfake" '$6 == f { print $5 }' "$tmp/maps" | sort -u |
          grep -qx "$(ino "$root$mfake")"; echo $?)
else
    echo "skip: no musl build of procself (musl-tools missing)"
fi

[ $fails = 0 ] && echo "all sysroot checks passed" || echo "$fails sysroot checks failed"
[ $fails = 0 ]
