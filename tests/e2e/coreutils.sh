#!/bin/sh
# coreutils.sh ELFEMU SRC_DIR: Debian's coreutils (and a few util-linux and
# findutils programs) under elfemu, each compared with its native run: stdout,
# exit status and stderr (see lib.sh).
. "$(dirname "$0")/lib.sh"
src=$2
need ls sort sha256sum md5sum sha1sum b2sum stat date seq wc cp find tr cut head tail \
    base64 od du uniq tac nl paste join comm fold expand split dd ln readlink realpath \
    mkdir mv rm chmod touch tee printf expr factor numfmt basename dirname csplit pr cksum \
    sum shuf rev column

# A small tree with fixed contents and fixed times, so that listings agree.
tree() {
    mkdir -p d/sub/deeper d/empty
    printf 'banana\napple\ncherry\napple\n10\n9\nApple\n' >d/fruits
    seq 1 1000 >d/nums
    printf 'a:b:c\nd:e:f\ng::i\n' >d/colon
    printf '1 one\n2 two\n3 three\n' >d/left
    printf '1 uno\n3 tres\n4 quattro\n' >d/right
    printf 'tab\there\tand\tthere\n' >d/tabs
    head -c 5000 /dev/zero >d/sub/zeros
    printf 'x\n' >d/sub/deeper/x
    printf 'hello, base64 world\n' | base64 >d/b64
    ln -s ../fruits d/sub/link
    chmod 600 d/colon
    chmod 755 d/sub/deeper
    find d -exec touch -h -d @1000000000 {} +
}
fixture tree

same "ls -l" -- ls -l d
same "ls -lR --time-style=full-iso" -- ls -lR --time-style=full-iso d
same "ls -1F" -- ls -1F d d/sub
same "ls of the source tree" -- ls -l "$src/loader"
same "ls missing file" -- ls d/nope
same "sort" -- sort d/fruits
same "sort -n -r" -- sort -n -r d/fruits
same "sort -u -f" -- sort -u -f d/fruits
same "sort -t: -k2" -- sort -t: -k2 d/colon
same "sort large" -- sort -r "$src/syscalls/list.h"
same "sha256sum" -- sha256sum d/fruits d/nums d/sub/zeros
same "md5sum" -- md5sum d/fruits d/nums
same "sha1sum" -- sha1sum d/nums
same "b2sum" -- b2sum d/nums
same "cksum and sum" -- cksum d/nums
same "sum" -- sum d/nums
same "stat -c" -- stat -c '%s %n %F %a %h %Y %X' d/fruits d/sub d/sub/link d/colon
same "stat -L" -- stat -L -c '%s %F' d/sub/link
same "stat missing" -- stat d/nope
same "date -d @0 -u" -- date -d @0 -u
same "date +%s of a date" -- date -u -d '2020-02-29 12:34:56' '+%s %A %j %U'
same "seq 1 7 100" -- seq 1 7 100
same "seq -w" -- seq -w 1 3 20
same "seq floating" -- seq 0.5 0.25 3
same "wc" -- wc d/fruits d/nums d/colon
same "wc -l -w -c -m" -- wc -lwcm d/nums
same "tr upper" -i d/fruits -- tr a-z A-Z
same "tr -s" -i d/fruits -- tr -s 'p'
same "tr -d" -i d/fruits -- tr -d 'a\n'
same "cut -d: -f2" -- cut -d: -f2 d/colon
same "cut -c" -- cut -c1-3,5 d/fruits
same "head -n" -- head -n 3 d/nums
same "head -c" -- head -c 300 "$src/cpu/cpu.h"
same "tail -n" -- tail -n 4 d/nums
same "tail -c" -- tail -c 10 d/nums
same "tail +N" -- tail -n +995 d/nums
same "base64" -- base64 d/nums
same "base64 -d" -i d/b64 -- base64 -d
same "od -A x -t x1z" -- od -A x -t x1z d/fruits
same "od -c" -- od -c d/tabs
same "od -t d4 -N" -- od -A d -t d4 -N 32 d/nums
same "du -a -k" -- du -a -k d
same "du -s -b" -- du -sb d
same "uniq -c" -- uniq -c d/fruits
same "tac" -- tac d/fruits
same "nl" -- nl d/fruits
same "paste" -- paste d/left d/right
same "join" -- join d/left d/right
same "comm" -- comm -3 d/left d/right
same "fold" -- fold -w 4 d/fruits
same "expand" -- expand -t 4 d/tabs
same "dd" -- dd if=d/nums bs=100 skip=2 count=3 status=none
same "readlink" -- readlink d/sub/link
same "realpath" -- realpath -e d/sub/link d/sub/deeper/../zeros
same "basename dirname" -- basename /a/b/c.txt .txt
same "printf" -- printf '%5.2f|%-4s|%x|%o|%e|%q\n' 3.14159 ab 255 8 12345.678 'a b'
same "expr" -- expr 7 \* 6 + 1
same "expr status 1" -- expr 0 + 0
same "factor" -- factor 1234567890 97 1000000007
same "numfmt" -- numfmt --to=iec 1023 1024 1048576 123456789
same "pr" -- pr -2 -t d/nums
same "rev" -- rev d/fruits
same "column" -- column -t d/left
same "shuf with a seed" -- shuf --random-source=d/nums -n 5 d/fruits
same "cat missing" -- cat /nonexistent-file
same "mkdir missing parent" -- mkdir d/no/such

# Several programs, each under elfemu (or each native), chained by the host shell.
same_sh "cp -r then compare" -- 'E cp -r d e && diff -r d e && E ls -lR --time-style=+ e'
same_sh "cp -a keeps times" -- 'E cp -a d e && E ls -lR --time-style=full-iso e'
same_sh "mkdir cp mv rm" -- 'E mkdir -p x/y/z && E cp d/nums x/y/z/n && E mv x/y/z/n x/n2 &&
    E rm -r x/y && E ls -R x && cmp d/nums x/n2'
same_sh "ln -s, chmod, touch, stat" -- 'E ln -s nums d/l2 && E chmod 640 d/nums &&
    E touch -d @1234567890 d/nums && E stat -c "%n %a %Y %N" d/nums && E stat -c "%n %F %N" d/l2'
same_sh "find" -- 'E find d | sort; E find d -type f -size +1k; E find d -name "*i*" -printf "%p %s %m %y\n" | sort'
same_sh "find -newer, -empty, -maxdepth" -- 'E touch d/new && E find d -newer d/nums | sort && E find d -empty && E find d -maxdepth 1 | sort'
same_sh "sort | uniq -c | sort -n" -- 'E sort d/fruits | E uniq -c | E sort -n'
same_sh "tee" -- 'E seq 3 | E tee t1 t2 && cat t1 t2'
same_sh "split" -- 'E split -l 300 d/nums part. && E wc -l part.* && cat part.* | cmp - d/nums'
same_sh "csplit" -- 'E csplit -s d/nums /500/ && E wc -l xx00 xx01'
same_sh "md5sum -c" -- 'E md5sum d/fruits d/nums >sums && E md5sum -c sums && echo 1 >>d/nums; E md5sum -c sums'
same_sh "base64 round trip" -- 'E base64 d/sub/zeros | E base64 -d | cmp - d/sub/zeros && echo same'
finish
