#!/usr/bin/env python3
"""Exact (Clopper-Pearson) one-sided upper confidence bound of a rate seen as X events in N trials: the largest
rate p at which X or fewer events in N trials still happen with probability 1 - CONFIDENCE. 0 of 20 false alarms
is consistent with a rate of up to 13.9 % (1 - 0.05^(1/20)); 0 of 59 with up to 4.95 %.

  scripts/clopper-pearson.py X N [CONFIDENCE]      (default 0.95; prints the bound as a fraction, 4 decimals)

Exit 2 with one line on bad input.
"""
import math
import sys


def binomial_cdf(x, n, p):
    """P(Bin(n, p) <= x), summed in log space so that large n does not overflow."""
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if x >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp +
                                 (n - k) * lq) for k in range(x + 1)))


def upper_bound(x, n, confidence=0.95):
    """The p where P(Bin(n, p) <= x) = 1 - confidence, by bisection (the CDF falls as p grows); 1 when x = n."""
    if x >= n:
        return 1.0
    alpha = 1 - confidence
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if binomial_cdf(x, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main(argv):
    if len(argv) not in (2, 3):
        raise ValueError("usage: clopper-pearson.py X N [CONFIDENCE]")
    try:
        x, n = int(argv[0]), int(argv[1])
        confidence = float(argv[2]) if len(argv) == 3 else 0.95
    except ValueError:
        raise ValueError(f"X and N must be counts and CONFIDENCE a fraction, got {' '.join(argv)}") from None
    if not (n >= 1 and 0 <= x <= n):
        raise ValueError(f"need 0 <= X <= N and N >= 1, got X={x} N={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"CONFIDENCE must be in (0, 1), got {confidence}")
    print(f"{upper_bound(x, n, confidence):.4f}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ValueError as e:
        print(f"clopper-pearson: {e}", file=sys.stderr)
        sys.exit(2)
