#!/usr/bin/python3
"""One rank of the PyTorch DDP baseline for `fabriclab bench train`.

The same job as `fabriclab train --data synthetic`, written the way a PyTorch
user writes it: the same models (trainer/models.cc), the same per-rank batch
drawn from an in-memory synthetic set of the same size and shapes (8192 train
images of 1x28x28, DistributedSampler-style shards of one shared permutation
per epoch, index_select per step), SGD with momentum 0.9 and the same cosine
learning rate, gloo over loopback, DDP with its default buckets (1 MB first,
25 MB cap). The benchmark measures training throughput, not accuracy.

Launched once per rank with torchrun's environment (MASTER_ADDR,
MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK) by the same launcher that starts
fabriclab's ranks; GLOO_SOCKET_IFNAME=lo binds gloo to loopback. Writes the
same `step` events as doc/metrics.md (v, event, rank, ts, step, loss,
step_ms) to --metrics so both sides are timed by one function, and prints a
final JSON line: steps, warmup, wall_s, steps_per_s (after warmup).
"""

import argparse
import json
import math
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from torchrun_env import env_int  # beside this file


def make_model(kind: str, width: int) -> nn.Sequential:
    """The models of trainer/models.cc, layer for layer."""
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, width), nn.ReLU(),
                             nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, width), nn.ReLU(),
                         nn.Linear(width, 10))


def synthetic(seed: int, n: int):
    """Same shapes and recipe as trainer/dataset.cc: a prototype per class plus noise."""
    g = torch.Generator().manual_seed(seed)
    prototypes = torch.randn(10, 1, 28, 28, generator=g)
    labels = torch.randint(10, (n,), generator=g, dtype=torch.int64)
    images = prototypes.index_select(0, labels) + torch.randn(n, 1, 28, 28, generator=g)
    return images, labels


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--metrics", default="", help="append step events (JSON Lines) here")
    ap.add_argument("--gradient-as-bucket-view", action="store_true",
                    help="DDP(gradient_as_bucket_view=True): grads alias the buckets, as "
                         "fabriclab's do (DDP's default is False: copy in and out)")
    a = ap.parse_args()
    if a.width <= 0 or a.batch <= 0 or a.threads <= 0:
        ap.error("--width, --batch and --threads must be positive")
    if not 0 <= a.warmup < a.steps:
        ap.error("need 0 <= --warmup < --steps")

    rank, world = env_int("RANK", "ddp_baseline"), env_int("WORLD_SIZE", "ddp_baseline")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    images, labels = synthetic(a.seed, 8192)

    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=timedelta(seconds=a.timeout))
    # Default bucket_cap_mb=25 with a 1 MB first bucket, as fabriclab.
    model = DDP(make_model(a.model, a.width), gradient_as_bucket_view=a.gradient_as_bucket_view)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)

    out = open(a.metrics, "a") if a.metrics else None
    shard_size = images.size(0) // world
    per_epoch = max(1, shard_size // a.batch)
    shard = None
    ts = []
    for step in range(1, a.steps + 1):
        in_epoch = (step - 1) % per_epoch
        if in_epoch == 0:
            g = torch.Generator().manual_seed(a.seed + (step - 1) // per_epoch)
            shard = torch.randperm(images.size(0), generator=g)[rank::world]
        index = shard[in_epoch * a.batch:(in_epoch + 1) * a.batch]

        start = time.perf_counter()
        lr = 0.5 * a.lr * (1 + math.cos(math.pi * (step - 1) / a.steps))
        for group in opt.param_groups:
            group["lr"] = lr
        opt.zero_grad()
        loss = F.cross_entropy(model(images.index_select(0, index)), labels.index_select(0, index))
        loss.backward()
        opt.step()
        loss_value = loss.item()
        step_ms = (time.perf_counter() - start) * 1000
        now = time.time()
        ts.append(now)
        if out:
            out.write(json.dumps({"v": 1, "event": "step", "rank": rank, "ts": now, "step": step,
                                  "loss": loss_value, "step_ms": step_ms}) + "\n")
            out.flush()

    wall_s = ts[-1] - ts[a.warmup - 1] if a.warmup > 0 else None
    measured = a.steps - a.warmup
    result = {"rank": rank, "steps": a.steps, "warmup": a.warmup, "wall_s": wall_s,
              "steps_per_s": measured / wall_s if wall_s else None, "final_loss": loss_value}
    print(json.dumps(result), flush=True)
    if out:
        out.close()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
