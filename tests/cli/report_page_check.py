#!/usr/bin/env python3
"""Checks one rendered mgbench report: check.py PAGE.html SHOT.png CHROMIUM_STDERR.

- the HTML fetches nothing (no scripts, links, URLs) and carries its Content-Security-Policy;
- the browser logged no console message: the page has no scripts, so any message is a load error or a
  resource the CSP blocked (an external request the page tried);
- every plot area (the 1-px #8c8c8c frame each plot draws) is found in the screenshot, as many as the HTML
  has plots, and each holds coloured data pixels (the palette's colours, not grid grey or text black).
Standard library only: the PNG is decoded here (8-bit RGB/RGBA, non-interlaced, as Chromium writes it).
Prints one line per problem and exits 1 when there is any.
"""
import re
import struct
import sys
import zlib

FRAME = (140, 140, 140)


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(path + ': not a PNG')
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError('%s: unsupported PNG %r' % (path, hdr))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def find_frames(w, h, bpp, rows):
    """Top-left corners where a long frame-coloured run goes right and down; returns (x, y, width, height)."""
    px = bytes(FRAME) + (b'\xff' if bpp == 4 else b'')
    run = px * 40
    frames = []

    def is_frame(x, y):
        return 0 <= x < w and 0 <= y < h and rows[y][x * bpp:x * bpp + 3] == bytes(FRAME)

    for y in range(h):
        row = rows[y]
        start = 0
        while True:
            i = row.find(run, start)
            if i < 0:
                break
            if i % bpp:
                start = i + 1
                continue
            x = i // bpp
            start = i + len(run)
            if is_frame(x - 1, y) or is_frame(x, y - 1):
                continue  # not a corner
            down = sum(is_frame(x, y + k) for k in range(40))
            if down < 36:
                continue
            fw = x
            while fw + 1 < w and sum(is_frame(fw + 1 + k, y) for k in range(8)) >= 6:
                fw += 1
            # The bottom edge: the first row below with a long stretch of frame colour. Bars stand on it and
            # may hide most of it (four wide stacks hid 30 %), and data may cover the left edge, so neither
            # tells the height alone; gridlines are lighter, so no row inside the plot has this colour.
            span = (fw - x + 1)
            fh = None
            for yy in range(y + 30, h):
                seg = rows[yy][x * bpp:(fw + 1) * bpp]
                if sum(1 for k in range(0, len(seg), bpp) if seg[k:k + 3] == bytes(FRAME)) >= 0.25 * span:
                    fh = yy
                    break
            if fh is not None:
                frames.append((x, y, fw - x, fh - y))
    return frames


def coloured_pixels(rows, bpp, frame):
    x, y, fw, fh = frame
    n = 0
    for yy in range(y + 2, y + fh - 1):
        row = rows[yy]
        for xx in range(x + 2, x + fw - 1, 2):
            r, g, b = row[xx * bpp], row[xx * bpp + 1], row[xx * bpp + 2]
            if max(r, g, b) - min(r, g, b) > 60:
                n += 1
    return n


def main():
    page, shot, stderr = sys.argv[1:4]
    problems = []
    html = open(page, encoding='utf-8').read()
    if "Content-Security-Policy\" content=\"default-src 'none'" not in html:
        problems.append('no Content-Security-Policy meta tag')
    for bad in ('<script', '<link', '<iframe', '@import', 'url(', 'http://', 'https://', ' src=', ' href='):
        if bad in html:
            problems.append('the HTML contains %r (something to fetch)' % bad)
    for line in open(stderr, encoding='utf-8', errors='replace'):
        # Chromium's own pages (chrome://) log too; only messages from the report count.
        if ':CONSOLE' in line and 'source: chrome://' not in line:
            problems.append('browser console: ' + line.strip()[:300])
    want = len(re.findall(r'class="plot-area"', html))
    w, h, bpp, rows = read_png(shot)
    frames = find_frames(w, h, bpp, rows)
    if want == 0:
        problems.append('the page has no plots')
    if len(frames) != want:
        problems.append('found %d plot areas in the screenshot, the HTML has %d' % (len(frames), want))
    for f in frames:
        n = coloured_pixels(rows, bpp, f)
        if n < 40:
            problems.append('plot area at x=%d y=%d (%dx%d) is blank: %d coloured pixels' % (f + (n,)))
    # The page must end inside the screenshot (else plots below it went unchecked).
    if any(b < 200 for b in rows[-1][:w * bpp:bpp * 7]):
        problems.append('the screenshot cuts the page off: make the window taller')
    for p in problems:
        print(page + ': ' + p)
    print('%s: %d plot areas checked' % (page, len(frames)))
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
