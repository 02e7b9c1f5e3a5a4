#!/usr/bin/env bash
# scripts/measure/predict-published-table.py: each published row beside the naive forecast (N x the published
# 1-GPU rate) and the prediction read from its committed JSON, errors against the published figure; the committed table.md
# is what the script writes from the committed predictions.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
src=$here/results/predict/published
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$src"/*.json "$out/" || exit 1
python3 "$here/scripts/measure/predict-published-table.py" "$out" >"$out/log" 2>&1 || { cat "$out/log"; echo "FAIL: table.py"; exit 1; }
cmp -s "$out/table.md" "$src/table.md" || { diff "$src/table.md" "$out/table.md"; echo "FAIL: committed table.md differs"; exit 1; }
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
published = {"ResNet-50": ("tf_dgx1_p100_resnet50.json", {1: 219, 2: 422, 4: 852, 8: 1734}),
             "InceptionV3": ("tf_dgx1_p100_inception3.json", {1: 142, 2: 284, 4: 569, 8: 1131})}
rows = [[c.strip() for c in l.split("|")[1:-1]] for l in open(f"{out}/table.md") if l.startswith("| ResNet-50 |")
        or l.startswith("| InceptionV3 |")]
assert len(rows) == 6, rows
for label, n, pub, naive, naive_err, pred, pred_err in rows:
    path, fig = published[label]
    n = int(n)
    rate = {r["devices"]: r["images_per_sec"] for r in json.load(open(f"{out}/{path}"))["runs"]}[n]
    want = [str(fig[n]), str(n * fig[1]), f"{100 * (n * fig[1] - fig[n]) / fig[n]:+.1f} %", f"{rate:.1f}",
            f"{100 * (rate - fig[n]) / fig[n]:+.1f} %"]
    if [pub, naive, naive_err, pred, pred_err] != want:
        sys.exit(f"FAIL: {label} {n} GPUs: {[pub, naive, naive_err, pred, pred_err]} != {want}")
goyal = [l for l in open(f"{out}/table.md") if l.startswith("| Goyal")]
assert len(goyal) == 1 and "| 100 % | +11.1 % |" in goyal[0], goyal
# GPT-2 124 M on 8 H100s: the naive forecast from the post's 36 % MFU at 1 GPU, each link's 8-GPU prediction.
gpt2 = [[c.strip() for c in l.split("|")[1:-1]] for l in open(f"{out}/table.md") if l.startswith("| GPT-2 124 M |")]
runs = {r["transport"]: r for r in json.load(open(f"{out}/gpt2_8xh100.json"))["runs"] if r["devices"] == 8}
assert len(gpt2) == len(runs) == 4, (gpt2, list(runs))
naive = 8 * 0.36 * 989e12 / 854438400
for _, link, pub, naive_cell, naive_err, pred, pred_err, eff in gpt2:
    r = runs[link]
    want = ["3046409", f"{naive:.0f}", f"{100 * (naive - 3046409) / 3046409:+.1f} %", f"{r['tokens_per_sec']:.0f}",
            f"{100 * (r['tokens_per_sec'] - 3046409) / 3046409:+.1f} %", f"{100 * r['scaling_efficiency']:.1f} %"]
    if [pub, naive_cell, naive_err, pred, pred_err, eff] != want:
        sys.exit(f"FAIL: GPT-2 {link}: {[pub, naive_cell, naive_err, pred, pred_err, eff]} != {want}")
print("ok: 6 DGX-1 rows, Goyal and GPT-2 124 M, naive beside predicted")
PY
