#!/usr/bin/env python3
"""Checks what a shaped link between two namespaces really does (this VM has no ping or iperf):
   linkcheck.py serve ADDR PORT          # in one namespace: echo small messages, swallow bulk data
   linkcheck.py probe ADDR PORT MBYTES   # in the other: TCP round trips (median, p10, p90 ms) and bulk Mbit/s
The round trip is one 64-byte message each way with TCP_NODELAY, i.e. the link's RTT plus two tiny sends;
bulk is MBYTES written to the server, timed until the server confirms it read the last byte. Prints one line.
"""
import socket
import statistics
import struct
import sys
import time


def serve(addr, port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = c.makefile("rb")
    while True:
        hdr = f.read(9)
        if len(hdr) < 9:
            return
        kind, n = hdr[:1], struct.unpack("!Q", hdr[1:])[0]
        if kind == b"p":  # ping: echo n bytes
            c.sendall(f.read(n))
        elif kind == b"b":  # bulk: read n bytes, confirm
            left = n
            while left:
                chunk = f.read(min(left, 1 << 20))
                if not chunk:
                    return
                left -= len(chunk)
            c.sendall(b"k")
        else:
            return


def probe(addr, port, mbytes):
    for _ in range(100):  # the server may still be starting
        try:
            c = socket.create_connection((addr, port), timeout=30)
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit("linkcheck: cannot connect")
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    msg = b"x" * 64
    rtts = []
    for i in range(110):
        t = time.perf_counter()
        c.sendall(b"p" + struct.pack("!Q", len(msg)) + msg)
        got = b""
        while len(got) < len(msg):
            got += c.recv(len(msg) - len(got))
        if i >= 10:  # the first round trips warm the path up (ARP, slow start)
            rtts.append((time.perf_counter() - t) * 1e3)
        time.sleep(0.002)
    n = int(mbytes * 1e6)
    block = b"\0" * (1 << 20)
    t = time.perf_counter()
    c.sendall(b"b" + struct.pack("!Q", n))
    left = n
    while left:
        k = min(left, len(block))
        c.sendall(block[:k])
        left -= k
    assert c.recv(1) == b"k"
    bulk = n * 8 / (time.perf_counter() - t) / 1e6
    q = statistics.quantiles(rtts, n=10)
    print(f"rtt median {statistics.median(rtts):.3f} ms (p10 {q[0]:.3f}, p90 {q[-1]:.3f}, {len(rtts)} round trips); "
          f"bulk {mbytes:g} MB at {bulk:.1f} Mbit/s")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) >= 5 and sys.argv[1] == "probe":
        probe(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit("usage: linkcheck.py serve ADDR PORT | probe ADDR PORT MBYTES")
