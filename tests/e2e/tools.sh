#!/bin/sh
# tools.sh ELFEMU SRC_DIR: sqlite3, gzip, xz, zstd, tar, grep, sed, awk, diff, git
# under elfemu, compared with their native runs (stdout, exit status, stderr;
# see lib.sh). Round trips feed one emulated program's output to another
# through the host shell (same_sh) or through an emulated sh.
. "$(dirname "$0")/lib.sh"
src=$2
need sqlite3 gzip xz zstd tar make grep sed awk diff cmp git

files() {
    mkdir -p t/a/b t/c
    seq 1 20000 >t/nums
    printf 'alpha\nbeta\ngamma\nalpha beta\n' >t/a/words
    head -c 70000 /dev/zero | tr '\0' 'z' >t/a/b/zs
    printf 'x\n' >t/c/x
    ln -s ../nums t/a/link
    cat >db.sql <<'EOF'
create table fruit (name text primary key, qty integer, price real);
insert into fruit values ('apple', 3, 0.5), ('pear', 10, 0.25), ('fig', 7, 1.75);
create index by_qty on fruit (qty);
EOF
    printf 'first line\nsecond line\nthird\n' >f1
    printf 'first line\nsecond LINE\nthird\nfourth\n' >f2
    find . -exec touch -h -d @1000000000 {} +
}
fixture files

# sqlite3
same "sqlite3 :memory:" -- sqlite3 :memory: 'select 1 + 1, upper("abc"), printf("%.3f", 2.0 / 3)'
same "sqlite3 script from stdin" -i db.sql -- sqlite3 -header -column :memory: \
    '.read /dev/stdin' 'select * from fruit order by qty' 'select sum(qty * price) from fruit'
same_sh "sqlite3 database file" -- 'E sqlite3 f.db <db.sql && E sqlite3 f.db "update fruit set qty = qty + 1" &&
    E sqlite3 -csv f.db "select * from fruit order by name" ".schema" "pragma integrity_check"'
same "sqlite3 error" -- sqlite3 :memory: 'select * from nope'
same_sh "sqlite3 create, insert, join, group by" -- 'E sqlite3 j.db <db.sql &&
    E sqlite3 j.db "create table sale (fruit text references fruit(name), n integer)" \
        "insert into sale values (\"apple\", 2), (\"fig\", 1), (\"apple\", 5), (\"kiwi\", 9)" &&
    E sqlite3 -header j.db "select f.name, sum(s.n), sum(s.n) * f.price from fruit f join sale s on s.fruit = f.name group by f.name order by 1" \
        "select s.fruit, f.qty from sale s left join fruit f on f.name = s.fruit order by 1, 2" &&
    E sqlite3 j.db .dump | sha256sum'

# gzip and xz
same "gzip -c" -- gzip -c -9 -n t/nums
same_sh "gzip round trip" -- 'E gzip -c t/nums | E gzip -d | cmp - t/nums && echo same'
same_sh "gzip -t of a corrupt file" -- 'head -c 300 t/a/b/zs | gzip -n >bad.gz; printf garbage >>bad.gz; E gzip -t bad.gz'

same "xz -c" -- xz -c -T1 t/nums
same_sh "xz round trip" -- 'E xz -c -T1 t/a/b/zs | E xz -d | cmp - t/a/b/zs && echo same'
same_sh "xz file in place, -l, -t" -- 'E xz -T1 -6e t/nums && E xz -t t/nums.xz && E xz -l t/nums.xz && E unxz t/nums.xz && sha256sum t/nums'
same_sh "xz -d of a corrupt file" -- 'xz -c t/nums | head -c 3000 >bad.xz; E xz -d -c bad.xz | wc -c'
same_sh "gzip file in place, -l" -- 'E gzip -n t/nums && ls t && E gzip -l t/nums.gz && E gunzip t/nums.gz && sha256sum t/nums'

same "zstd -T2 (worker threads)" -- zstd -c -T2 -5 --no-progress t/nums
same_sh "zstd round trip" -- 'E zstd -c -T2 -q t/a/b/zs | E zstd -d -c | cmp - t/a/b/zs && echo same'

# tar
same "tar cf to stdout, sorted" -- tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - t
same_sh "tar through pipes: create, list, extract" -- 'E tar cf - t | E tar tvf - | sort &&
    mkdir x && E tar cf - t | E tar xf - -C x && diff -r t x/t && echo same'
same_sh "tar create, list, extract a file" -- 'E tar cf t.tar t && E tar tvf t.tar | sort && mkdir x && E tar xf t.tar -C x && diff -r t x/t && echo same'
same_sh "tar append and extract one" -- 'E tar cf t.tar t/c && E tar rf t.tar f1 && E tar tf t.tar && E tar xOf t.tar f1'
same_sh "tar -J: tar runs xz" -- 'E tar cJf t.txz t/a && E tar tJvf t.txz | sort && mkdir y && E tar xJf t.txz -C y && diff -r --no-dereference t/a y/t/a && echo same'
same_sh "tar -z: tar runs gzip" -- 'E tar czf - t/a | E tar tzvf - | sort && E tar czf - t/c | E tar xzOf - t/c/x'

# grep, sed, awk, diff
same "grep -r" -- grep -rn alpha t
same "grep -c -v -i -E" -- grep -c -v -i -E 'ALPHA|gamma' t/a/words
same "grep no match" -- grep zzz t/a/words
same "grep the source tree" -- grep -rl --include='*.h' 'struct cpu' "$src/cpu"
same "sed script" -- sed -n -e 's/\([0-9]\)\([0-9]\)$/\2\1/p' -e '/^1999[0-9]/q' t/nums
same_sh "sed -i" -- 'E sed -i -e "s/alpha/ALPHA/g" -e "3d" t/a/words && cat t/a/words'
same "awk sums and printf" -- awk '{ s += $1; if ($1 % 5000 == 0) printf "%d %.2f\n", NR, s / NR } END { print s, NR }' t/nums
same "awk fields and arrays" -- awk -F'[ ]' '{ for (i = 1; i <= NF; i++) c[$i]++ } END { for (w in c) n++; print n, c["alpha"], length("héllo") }' t/a/words
same "diff -u" -- diff -u f1 f2
same "cmp" -- cmp f1 f2

# git on a repository the fixture makes natively (fixed names and dates, so
# the hashes agree); commit, gc, merge and rebase start other programs.
repo() {
    export GIT_AUTHOR_DATE="1000000000 +0000" GIT_COMMITTER_DATE="1000000000 +0000" \
        GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b \
        HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1
    git init -q -b main . && seq 100 >f && printf 'a\nb\n' >g && git add f g &&
        git commit -qm one && seq 50 >f && echo c >>g && git commit -qam two &&
        git tag -a -m tagged v1 && echo dirty >>g && echo new >h &&
        git config user.name a && git config user.email a@b
}
# The cases that commit fix the dates, so the hashes agree.
dates='export GIT_AUTHOR_DATE="1000000000 +0000" GIT_COMMITTER_DATE="1000000000 +0000";'
fixture repo
same "git log, show, rev-parse, describe" -- sh -c 'git log --format="%H %an %ad %s" --date=iso &&
    git show --stat HEAD && git rev-parse HEAD~1 && git describe && git cat-file -p HEAD'
same "git diff, blame, grep" -- sh -c 'git diff && git diff --word-diff HEAD~1 && git blame -s g &&
    git grep -n 5 && git log -p --format=%s -1 -- g'
same "git status, ls-files" -- sh -c 'git status && git status --short && git ls-files -s'
same "git: not a revision" -- git rev-parse nope
same "git commit, gc, fsck, archive" -- sh -c "$dates"'git add h && git commit -qam three && git log --format="%H %s" &&
    git gc -q && git count-objects -v | grep -v size && git fsck --no-progress && git archive --format=tar HEAD | sha256sum'
same "git branch, merge, rebase" -- sh -c "$dates"'git stash -q && git checkout -qb side HEAD~1 && echo s >s && git add s &&
    git commit -qm side && git checkout -q main && git merge -q --no-edit side && git log --graph --format=%s &&
    git checkout -q side && git rebase -q main && git log --format="%H %s" -3 && git stash pop -q && git status --short'

finish
