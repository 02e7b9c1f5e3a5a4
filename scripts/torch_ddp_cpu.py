"""Reference for the 2-replica CPU figure: PyTorch DDP with the gloo backend, 2 processes on this machine,
synthetic data, same model and per-replica batch as mgbench, threads split between the processes.
Prints one JSON line with total images/s (median step time across rank 0's timed steps)."""
import argparse, json, os, time
import torch, torch.distributed as dist, torch.multiprocessing as mp, torch.nn as nn
import torchvision.models as tvm


def worker(rank, a, q):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    torch.set_num_threads(max(1, a.threads // 2))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(getattr(tvm, a.model)(num_classes=1000))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(a.batch, 3, a.image, a.image)
    y = torch.randint(0, 1000, (a.batch,))
    lossf = nn.CrossEntropyLoss()
    times = []
    for i in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        lossf(model(x), y).backward()
        opt.step()
        if i >= a.warmup:
            times.append(time.perf_counter() - t0)
    dist.destroy_process_group()
    if rank == 0:
        times.sort()
        q.put(times[len(times) // 2])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="resnet50")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--image", type=int, default=224)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--port", type=int, default=29611)
    a = p.parse_args()
    q = mp.get_context("spawn").SimpleQueue()
    mp.spawn(worker, args=(a, q), nprocs=2, join=True)
    med = q.get()
    print(json.dumps({"reference": "pytorch-ddp-gloo-" + torch.__version__, "model": a.model, "batch_per_replica": a.batch,
                      "replicas": 2, "median_step_s": med, "images_per_sec": 2 * a.batch / med}))


if __name__ == "__main__":
    main()
