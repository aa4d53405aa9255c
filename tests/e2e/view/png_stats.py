#!/usr/bin/env python3
"""png_stats.py FILE.png WIDTH HEIGHT [MIN_COLOURS] [MIN_INK_PERCENT]

Checks that FILE is a PNG of WIDTH x HEIGHT (8-bit RGB or RGBA, any of the
five scanline filters) that is not blank: at least MIN_COLOURS distinct
colours (default 16) and at least MIN_INK_PERCENT % of "ink" pixels
(default 2), ink being every pixel unlike the two most common colours
(the window's background and the panes' fill).  Prints the statistics.
Decodes with the standard library only (zlib)."""
import struct
import sys
import zlib
from collections import Counter


def fail(msg):
    print("FAIL: %s: %s" % (sys.argv[1], msg))
    sys.exit(1)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG (bad signature)")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        if pos + 8 > len(data):
            fail("truncated chunk header")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xffffffff != crc:
            fail("bad CRC in chunk %r" % ctype)
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if not ihdr:
        fail("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unexpected format depth=%d colour=%d interlace=%d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        fail("image data of %d bytes for %dx%d" % (len(raw), w, h))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                fail("bad filter %d" % f)
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    min_colours = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    min_ink = float(sys.argv[5]) if len(sys.argv) > 5 else 2.0
    w, h, bpp, rows = decode(path)
    if (w, h) != (want_w, want_h):
        fail("size %dx%d, want %dx%d" % (w, h, want_w, want_h))
    counts = Counter()
    for line in rows:
        for x in range(0, len(line), bpp):
            counts[line[x:x + 3]] += 1
    common = [c for c, _ in counts.most_common(2)]
    ink = w * h - sum(counts[c] for c in common)
    pct = 100.0 * ink / (w * h)
    print("%s: %dx%d, %d colours, %.1f%% ink" % (path, w, h, len(counts), pct))
    if len(counts) < min_colours:
        fail("only %d colours (want %d or more): blank?" % (len(counts), min_colours))
    if pct < min_ink:
        fail("only %.2f%% ink (want %.1f%% or more): blank?" % (pct, min_ink))


main()
