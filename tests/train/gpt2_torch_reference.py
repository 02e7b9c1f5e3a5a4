#!/usr/bin/env python3
"""The reference side of tests/train/test_gpt2_torch.cpp: scripts/torch_gpt2.py's GPT-2 in float64 on the
parameters, tokens and labels mgbench wrote to DIR; writes the logits, the mean next-token cross-entropy and
every parameter's gradient back for the C++ test to compare. Where the manifest names "steps" and an "optimizer",
it trains that many steps with torch.optim instead (in the manifest's "dtype") and writes each step's loss.

  gpt2_torch_reference.py DIR    (DIR/manifest.json, params.f32, tokens.i32, labels.i32 -> logits.f32, loss.f64,
                                  grads.f32; or, with "steps", -> losses.f64)
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from torch_gpt2 import gpt2_forward  # noqa: E402


def main(d):
    m = json.load(open(f"{d}/manifest.json"))
    B, T = m["batch"], m["seq_len"]
    dtype = {"float64": np.float64, "float32": np.float32}[m.get("dtype", "float64")]
    flat = torch.from_numpy(np.fromfile(f"{d}/params.f32", dtype=np.float32).astype(dtype))
    p = {}
    for e in m["params"]:
        n = math.prod(e["shape"])
        p[e["name"]] = flat[e["offset"]:e["offset"] + n].reshape(e["shape"]).clone().requires_grad_(True)
    tokens = torch.from_numpy(np.fromfile(f"{d}/tokens.i32", dtype=np.int32).astype(np.int64)).reshape(B, T)
    labels = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32).astype(np.int64))
    if "steps" in m:
        train(m, p, tokens, labels, d)
        return

    logits = gpt2_forward(p, tokens, m["layers"], m["heads"], m["eps"])
    loss = F.cross_entropy(logits, labels)
    loss.backward()

    logits.detach().numpy().astype(np.float32).tofile(f"{d}/logits.f32")
    np.array([loss.item()], dtype=np.float64).tofile(f"{d}/loss.f64")
    grads = np.zeros(flat.numel(), dtype=np.float32)
    for e in m["params"]:
        n = math.prod(e["shape"])
        grads[e["offset"]:e["offset"] + n] = p[e["name"]].grad.reshape(-1).numpy()
    grads.tofile(f"{d}/grads.f32")


def train(m, p, tokens, labels, d):
    """m["steps"] steps of torch.optim on the one batch, as scripts/torch_gpt2.py's loop runs them."""
    o = m["optimizer"]
    params = list(p.values())
    opt = (torch.optim.AdamW(params, lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"], weight_decay=o["weight_decay"])
           if o["name"] == "adamw" else
           torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"]))
    losses = []
    for _ in range(m["steps"]):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(gpt2_forward(p, tokens, m["layers"], m["heads"], m["eps"]), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.array(losses, dtype=np.float64).tofile(f"{d}/losses.f64")


if __name__ == "__main__":
    main(sys.argv[1])
