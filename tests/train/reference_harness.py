"""What the PyTorch references of tests/train/ share (gpt2_torch_reference.py, vit_torch_reference.py; their C++
side is torch_reference.h): reading the parameters, batch and manifest mgbench wrote to DIR, and either one forward
and backward (-> logits.f32, loss.f64, grads.f32) or, where the manifest names "steps" and an "optimizer", that
many steps of torch.optim on the one batch (-> losses.f64).

  DIR/manifest.json  batch, size (sequence length or image size), layers, heads, eps; params: name, shape and
                     offset of each parameter in params.f32 (mgbench's names and layouts); optional dtype
                     ("float64", the default, or "float32"), steps and optimizer
  DIR/params.f32     every parameter, flat
  DIR/inputs.bin     the batch's inputs as mgbench lays them out (read by the model's script)
  DIR/labels.i32     the labels
"""
import json
import math

import numpy as np
import torch
import torch.nn.functional as F


def run(d, forward, read_inputs):
    """forward(p, x, m): logits {rows, classes} from parameters p (name -> tensor) and inputs x;
    read_inputs(m, path, dtype): the inputs from inputs.bin, as forward takes them (dtype: the run's float type)."""
    m = json.load(open(f"{d}/manifest.json"))
    dtype = {"float64": torch.float64, "float32": torch.float32}[m.get("dtype", "float64")]
    flat = torch.from_numpy(np.fromfile(f"{d}/params.f32", dtype=np.float32)).to(dtype)
    p = {}
    for e in m["params"]:
        n = math.prod(e["shape"])
        p[e["name"]] = flat[e["offset"]:e["offset"] + n].reshape(e["shape"]).clone().requires_grad_(True)
    x = read_inputs(m, f"{d}/inputs.bin", dtype)
    labels = torch.from_numpy(np.fromfile(f"{d}/labels.i32", dtype=np.int32).astype(np.int64))
    if "steps" in m:
        train(m, p, lambda: F.cross_entropy(forward(p, x, m), labels), d)
        return

    logits = forward(p, x, m)
    loss = F.cross_entropy(logits, labels)
    loss.backward()

    logits.detach().numpy().astype(np.float32).tofile(f"{d}/logits.f32")
    np.array([loss.item()], dtype=np.float64).tofile(f"{d}/loss.f64")
    grads = np.zeros(flat.numel(), dtype=np.float32)
    for e in m["params"]:
        n = math.prod(e["shape"])
        grads[e["offset"]:e["offset"] + n] = p[e["name"]].grad.reshape(-1).numpy()
    grads.tofile(f"{d}/grads.f32")


def train(m, p, loss_fn, d):
    """m["steps"] steps of torch.optim on the one batch, as scripts/measure/torch_gpt2.py's loop runs them."""
    o = m["optimizer"]
    params = list(p.values())
    opt = (torch.optim.AdamW(params, lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"], weight_decay=o["weight_decay"])
           if o["name"] == "adamw" else
           torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"]))
    losses = []
    for _ in range(m["steps"]):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.array(losses, dtype=np.float64).tofile(f"{d}/losses.f64")
