#!/bin/sh
# python.sh ELFEMU: python3 and perl one-liners and small scripts under elfemu,
# compared with their native runs (stdout, exit status, stderr; see lib.sh).
. "$(dirname "$0")/lib.sh"
need python3 perl sh seq tr sort echo sleep wc
need_run "python3's modules" -- python3 -c 'import json, re, hashlib, zlib, gzip, sqlite3, csv, decimal, fractions, threading, subprocess, asyncio, concurrent.futures, test.test_fcntl, test.test_mmap, test.test_epoll, test.test_pty, test.test_select'
need_run "perl's modules" -- perl -MDigest::MD5 -MDigest::SHA -MPOSIX -MList::Util -MMIME::Base64 -e 1

data() {
    printf 'name,qty\napple,3\npear,10\nfig,7\n' >in.csv
    seq 1 500 >nums
}
fixture data

py() { n=$1; shift; same "python3: $n" -- python3 -c "$@"; }
py "print and exit status" 'import sys; print("hi", sys.version_info[:2] >= (3, 0)); sys.exit(4)'
py "json" '
import json
d = {"b": [1, 2.5, None, True], "a": "\u00e9t\u00e9", "n": {"x": -1e300}}
s = json.dumps(d, sort_keys=True, indent=1)
print(s)
print(json.loads(s) == d, json.dumps(json.loads("[1e5, 0.1, 3]")))'
py "re" '
import re
t = "2024-01-15 error: disk /dev/sda1 full; 2024-02-01 warn: cpu 97%"
print(re.findall(r"(\d{4})-(\d\d)-(\d\d) (\w+)", t))
print(re.sub(r"(?P<w>\w+):", lambda m: m.group("w").upper() + "!", t))
print(re.split(r"[;\s]+", t)[:5], bool(re.fullmatch(r"[a-z]+", "abc")))'
py "hashlib" '
import hashlib
for name in ("md5", "sha1", "sha256", "sha512", "sha3_256", "blake2b"):
    print(name, hashlib.new(name, b"elfemu" * 1000).hexdigest())
print(hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 2000).hex())'
py "zlib" '
import zlib, gzip, io
data = bytes(range(256)) * 200 + b"tail"
c = zlib.compress(data, 9)
print(len(c), zlib.crc32(data), zlib.adler32(data), zlib.decompress(c) == data)
b = io.BytesIO()
with gzip.GzipFile(fileobj=b, mode="wb", mtime=0) as f: f.write(data)
print(len(b.getvalue()), gzip.decompress(b.getvalue()) == data)'
py "sqlite3" '
import sqlite3
db = sqlite3.connect("t.db")
db.execute("create table t (k text primary key, v integer)")
db.executemany("insert into t values (?, ?)", [("k%03d" % i, i * i) for i in range(300)])
db.commit()
print(db.execute("select count(*), sum(v), max(k) from t").fetchone())
print(db.execute("select k, v from t where v % 7 = 0 order by v desc limit 3").fetchall())
db.close()
print(sqlite3.connect("t.db").execute("pragma integrity_check").fetchone())'
py "csv, files, os" '
import csv, os
rows = list(csv.DictReader(open("in.csv")))
print(sum(int(r["qty"]) for r in rows), [r["name"] for r in rows])
os.mkdir("sub"); open("sub/f", "w").write("x" * 1234)
print(sorted(os.listdir(".")), os.path.getsize("sub/f"), os.stat("nums").st_size)
os.rename("sub/f", "sub/g"); print(os.listdir("sub")); os.remove("sub/g"); os.rmdir("sub")'
py "numbers and text" '
import math, decimal, fractions, struct, random, datetime
print(math.pi, math.sqrt(2), math.exp(1) ** 10, 1 / 3, 2 ** 100, 10 ** 20 // 7)
print(decimal.Decimal(1) / decimal.Decimal(7), fractions.Fraction(22, 7) * 3)
print(struct.pack("<idh", -5, 2.5, 7).hex(), float("1e-310"), repr(0.1 + 0.2))
r = random.Random(42); print([r.randint(0, 100) for _ in range(5)], r.random())
print(datetime.datetime.fromtimestamp(1e9, datetime.timezone.utc).isoformat())
print("{:>10.4f}|{:,}|{:e}".format(math.e, 1234567, 6.02e23), "caf\u00e9".upper().encode())'
py "exception and traceback" '
def f(n): return 1 // n
f(0)'
py "threads (threading, queue, a thread pool)" '
import threading, queue, concurrent.futures as cf
q, out, lock = queue.Queue(), [], threading.Lock()
def work():
    while (x := q.get()) is not None:
        with lock: out.append(x * x)
ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts: t.start()
for i in range(2000): q.put(i)
for t in ts: q.put(None)
for t in ts: t.join()
print(len(out), sum(out), threading.active_count())
with cf.ThreadPoolExecutor(4) as ex: print(sum(ex.map(lambda x: x ** 3, range(500))))
b = threading.Barrier(3); r = []
def meet(i): b.wait(); r.append(i)
ts = [threading.Thread(target=meet, args=(i,)) for i in range(3)]
for t in ts: t.start()
for t in ts: t.join()
print(sorted(r))'
py "subprocess" '
import subprocess, sys
r = subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True)
print(r.returncode, r.stdout, r.stderr)
print(subprocess.check_output("seq 3 | wc -l", shell=True))
p = subprocess.Popen([sys.executable, "-c", "print(input()[::-1])"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
print(p.communicate("hello"), p.returncode)
try: subprocess.run(["nonexistent-xyz"])
except FileNotFoundError as e: print("missing:", e.errno)
try: subprocess.run(["sleep", "5"], timeout=0.2)
except subprocess.TimeoutExpired as e: print("timeout", e.cmd)
print(subprocess.run(["sh", "-c", "kill -TERM $$"]).returncode)'
py "asyncio (tasks, queues, a subprocess, sockets)" '
import asyncio
async def worker(q, out):
    while (x := await q.get()) is not None: out.append(x * 2)
async def handle(r, w):
    w.write((await r.readline()).upper()); await w.drain(); w.close()
async def main():
    q, out = asyncio.Queue(), []
    ts = [asyncio.create_task(worker(q, out)) for _ in range(3)]
    for i in range(100): await q.put(i)
    for _ in ts: await q.put(None)
    await asyncio.gather(*ts)
    print(len(out), sum(out))
    p = await asyncio.create_subprocess_exec("sh", "-c", "echo from child; exit 2", stdout=asyncio.subprocess.PIPE)
    print(await p.communicate(), p.returncode)
    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    r, w = await asyncio.open_connection(*srv.sockets[0].getsockname()[:2])
    w.write(b"ping\n"); print(await r.readline()); w.close(); srv.close(); await srv.wait_closed()
    print(await asyncio.wait_for(asyncio.sleep(0.01, "slept"), 5))
asyncio.run(main())'
# CPython's own regression tests of the modules closest to the syscalls
# (libpython3.11-testsuite): each test's name and verdict (ok, skipped and
# why) must be the native run's; timings and load averages are left out, and
# so is test_epoll's test_control_and_wait, which fails any run (native too)
# whose epoll_wait on ready descriptors takes over 0.1 s of wall time: a
# timing, not a behaviour, on a loaded machine.
same_sh "python3 -m test: fcntl, mmap, epoll, pty, select" -- 'E python3 -m test -v -i test_control_and_wait test_fcntl test_mmap test_epoll test_pty test_select 2>&1 |
    grep -E " \.\.\. |^Ran |^OK|^FAILED|^Tests result|tests? OK" | sed "s/^\(Ran .*\) in .*/\1/"'
same "python3: script from stdin" -i nums -- python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))'

pl() { n=$1; shift; same "perl: $n" -- perl -e "$@"; }
pl "print, sprintf, exit" 'printf("%s %5.2f %x %e\n", "perl", 3.14159, 255, 1e-5); exit 3'
pl "regex and hashes" '
my %c; $c{$_}++ for split //, "mississippi";
print join(",", map { "$_=$c{$_}" } sort keys %c), "\n";
my $s = "2024-01-15 and 2023-12-31"; my @d = $s =~ /(\d{4})-(\d\d)-(\d\d)/g; print "@d\n";
(my $t = $s) =~ s/(\d+)/<$1>/g; print "$t\n"'
pl "sort, pack, sprintf" '
print join(" ", sort { $b <=> $a } (5, 3, 11, 1)), "\n";
print unpack("H*", pack("NnC", 0xdeadbeef, 258, 7)), "\n";
print join(" ", map { sprintf "%.3g", $_ } (1/3, 2**0.5, 1e100)), "\n"'
pl "modules" '
use Digest::MD5 qw(md5_hex); use Digest::SHA qw(sha256_hex); use POSIX qw(floor strftime);
use List::Util qw(sum max); use MIME::Base64;
print md5_hex("elfemu"), " ", sha256_hex("elfemu"), "\n";
print floor(-2.5), " ", strftime("%Y-%m-%d", gmtime(1e9)), " ", sum(1..100), " ", max(3, 9, 2), "\n";
print encode_base64("elfemu perl")'
pl "files" '
open(my $o, ">", "out.txt") or die; print $o "line $_\n" for 1..50; close $o;
open(my $i, "<", "out.txt") or die; my @l = <$i>; close $i;
print scalar(@l), " ", $l[-1], -s "out.txt", "\n"; unlink "out.txt" or die; print -e "out.txt" ? "still\n" : "gone\n"'
pl "die" 'die "fatal error\n"'
pl "backticks, system, pipes to and from programs" '
my $x = `echo hi | tr a-z A-Z`; print "backticks: $x";
system("sh", "-c", "exit 3"); print "system status ", $? >> 8, "\n";
open(my $f, "-|", "seq", "3") or die; my @s = <$f>; close $f; print "from seq: @s";
open(my $w, "|-", "sort -r") or die; print $w "$_\n" for qw(b c a); close $w;
print "to sort status $?\n"; exec("echo", "replaced by exec") or die'
same "perl: -n over stdin" -i in.csv -- perl -F, -lane 'print "$F[1] $F[0]" if $. > 1'
finish
