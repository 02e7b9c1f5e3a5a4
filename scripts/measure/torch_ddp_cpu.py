"""Reference for the 2-replica CPU figure: PyTorch DDP with the gloo backend, 2 processes on this machine,
synthetic data, same model and per-replica batch as mgbench, threads split between the processes.
Prints one JSON line. images_per_sec is mgbench's definition: all replicas' images over the wall time of the
timed window (both ranks meet at a barrier before the first timed step and after the last; rank 0's clock
between the two). images_per_sec_at_median (2 x batch / rank 0's median step time) is shown beside it.
torch_config records torch.__config__.show(), the build the figure came from."""
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

    def step():
        opt.zero_grad(set_to_none=True)
        lossf(model(x), y).backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    dist.barrier()
    start = time.perf_counter()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    dist.barrier()  # the window ends when the slower replica has finished its last step
    wall = time.perf_counter() - start
    dist.destroy_process_group()
    if rank == 0:
        times.sort()
        q.put((wall, times[len(times) // 2]))


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
    for name in ("batch", "image", "steps", "threads"):
        if getattr(a, name) <= 0:
            p.error(f"--{name} must be positive")
    if a.warmup < 0:
        p.error("--warmup must be >= 0")
    if not hasattr(tvm, a.model):
        p.error(f"--model {a.model}: torchvision has no such model")
    q = mp.get_context("spawn").SimpleQueue()
    mp.spawn(worker, args=(a, q), nprocs=2, join=True)
    wall, med = q.get()
    print(json.dumps({"reference": "pytorch-ddp-gloo-" + torch.__version__, "model": a.model, "batch_per_replica": a.batch,
                      "replicas": 2, "steps": a.steps, "warmup": a.warmup, "threads_per_replica": max(1, a.threads // 2),
                      "wall_s": wall, "images_per_sec": 2 * a.batch * a.steps / wall,
                      "median_step_s": med, "images_per_sec_at_median": 2 * a.batch / med,
                      "torch_config": torch.__config__.show()}))


if __name__ == "__main__":
    main()
