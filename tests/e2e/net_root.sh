#!/bin/sh
# net_root.sh ELFEMU GUEST: AF_UNIX path names are guest paths under -L ROOT
# (tests/guest/unix_root.c binds at host paths inside ROOT, then connects
# and sends by the names the guest sees).
elfemu=$1 guest=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root"
out=$("$elfemu" -L "$tmp/root" "$guest" "$tmp/root")
status=$?
want='bind at the host path: 0
listener: 0 /stream len 10
connect /stream: 0
peer: 0 /stream len 10
accepted 1
sendto /dgram: 2
recvfrom: 2 hi from /sender len 10
sendmsg /dgram: 3
recvmsg: 3 msg from /sender len 10
sendto with a 118-byte address: -1 Invalid argument
connect /missing: -1 No such file or directory'
if [ "$status" != 0 ] || [ "$out" != "$want" ]; then
    echo "FAIL: status $status"
    printf '%s\n' "$out" > "$tmp/got"
    printf '%s\n' "$want" | diff - "$tmp/got"
    exit 1
fi
echo "ok: AF_UNIX paths under -L"
