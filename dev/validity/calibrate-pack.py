#!/usr/bin/env python3
"""Packs `ci-regression.sh --calibrate` output directories into a results/ archive: per trial and arm the gate's
compare.json and compare.txt, and runs.tsv (side, run, median step time, process start and end) in place of the
run JSON files, which hold nothing else the gate reads.

    dev/validity/calibrate-pack.py OUT.tar.xz DIR [DIR ...]   (each DIR an OUT_DIR of one --calibrate stream)
"""
import io
import json
import pathlib
import sys
import tarfile


def runs_tsv(arm):
    rows = ["side\trun\tmedian_step_s\tstarted_unix_s\tfinished_unix_s"]
    for side in ("base", "new"):
        for f in sorted((arm / side).glob("*.json")):
            j = json.loads(f.read_text())
            p = j["process_runs"][0]
            rows.append(f"{side}\t{f.stem}\t{j['runs'][0]['step_time']['median_s']:.9f}\t"
                        f"{p['started_unix_s']:.3f}\t{p['finished_unix_s']:.3f}")
    return "\n".join(rows) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: calibrate-pack.py OUT.tar.xz DIR [DIR ...]")
    with tarfile.open(sys.argv[1], "w:xz") as tar:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for s, d in enumerate(sys.argv[2:], 1):
            d = pathlib.Path(d)
            for extra in ("calibrate/summary.txt",):
                if (d / extra).exists():
                    add(f"stream-{s}/{extra}", (d / extra).read_bytes())
            for arm in sorted(d.glob("calibrate/trial-*/*")):
                if not arm.is_dir():
                    continue
                rel = f"stream-{s}/{arm.relative_to(d)}"
                for name in ("compare.json", "compare.txt"):
                    add(f"{rel}/{name}", (arm / name).read_bytes())
                add(f"{rel}/runs.tsv", runs_tsv(arm).encode())


if __name__ == "__main__":
    main()
