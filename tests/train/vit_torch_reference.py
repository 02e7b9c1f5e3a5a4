#!/usr/bin/env python3
"""The reference side of tests/train/test_vit_torch.cpp: a Vision Transformer written plainly in PyTorch, laid out
as torchvision's vit_b_16 and mgbench's models/vit.cpp build it (needs no torchvision), in float64 on the
parameters, images and labels mgbench wrote to DIR; writes the logits, the mean cross-entropy and every parameter's
gradient back for the C++ test to compare, or trains with torch.optim where the manifest names "steps"
(reference_harness.py says what DIR holds).

  vit_torch_reference.py DIR

The model: a stride-p p x p convolution with bias cuts the image into patches (row by row), the class token goes in
front and the position table is added; pre-norm encoder blocks (ln_1, fused qkv, full multi-head attention, proj,
residual; ln_2, fc1, exact GELU, fc2, residual), the final layer norm, and the head reads the class token. Layer
norm eps comes from the manifest (1e-6). mgbench's layouts, kept for the parameters (so their gradients come back
in them) and converted where used: images NHWC (inputs.bin, fp32 {batch, size, size, 3}), the patch convolution's
weight {O, KH, KW, I}, the class token {C}, the position table {1 + patches, C}, Linear weights {out, in}.
"""
import math
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from reference_harness import run

gelu = nn.GELU()  # the exact erf form (torchvision's ViT MLP)


def vit_forward(p, images, layers, heads, eps):
    """Logits {B, classes} for images {B, 3, H, W} (NCHW) with parameters p (mgbench's names and layouts)."""
    w = p["conv_proj.weight"]  # {C, p, p, 3}
    C, patch = w.shape[0], w.shape[1]

    def norm(x, name):
        return F.layer_norm(x, (C,), p[name + ".gamma"], p[name + ".beta"], eps)

    def linear(x, name):
        return F.linear(x, p[name + ".weight"], p[name + ".bias"])

    x = F.conv2d(images, w.permute(0, 3, 1, 2), p["conv_proj.bias"], stride=patch)  # {B, C, h, w}
    B = x.shape[0]
    x = x.flatten(2).transpose(1, 2)  # {B, h*w, C}: patches row by row
    x = torch.cat([p["tokens.class"].expand(B, 1, C), x], dim=1) + p["tokens.position"]
    T = x.shape[1]
    for i in range(layers):
        h = f"encoder.{i}."
        q, k, v = linear(norm(x, h + "ln_1"), h + "attn.qkv").split(C, dim=2)
        q, k, v = (t.reshape(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // heads))  # no mask: every token sees every token
        y = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + linear(y, h + "attn.proj")
        x = x + linear(gelu(linear(norm(x, h + "ln_2"), h + "mlp.fc1")), h + "mlp.fc2")
    return linear(norm(x, "ln")[:, 0], "head")


def read_images(m, path, dtype):
    """inputs.bin's NHWC images as the NCHW tensor conv2d takes."""
    n, s = m["batch"], m["size"]
    return torch.from_numpy(np.fromfile(path, dtype=np.float32)).to(dtype).reshape(n, s, s, 3).permute(0, 3, 1, 2)


if __name__ == "__main__":
    run(sys.argv[1], lambda p, images, m: vit_forward(p, images, m["layers"], m["heads"], m["eps"]), read_images)
