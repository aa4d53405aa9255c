#!/usr/bin/env python3
"""drcov.py FILE: read a drcov file (version 2, module table version 2) as
Lighthouse and the other readers do, check its structure, and print

    module ID BASE END PATH        one line per module (hex addresses)
    block MODULE_ID OFFSET SIZE    one line per basic block (decimal)

Exit status 1 with a message when the file is not well formed: a wrong
header, a module count or BB count that does not match, ids out of order,
a block outside its module, a block listed twice."""
import re
import struct
import sys


def fail(msg):
    sys.exit("drcov.py: " + msg)


def main(path):
    data = open(path, "rb").read()
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        text = data[pos:end].decode()
        pos = end + 1
        return text

    if line() != "DRCOV VERSION: 2":
        fail("not a drcov version 2 file")
    if not line().startswith("DRCOV FLAVOR: "):
        fail("no flavor line")
    m = re.fullmatch(r"Module Table: version 2, count (\d+)", line())
    if not m:
        fail("no version 2 module table")
    count = int(m.group(1))
    if line() != "Columns: id, base, end, entry, checksum, timestamp, path":
        fail("unexpected columns")
    modules = []
    for i in range(count):
        fields = line().split(", ", 6)
        if len(fields) != 7 or int(fields[0]) != i:
            fail("module row %d malformed" % i)
        base, end = int(fields[1], 16), int(fields[2], 16)
        if not base < end:
            fail("module %d is empty" % i)
        modules.append((base, end, fields[6]))
        print("module %d %#x %#x %s" % (i, base, end, fields[6]))
    m = re.fullmatch(r"BB Table: (\d+) bbs", line())
    if not m:
        fail("no BB table")
    nbbs = int(m.group(1))
    if len(data) - pos != 8 * nbbs:
        fail("%d bytes of BB entries for %d bbs" % (len(data) - pos, nbbs))
    seen = set()
    for i in range(nbbs):
        start, size, mod = struct.unpack_from("<IHH", data, pos + 8 * i)
        if mod >= count:
            fail("block %d: module %d of %d" % (i, mod, count))
        base, end, _ = modules[mod]
        if size == 0 or base + start + size > end:
            fail("block %d outside its module" % i)
        if (start, size, mod) in seen:
            fail("block %d listed twice" % i)
        seen.add((start, size, mod))
        print("block %d %d %d" % (mod, start, size))


main(sys.argv[1])
