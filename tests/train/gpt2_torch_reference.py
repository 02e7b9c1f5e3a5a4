#!/usr/bin/env python3
"""GPT-2 written plainly in PyTorch (nanoGPT's layout: pre-norm blocks, fused qkv, causal attention, tanh GELU,
an untied head without bias) in float64, on the parameters, tokens and labels mgbench wrote to DIR: writes the
logits, the mean next-token cross-entropy and every parameter's gradient back for the C++ test to compare.

  gpt2_torch_reference.py DIR    (DIR/manifest.json, params.f32, tokens.i32, labels.i32 -> logits.f32, loss.f64,
                                  grads.f32)
"""
import json
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F


def main(d):
    m = json.load(open(f"{d}/manifest.json"))
    B, T, C, H, L, eps = m["batch"], m["seq_len"], m["dim"], m["heads"], m["layers"], m["eps"]
    flat = torch.from_numpy(np.fromfile(f"{d}/params.f32", dtype=np.float32).astype(np.float64))
    p = {}
    for e in m["params"]:
        n = math.prod(e["shape"])
        p[e["name"]] = flat[e["offset"]:e["offset"] + n].reshape(e["shape"]).clone().requires_grad_(True)
    tokens = torch.from_numpy(np.fromfile(f"{d}/tokens.i32", dtype=np.int32).astype(np.int64)).reshape(B, T)
    labels = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32).astype(np.int64))

    def linear(x, name, bias=True):
        y = x @ p[name + ".weight"].T
        return y + p[name + ".bias"] if bias else y

    def norm(x, name):
        return F.layer_norm(x, (C,), p[name + ".gamma"], p[name + ".beta"], eps)

    x = p["wte_wpe.weight"][tokens] + p["wte_wpe.position"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for i in range(L):
        h = f"h.{i}."
        q, k, v = linear(norm(x, h + "ln_1"), h + "attn.c_attn").split(C, dim=2)
        q, k, v = (t.reshape(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + linear(y, h + "attn.c_proj")
        f = F.gelu(linear(norm(x, h + "ln_2"), h + "mlp.c_fc"), approximate="tanh")
        x = x + linear(f, h + "mlp.c_proj")
    logits = linear(norm(x, "ln_f").reshape(B * T, C), "lm_head", bias=False)
    loss = F.cross_entropy(logits, labels)
    loss.backward()

    logits.detach().numpy().astype(np.float32).tofile(f"{d}/logits.f32")
    np.array([loss.item()], dtype=np.float64).tofile(f"{d}/loss.f64")
    grads = np.zeros(flat.numel(), dtype=np.float32)
    for e in m["params"]:
        n = math.prod(e["shape"])
        grads[e["offset"]:e["offset"] + n] = p[e["name"]].grad.reshape(-1).numpy()
    grads.tofile(f"{d}/grads.f32")


if __name__ == "__main__":
    main(sys.argv[1])
