"""mgbench's PyTorch reference: the same training step mgbench times (synthetic batch, forward, softmax
cross-entropy, backward, SGD with momentum 0.9 and weight decay 1e-4), written plainly in PyTorch so a figure can
be checked against the framework users already trust, on the same machine and in the same script.

  python3 scripts/measure/torch_reference.py --device cpu --model resnet50 --batch 16 --threads 2
  python3 scripts/measure/torch_reference.py --device cuda --model resnet50 --batch 128 --precision bf16 --channels-last

Prints one JSON line. Timing follows mgbench's rules: warm-up steps are excluded; images_per_sec is images over
the wall time of the whole timed window (on CUDA one synchronisation at its end, none inside it), and the
per-step times (CUDA events on a GPU, the host clock on CPU) give the median and the spread.
On CPU use Debian's python3-torch and python3-torchvision with /usr/bin/python3."""
import argparse
import contextlib
import json
import os
import platform
import resource
import time

import torch
import torch.nn.functional as F
import torchvision.models


def cpu_model_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--model", default="resnet50", help="a torchvision.models constructor name")
    p.add_argument("--batch", type=int, default=32, help="images per step")
    p.add_argument("--image", type=int, default=224, help="image height and width")
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("--steps", type=int, default=20, help="timed steps")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    p.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"], default="fp32")
    p.add_argument("--channels-last", action="store_true", help="NHWC activations and weights")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (compiled in the warm-up steps)")
    a = p.parse_args()
    for name in ("batch", "image", "classes", "steps"):
        if getattr(a, name) <= 0:
            p.error(f"--{name} must be positive")
    if a.warmup < 0:
        p.error("--warmup must be >= 0")
    if a.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device is visible to PyTorch")
    if a.device == "cpu" and a.precision in ("tf32", "fp16"):
        p.error(f"--precision {a.precision} is a GPU precision; on CPU use fp32 or bf16")
    if not hasattr(torchvision.models, a.model):
        p.error(f"--model {a.model}: torchvision has no such model")
    return a


def main():
    a = parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    dev = torch.device(a.device)
    on_gpu = dev.type == "cuda"
    if on_gpu:
        tf32 = a.precision == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cudnn.benchmark = True  # mgbench also picks conv algorithms once, before timing
    torch.manual_seed(1)
    layout = torch.channels_last if a.channels_last else torch.contiguous_format
    kwargs = {"num_classes": a.classes}
    if a.model.startswith("inception"):
        kwargs.update(aux_logits=False, init_weights=True)  # mgbench's inception3 has no auxiliary head
    net = getattr(torchvision.models, a.model)(**kwargs).to(dev, memory_format=layout)
    net.train()
    if a.compile:
        net = torch.compile(net)
    opt = torch.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9, weight_decay=1e-4)
    images = torch.rand(a.batch, 3, a.image, a.image, device=dev).to(memory_format=layout)
    labels = torch.randint(0, a.classes, (a.batch,), device=dev)
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(a.precision)
    scaler = torch.cuda.amp.GradScaler() if (on_gpu and a.precision == "fp16") else None

    def step():
        opt.zero_grad(set_to_none=True)
        # fp32/tf32 run without autocast (torch 1.13 refuses an fp32 autocast dtype on CPU even when disabled).
        amp = torch.autocast(device_type=dev.type, dtype=autocast_dtype) if autocast_dtype else contextlib.nullcontext()
        with amp:
            loss = F.cross_entropy(net(images), labels)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    for _ in range(a.warmup):
        step()
    if on_gpu:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        marks = [torch.cuda.Event(enable_timing=True) for _ in range(a.steps + 1)]
        wall0 = time.perf_counter()
        marks[0].record()
        for i in range(a.steps):
            loss = step()
            marks[i + 1].record()
        torch.cuda.synchronize()
        wall = time.perf_counter() - wall0
        step_s = [marks[i].elapsed_time(marks[i + 1]) / 1e3 for i in range(a.steps)]
    else:
        stamps = [time.perf_counter()]
        for _ in range(a.steps):
            loss = step()
            stamps.append(time.perf_counter())
        wall = stamps[-1] - stamps[0]
        step_s = [stamps[i + 1] - stamps[i] for i in range(a.steps)]
    final_loss = float(loss)
    if final_loss != final_loss or final_loss in (float("inf"), float("-inf")):
        raise SystemExit(f"torch_reference: the loss is not finite ({final_loss}) after the timed steps")

    ordered = sorted(step_s)
    median = ordered[len(ordered) // 2] if len(ordered) % 2 else 0.5 * (ordered[len(ordered) // 2 - 1] +
                                                                        ordered[len(ordered) // 2])
    out = {
        "reference": "pytorch",
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "device": torch.cuda.get_device_name(dev) if on_gpu else "cpu",
        "cudnn": torch.backends.cudnn.version() if on_gpu else None,
        "cpu": cpu_model_name(),
        "host": platform.node(),
        "threads": torch.get_num_threads(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "model": a.model, "batch": a.batch, "image": a.image, "classes": a.classes,
        "precision": a.precision, "channels_last": a.channels_last, "compile": a.compile,
        "warmup": a.warmup, "steps": a.steps,
        "wall_s": wall,
        "images_per_sec": a.batch * a.steps / wall,
        "median_step_s": median,
        "images_per_sec_at_median": a.batch / median,
        "step_times_s": step_s,
        "final_loss": final_loss,
        # Peak memory as each device reports it: the caching allocator's high-water marks on a GPU, the whole
        # process's peak resident set (Python included) on CPU.
        "peak_memory_allocated_bytes": torch.cuda.max_memory_allocated(dev) if on_gpu else None,
        "peak_memory_reserved_bytes": torch.cuda.max_memory_reserved(dev) if on_gpu else None,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        # The build the figure came from (BLAS, oneDNN, OpenMP, compiler, ISA), as torch reports it.
        "torch_config": torch.__config__.show(),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
