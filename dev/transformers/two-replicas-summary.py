#!/usr/bin/env python3
"""Per round of dev/transformers/2026-11-28-two-replicas.sh: each model's 2-replica figures from its JSON files."""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: two-replicas-summary.py DIR (holding gpt2-<k>.json and resnet50-<k>.json)", file=sys.stderr)
        return 2
    for model in ("gpt2", "resnet50"):
        for path in sorted(glob.glob(os.path.join(sys.argv[1], f"{model}-*.json"))):
            one, two = json.load(open(path))["runs"][:2]
            b = two["breakdown"]
            print(f"{os.path.basename(path):16s} 1-replica step {one['step_time']['median_s']:.2f} s;"
                  f" 2 replicas: efficiency {100 * two['scaling_efficiency']:.1f} %,"
                  f" exposed all-reduce {100 * b['shares']['comm_exposed']:.1f} % ({b['comm_exposed_s']:.2f} s),"
                  f" hidden {b['comm_overlapped_s']:.2f} s, busbw {two['allreduce']['busbw_GBps']:.2f} GB/s,"
                  f" step 95 % CI +-{two['step_time']['ci95_s']:.2f} s,"
                  f" process peak {two['device_memory_in_use_bytes'] / 2**30:.2f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
