#!/bin/sh
# busybox32.sh ELFEMU SOURCE_DIR BUILD_DIR: Debian's busybox-static for i386,
# a 32-bit static program with a shell and ~270 applets, runs applet
# scripts under elfemu; each is compared with the same busybox run natively
# (stdout, exit status, stderr; see lib.sh).  tools/install-deps downloads
# the package into SOURCE_DIR/.deps; it is extracted here with dpkg-deb -x
# into BUILD_DIR/busybox32 (nothing is installed).  BUSYBOX32=path uses
# another i386 busybox instead.  Skipped (status 77) only when no package
# could be obtained.
. "$(dirname "$0")/lib.sh"
src=$2 bin=$3
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
bb=${BUSYBOX32:-}
if [ -z "$bb" ]; then
    deb=$(ls "$src"/.deps/busybox-static_*_i386.deb 2>/dev/null | tail -1)
    if [ -z "$deb" ]; then
        echo "SKIP: no busybox-static:i386 package in $src/.deps (tools/install-deps downloads it; it could not)"
        exit 77
    fi
    dir=$bin/busybox32
    bb=$dir/bin/busybox
    if [ ! -x "$bb" ] || [ "$deb" -nt "$bb" ]; then
        rm -rf "$dir"
        dpkg-deb -x "$deb" "$dir" || { echo "FAIL: dpkg-deb -x $deb"; exit 1; }
    fi
fi
case $(od -An -tx1 -j4 -N1 "$bb" 2>/dev/null) in
*01*) ;;
*) echo "FAIL: $bb is not a 32-bit ELF program"; exit 1 ;;
esac

files() {
    mkdir -p d/sub d/empty
    printf 'banana\napple\ncherry\napple\ndate\n' >d/fruit
    printf 'one two three\nfour five\n\nsix\n' >d/words
    i=0
    while [ $i -lt 200 ]; do echo "line $i $((i * i % 97))"; i=$((i + 1)); done >d/sub/numbers
    printf 'x,1\ny,22\nz,333\n' >d/sub/table.csv
    : >d/sub/zero
}
fixture files

# The shell: pipes, loops, functions, arithmetic, command substitution,
# subshells, redirections.
same "sh loops and pipes" -- "$bb" sh -c '
    i=0; while [ $i -lt 20 ]; do i=$((i + 1)); echo $((i * 7 % 11)); done | sort -n | uniq -c | head -5
    for f in d/fruit d/words; do echo "$f: $(wc -l <$f) lines"; done
    f() { [ "$1" -le 1 ] && { echo 1; return; }; echo $(( $1 * $(f $(($1 - 1))) )); }
    echo "10! = $(f 10)"
    x=$(echo hello | tr a-z A-Z); echo "${x}-${#x}-${x%L*}"
    ( cd d/sub && echo sub: $(ls) ); echo "back in $(basename $PWD)"
    case "a.tar.gz" in *.gz) echo gz ;; *) echo other ;; esac
    false || echo "false failed: $?"; sh -c "exit 3"; echo "child exited $?"'
same "sh here-document, read and redirections" -- "$bb" sh -c '
    while IFS=, read -r k v; do echo "$v=$k"; done <d/sub/table.csv
    cat <<END >out.txt
first $((6 * 7))
second
END
    echo third >>out.txt; cat out.txt; wc -l <out.txt
    ls nonexistent 2>&1 >/dev/null | wc -l; { echo to-stderr >&2; } 2>err.txt; cat err.txt
    exec 3>fd3.txt; echo via fd 3 >&3; exec 3>&-; cat fd3.txt
    printf "%05.2f|%s|%x\n" 3.14159 ok 255; printf "no newline" | wc -c
    set -- $(cat d/words); echo "$# words, last ${9:-none}"'
same "sort" -- "$bb" sh -c 'sort d/fruit; sort -r -u d/fruit; sort -t" " -k3,3n -k2,2 d/sub/numbers | head -8; sort -c d/fruit; echo "sort -c: $?"'
same "md5sum, sha256sum, cksum" -- "$bb" sh -c 'md5sum d/fruit d/words d/sub/numbers; sha256sum d/sub/numbers; cat d/sub/numbers | md5sum; md5sum d/fruit >sums; md5sum -c sums; cksum d/words'
same "wc" -- "$bb" sh -c 'wc d/fruit d/words d/sub/numbers; cat d/words | wc -l -w -c; echo -n "no newline" | wc -c'
same "tar" -- "$bb" sh -c 'tar cf t.tar d && tar tf t.tar | sort && mkdir x && tar xf t.tar -C x && cmp d/sub/numbers x/d/sub/numbers && echo same
    tar czf t.tgz d/sub && tar tzvf t.tgz | wc -l && gzip -dc t.tgz | tar tf - | sort'
same "sed" -- "$bb" sh -c 'sed -n "s/^line \([0-9]*\) \(.*\)/\2:\1/p" d/sub/numbers | head -5; sed -e "/apple/d" -e "s/an/AN/g" d/fruit; sed "1~50!d" d/sub/numbers; cp d/fruit f2 && sed -i "2,3y/ae/AE/" f2 && cat f2'
same "awk" -- "$bb" sh -c 'awk "{ s += \$3; n[\$3 % 5]++ } END { print s, NR; for (k = 0; k < 5; k++) print k, n[k] }" d/sub/numbers
    awk -F, "{ printf \"%-3s|%5.1f|%x\n\", \$1, \$2 / 3, \$2 }" d/sub/table.csv
    awk "BEGIN { x = 2 ^ 10; print x, sqrt(2), int(-3.7), substr(\"abcdef\", 2, 3), toupper(\"q\"), length(\"four\"), sprintf(\"%e\", 1/3) }"
    echo "a b c" | awk "{ \$2 = \"B\"; print; print NF }"'
same "find and xargs" -- "$bb" sh -c 'find d | sort; find d -type f -name "*.csv"; find d -type f -size 0; find d -type d -empty
    find d -type f | sort | xargs wc -l; find d -name "f*" -print0 | xargs -0 cat | sort | uniq -c
    echo 1 2 3 4 5 | xargs -n 2 echo pair'
same "text applets" -- "$bb" sh -c 'head -3 d/sub/numbers; tail -2 d/sub/numbers; cut -d" " -f2 d/words; grep -c apple d/fruit; grep -n -v e d/fruit
    cat d/words | tr -s " " | rev; seq 5 -2 -3 | paste -s -d+; expr 7 \* 6; od -c d/words | head -2; echo 3.14159 | awk "{ printf \"%05.2f\n\", \$1 }"
    echo "base64" | base64 | base64 -d; comm -12 d/fruit d/fruit | wc -l; du -s d/sub | wc -l'
same "exit statuses" -- "$bb" sh -c 'grep nothing d/fruit; echo "grep $?"; cat /nonexistent; echo "cat $?"; test -d d; echo "test $?"; exit 9'
finish
