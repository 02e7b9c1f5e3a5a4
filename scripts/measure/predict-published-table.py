#!/usr/bin/env python3
"""Published scaling figures against mgbench's predictions and the naive forecast (N x the published 1-GPU rate).

Reads the prediction files dev/predict/predict_published.sh writes into results/predict/published (or the folder
given) and writes table.md there; the published figures are typed in below from their sources (results/predict/README.md
names them)."""
import json
import os
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                            "results", "predict", "published")

# tf_cnn_benchmarks, NVIDIA DGX-1 (8x P100), synthetic data, batch 64 per GPU, May 2017: images/s per GPU count.
DGX1 = [("tf_dgx1_p100_resnet50.json", "ResNet-50", {1: 219, 2: 422, 4: 852, 8: 1734}),
        ("tf_dgx1_p100_inception3.json", "InceptionV3", {1: 142, 2: 284, 4: 569, 8: 1131})]
# Goyal et al. 2017: ~90 % scaling efficiency from 8 to 256 GPUs.
GOYAL = ("goyal2017_resnet50.json", 8, 256, 0.90)


def rates(path):
    return {r["devices"]: r["images_per_sec"] for r in json.load(open(os.path.join(here, path)))["runs"]}


def err(x, ref):
    return f"{100 * (x - ref) / ref:+.1f} %"


lines = ["| column | GPUs | published images/s | naive N x 1-GPU | error | predicted (NCCL ring, nvlink1) | error |",
         "|---|---|---|---|---|---|---|"]
for path, label, pub in DGX1:
    pred = rates(path)
    for n in sorted(pub):
        if n == 1:
            continue
        naive = n * pub[1]
        lines.append(f"| {label} | {n} | {pub[n]} | {naive} | {err(naive, pub[n])} | {pred[n]:.1f} | "
                     f"{err(pred[n], pub[n])} |")
path, small, large, eff = GOYAL
pred = rates(path)
pred_eff = (pred[large] / large) / (pred[small] / small)
lines += ["", "| case | published efficiency | naive | error | predicted | error |", "|---|---|---|---|---|---|",
          f"| Goyal et al. 2017, {large} vs {small} GPUs, per-GPU images/s | ~{100 * eff:.0f} % | 100 % | "
          f"{err(1.0, eff)} | {100 * pred_eff:.1f} % | {err(pred_eff, eff)} |"]
# J. Schwartz 2025, GPT-2 124 M on 8 H100s (64 x 1024 tokens per GPU, our reading): the 1-GPU rate from its 36 % MFU
# (854,438,400 FLOP per token, 989 TFLOP/s), the 8-GPU figure as printed (33 % MFU); 355 M: no published figure.
GPT2 = [("gpt2_8xh100.json", "GPT-2 124 M", 0.36 * 989e12 / 854438400, 3046409),
        ("gpt2-medium_8xh100.json", "GPT-2 355 M", None, None)]
lines += ["", "| model, 8 H100s | link | published tokens/s | naive 8 x 1-GPU | error | predicted | error | "
          "predicted efficiency |", "|---|---|---|---|---|---|---|---|"]
for path, label, one, eight in GPT2:
    runs = json.load(open(os.path.join(here, path)))["runs"]
    for r in runs:
        if r["devices"] != 8:
            continue
        pred = r["tokens_per_sec"]
        if eight:
            naive = 8 * one
            lines.append(f"| {label} | {r['transport']} | {eight} | {naive:.0f} | {err(naive, eight)} | {pred:.0f} | "
                         f"{err(pred, eight)} | {100 * r['scaling_efficiency']:.1f} % |")
        else:
            lines.append(f"| {label} | {r['transport']} | none found | | | {pred:.0f} | | "
                         f"{100 * r['scaling_efficiency']:.1f} % |")
text = "\n".join(lines) + "\n"
open(os.path.join(here, "table.md"), "w").write(text)
print(text, end="")
