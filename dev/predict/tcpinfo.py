#!/usr/bin/env python3
"""What limited rank 0's TCP sender in validate_netns.sh's tcpinfo mode: one summary per raw/<run>.ss.txt.

Each file holds `ss -tinH` samples taken every 0.2 s while a two-rank run lasted ("# <unix time>" before each).
The connection that carried the most bytes is Gloo's pair; its cumulative TCP_INFO counters (busy, rwnd_limited,
sndbuf_limited: the kernel's time with data in flight, and the part of it stalled by the peer's receive window or
our send buffer) are differenced between the first and last sample that saw it. Busy time limited by neither is
the congestion window, pacing or the link itself.
"""
import re
import statistics
import sys

FIELDS = {
    "cwnd": r"\bcwnd:(\d+)",
    "ssthresh": r"\bssthresh:(\d+)",
    "mss": r"\bmss:(\d+)",
    "rtt": r"\brtt:([\d.]+)/",
    "bytes_acked": r"\bbytes_acked:(\d+)",
    "busy": r"\bbusy:(\d+)ms",
    "rwnd_limited": r"\brwnd_limited:(\d+)ms",
    "sndbuf_limited": r"\bsndbuf_limited:(\d+)ms",
    "retrans": r"\bretrans:\d+/(\d+)",
    "unacked": r"\bunacked:(\d+)",
    "delivery_rate": r"\bdelivery_rate ([\d.]+)([KMG]?)bps",
}
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def parse(path):
    """{connection: [(time, {field: value})]} from one file."""
    conns, now, name = {}, None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("# "):
            now = float(line[2:])
            continue
        if not line.startswith((" ", "\t")):
            parts = line.split()
            name = " ".join(parts[-2:]) if len(parts) >= 2 else None
            continue
        if name is None or now is None:
            continue
        rec = {}
        for key, pattern in FIELDS.items():
            m = re.search(pattern, line)
            if not m:
                continue
            rec[key] = float(m.group(1)) * (SCALE[m.group(2)] if key == "delivery_rate" else 1)
        conns.setdefault(name, []).append((now, rec))
    return conns


def summarize(path):
    conns = parse(path)
    if not conns:
        return f"{path}: no samples"
    name, samples = max(conns.items(), key=lambda kv: kv[1][-1][1].get("bytes_acked", 0))
    first, last = samples[0][1], samples[-1][1]

    def delta(key):
        return last.get(key, 0) - first.get(key, 0)

    busy = delta("busy")
    rwnd, sndbuf = delta("rwnd_limited"), delta("sndbuf_limited")
    mss = last.get("mss", 0)
    cwnds = [r["cwnd"] for _, r in samples if "cwnd" in r]
    rtts = [r["rtt"] for _, r in samples if "rtt" in r]
    rates = [r["delivery_rate"] for _, r in samples if "delivery_rate" in r]

    def pct(x):
        return f"{100 * x / busy:.1f} %" if busy > 0 else "-"

    lines = [
        f"{path}: {len(samples)} samples over {samples[-1][0] - samples[0][0]:.1f} s, connection {name}",
        f"  sent {delta('bytes_acked') / 1e6:.1f} MB acked; busy {busy:.0f} ms: receive-window limited {rwnd:.0f} ms"
        f" ({pct(rwnd)}), send-buffer limited {sndbuf:.0f} ms ({pct(sndbuf)}), neither {busy - rwnd - sndbuf:.0f} ms"
        f" ({pct(busy - rwnd - sndbuf)}); retransmitted {delta('retrans'):.0f} segments",
    ]
    if cwnds and mss:
        lines.append(
            f"  cwnd {min(cwnds):.0f}/{statistics.median(cwnds):.0f}/{max(cwnds):.0f} segments (min/median/max) of"
            f" {mss:.0f} B = {statistics.median(cwnds) * mss / 1e3:.0f} kB median; ssthresh {last.get('ssthresh', '-')}")
    if rtts:
        lines.append(f"  rtt {min(rtts):.2f}/{statistics.median(rtts):.2f}/{max(rtts):.2f} ms (min/median/max)")
    if rates:
        lines.append(f"  delivery rate {statistics.median(rates) / 1e6:.0f}/{max(rates) / 1e6:.0f} Mbit/s (median/max)")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        print("usage: tcpinfo.py FILE.ss.txt...", file=sys.stderr)
        return 2
    print("\n".join(summarize(p) for p in sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
