#!/usr/bin/env python3
"""GPT-2 written plainly in PyTorch, as mgbench builds it (nanoGPT's layout: token and position embeddings,
pre-norm blocks with fused qkv, causal attention, tanh GELU, ln_f, a head without bias whose weight is the token
table, tied as GPT2LMHeadModel's lm_head.weight = wte.weight), and a timed training loop over it: mgbench's
reference for language models, on the same machine and in the same script.

  /usr/bin/python3 scripts/measure/torch_gpt2.py --model gpt2 --seq-len 256 --batch 4 --steps 5 --threads 2
  python3 scripts/measure/torch_gpt2.py --device cuda --precision bf16 --model gpt2 --seq-len 1024 --batch 8 --steps 20

Prints one JSON line (tokens_per_sec: tokens over the wall time of the timed window; the per-step host times give
the median). The training step is mgbench's: a synthetic batch of token ids and next tokens, forward, mean
next-token cross-entropy, backward, AdamW with PyTorch's defaults (or SGD with momentum). On CUDA every step ends
with a synchronize, and bf16/fp16 run under autocast (fp16 with a GradScaler), as mixed-precision PyTorch does.
gpt2_forward is also what tests/train/gpt2_torch_reference.py checks mgbench's gradients against.
"""
import argparse
import contextlib
import json
import math
import os
import platform
import resource
import time

import torch
import torch.nn.functional as F

CONFIGS = {  # layers, heads, width, vocabulary, positions: as mgbench's models/ builds them
    "gpt2": (12, 12, 768, 50257, 1024),
    "gpt2-medium": (24, 16, 1024, 50257, 1024),
    "gpt2-tiny": (2, 2, 64, 256, 64),
}


def param_shapes(layers, width, vocab, positions):
    """Name -> shape, in mgbench's names ("<layer>.<parameter>") and layouts (Linear weight {out, in}); the head has
    no weight of its own (it reads the token table)."""
    c = width
    s = {"wte_wpe.weight": (vocab, c), "wte_wpe.position": (positions, c)}
    for i in range(layers):
        h = f"h.{i}."
        for ln in ("ln_1", "ln_2"):
            s[h + ln + ".gamma"], s[h + ln + ".beta"] = (c,), (c,)
        for name, out, inp in (("attn.c_attn", 3 * c, c), ("attn.c_proj", c, c), ("mlp.c_fc", 4 * c, c),
                               ("mlp.c_proj", c, 4 * c)):
            s[h + name + ".weight"], s[h + name + ".bias"] = (out, inp), (out,)
    s["ln_f.gamma"], s["ln_f.beta"] = (c,), (c,)
    return s


def gpt2_forward(p, tokens, layers, heads, eps=1e-5, attention="plain"):
    """Logits {B*T, V} for token ids {B, T} with parameters p (name -> tensor, as param_shapes names them);
    attention "plain" writes out softmax(QK^T/sqrt(d))V, "sdpa" calls PyTorch's fused scaled_dot_product_attention."""
    B, T = tokens.shape
    C = p["wte_wpe.weight"].shape[1]

    def norm(x, name):
        return F.layer_norm(x, (C,), p[name + ".gamma"], p[name + ".beta"], eps)

    def linear(x, name):
        return F.linear(x, p[name + ".weight"], p.get(name + ".bias"))

    x = p["wte_wpe.weight"][tokens] + p["wte_wpe.position"][:T]
    mask = torch.ones(T, T, dtype=torch.bool, device=tokens.device).tril()
    for i in range(layers):
        h = f"h.{i}."
        q, k, v = linear(norm(x, h + "ln_1"), h + "attn.c_attn").split(C, dim=2)
        q, k, v = (t.reshape(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
        if attention == "sdpa":
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // heads))
            y = att.masked_fill(~mask, float("-inf")).softmax(dim=-1) @ v
        y = y.transpose(1, 2).reshape(B, T, C)
        x = x + linear(y, h + "attn.c_proj")
        x = x + linear(F.gelu(linear(norm(x, h + "ln_2"), h + "mlp.c_fc"), approximate="tanh"), h + "mlp.c_proj")
    # The head's weight is the token table (lm_head.weight = wte.weight): its gradient sums both uses.
    return F.linear(norm(x, "ln_f").reshape(B * T, C), p["wte_wpe.weight"])


def init_params(shapes, layers, seed=1, device="cpu"):
    """GPT-2's initialisation (nanoGPT): weights N(0, 0.02), residual projections N(0, 0.02 / sqrt(2L)), biases
    and betas 0, gammas 1; drawn on the CPU (the same values on every device), then moved to device."""
    g = torch.Generator().manual_seed(seed)
    p = {}
    for name, shape in shapes.items():
        if name.endswith(".gamma"):
            t = torch.ones(shape)
        elif name.endswith(".beta") or name.endswith(".bias"):
            t = torch.zeros(shape)
        else:
            std = 0.02 / math.sqrt(2 * layers) if name.endswith("c_proj.weight") else 0.02
            t = torch.randn(shape, generator=g) * std
        p[name] = t.to(device).requires_grad_(True)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=sorted(CONFIGS), default="gpt2")
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4, help="sequences per step")
    ap.add_argument("--steps", type=int, default=5, help="timed steps")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    ap.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--precision", choices=["fp32", "tf32", "bf16", "fp16"], default="fp32",
                    help="tf32, bf16 and fp16 need --device cuda")
    ap.add_argument("--attention", choices=["plain", "sdpa"], default="plain",
                    help="plain: the products and softmax written out; sdpa: torch's fused attention (PyTorch >= 2.0)")
    a = ap.parse_args()
    layers, heads, width, vocab, positions = CONFIGS[a.model]
    if not 1 <= a.seq_len <= positions:
        ap.error(f"--seq-len must be between 1 and {positions}")
    if a.batch <= 0 or a.steps <= 0 or a.warmup < 0:
        ap.error("--batch and --steps must be positive, --warmup >= 0")
    if a.precision != "fp32" and a.device != "cuda":
        ap.error(f"--precision {a.precision} needs --device cuda")
    if a.attention == "sdpa" and not hasattr(F, "scaled_dot_product_attention"):
        ap.error(f"--attention sdpa: torch {torch.__version__} has no scaled_dot_product_attention (PyTorch >= 2.0)")
    if a.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: torch sees no CUDA device")
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    cuda = a.device == "cuda"
    if cuda:  # mgbench's fp32 is strict fp32; its tf32 lets the products round their inputs to tf32
        torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
        torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.precision)
    scaler = torch.amp.GradScaler("cuda") if a.precision == "fp16" else None
    torch.manual_seed(1)
    p = init_params(param_shapes(layers, width, vocab, positions), layers, device=a.device)
    params = list(p.values())
    opt = (torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01) if a.optimizer == "adamw"
           else torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=1e-4))
    rows = torch.randint(0, vocab, (a.batch, a.seq_len + 1)).to(a.device)
    tokens, labels = rows[:, :-1].contiguous(), rows[:, 1:].reshape(-1).contiguous()

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=half) if half else contextlib.nullcontext():
            loss = F.cross_entropy(gpt2_forward(p, tokens, layers, heads, attention=a.attention), labels)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        if cuda:  # a step's time is its kernels', not their launch
            torch.cuda.synchronize()
        return loss

    for _ in range(a.warmup):
        step()
    stamps = [time.perf_counter()]
    for _ in range(a.steps):
        loss = step()
        stamps.append(time.perf_counter())
    wall = stamps[-1] - stamps[0]
    step_s = sorted(stamps[i + 1] - stamps[i] for i in range(a.steps))
    median = step_s[len(step_s) // 2] if len(step_s) % 2 else 0.5 * (step_s[len(step_s) // 2 - 1] +
                                                                      step_s[len(step_s) // 2])
    tokens_per_step = a.batch * a.seq_len
    print(json.dumps({
        "reference": "pytorch", "torch": torch.__version__, "host": platform.node(),
        "threads": torch.get_num_threads(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "device": torch.cuda.get_device_name() if cuda else "cpu", "precision": a.precision,
        "model": a.model, "seq_len": a.seq_len, "batch": a.batch, "optimizer": a.optimizer, "attention": a.attention,
        "parameters": sum(t.numel() for t in params),
        "warmup": a.warmup, "steps": a.steps, "wall_s": wall,
        "tokens_per_sec": tokens_per_step * a.steps / wall,
        "median_step_s": median, "tokens_per_sec_at_median": tokens_per_step / median,
        "step_times_s": [stamps[i + 1] - stamps[i] for i in range(a.steps)],
        "final_loss": float(loss),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "peak_memory_reserved_bytes": torch.cuda.max_memory_reserved() if cuda else None,
        "torch_config": torch.__config__.show(),
    }))


if __name__ == "__main__":
    main()
