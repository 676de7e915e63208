#!/usr/bin/python3
"""fabriclab's training job written as a plain PyTorch DDP script.

The job `fabriclab train` runs (trainer/trainer.cc), the way a PyTorch user
writes it: the same models (trainer/models.cc), Fashion-MNIST read from
dataset-fashion-mnist's idx files and normalized as trainer/dataset.cc does,
each epoch one shared permutation sharded by rank, SGD with momentum and the
same cosine learning rate, torch.distributed with the Gloo backend and
DistributedDataParallel with the given bucket sizes. With --step-compute-ms T
a step sleeps after its forward pass up to T less its real compute (forward
now, backward as the step before's), as the trainer does
(trainer/emulated_compute.h): an accelerator's compute time.

Launched with torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT; GLOO_SOCKET_IFNAME picks the interface): by torchrun, or by
fabriclab's `command` workload (`fabriclab run 02 --workload ddp`). Each step
is reported through fabriclab_metrics (doc/metrics.md's step fields):

  step_ms     the whole step: forward, sleep, backward with DDP's allreduce,
              optimizer
  comm_ms     from the moment DDP hands its first gradient bucket to the
              allreduce (its comm hook: DDP's own allreduce_hook, timed) to
              the end of backward(), which waits for every bucket: the
              communication the step waited for. With one bucket (the lab's
              bucket sizes) the allreduce starts once backward is done, as in
              fabriclab's trainer; with several, overlapped compute counts too.
  loss, bytes (the gradient's size), samples, slowed_ms
"""

import argparse
import gzip
import math
import os
import struct
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

import fabriclab_metrics

PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530  # trainer/dataset.cc


def make_model(kind, width):
    """The models of trainer/models.cc, layer for layer."""
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, width), nn.ReLU(),
                             nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, width), nn.ReLU(),
                         nn.Linear(width, 10))


def read_idx(folder, stem):
    """One idx file (gzip'd or plain) as a uint8 tensor of its dimensions."""
    for path, opener in ((f"{folder}/{stem}.gz", gzip.open), (f"{folder}/{stem}", open)):
        if os.path.exists(path):
            with opener(path, "rb") as f:
                data = f.read()
            dims = data[3]
            shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
            flat = torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8)
            return flat.reshape(shape)
    sys.exit(f"ddp_train: {folder}/{stem}[.gz]: not found; install the dataset with: "
             "apt-get install dataset-fashion-mnist")


def load_train(folder):
    images = read_idx(folder, "train-images-idx3-ubyte")
    labels = read_idx(folder, "train-labels-idx1-ubyte")
    images = (images.to(torch.float32).div_(255.0).sub_(PIXEL_MEAN).div_(PIXEL_STD)).unsqueeze(1)
    return images, labels.to(torch.int64)


class CommClock:
    """DDP's default allreduce hook, noting when the step's first bucket is handed over."""

    def __init__(self):
        self.first = None

    def hook(self, process_group, bucket):
        if self.first is None:
            self.first = time.perf_counter()
        return default_hooks.allreduce_hook(process_group, bucket)


def env_int(name):
    value = os.environ.get(name)
    if value is None:
        sys.exit(f"ddp_train: {name} is not set (expected torchrun's RANK, WORLD_SIZE, "
                 "MASTER_ADDR, MASTER_PORT)")
    return int(value)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds a collective may take")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--bucket-cap-mb", type=float, default=25)
    ap.add_argument("--first-bucket-mb", type=float, default=1)
    ap.add_argument("--step-compute-ms", type=float, default=0)
    a = ap.parse_args()
    if min(a.width, a.steps, a.batch, a.threads) < 1:
        ap.error("--width, --steps, --batch and --threads must be at least 1")

    rank, world = env_int("RANK"), env_int("WORLD_SIZE")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    images, labels = load_train(a.data)

    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=timedelta(seconds=a.timeout))
    # DDP reads its first bucket's size from here (torch 1.13: no argument).
    dist._DEFAULT_FIRST_BUCKET_BYTES = int(a.first_bucket_mb * 1024 * 1024)
    model = DDP(make_model(a.model, a.width), bucket_cap_mb=a.bucket_cap_mb)
    clock = CommClock()
    model.register_comm_hook(dist.group.WORLD, clock.hook)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)
    grad_bytes = 4 * sum(p.numel() for p in model.parameters())

    per_epoch = max(1, images.size(0) // world // a.batch)
    shard = None
    last_backward_ms = -1.0
    for step in range(1, a.steps + 1):
        in_epoch = (step - 1) % per_epoch
        if in_epoch == 0:
            g = torch.Generator().manual_seed(a.seed + (step - 1) // per_epoch)
            shard = torch.randperm(images.size(0), generator=g)[rank::world]
        index = shard[in_epoch * a.batch:(in_epoch + 1) * a.batch]

        start = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = 0.5 * a.lr * (1 + math.cos(math.pi * (step - 1) / a.steps))
        opt.zero_grad()
        loss = F.cross_entropy(model(images.index_select(0, index)), labels.index_select(0, index))
        slowed_ms = 0.0
        if a.step_compute_ms > 0:
            forward_ms = (time.perf_counter() - start) * 1000
            real_ms = forward_ms + (last_backward_ms if last_backward_ms >= 0 else 2 * forward_ms)
            sleep_ms = max(real_ms, a.step_compute_ms) - real_ms
            slept = time.perf_counter()
            time.sleep(sleep_ms / 1000)
            slowed_ms = (time.perf_counter() - slept) * 1000
        clock.first = None
        backward_start = time.perf_counter()
        loss.backward()
        backward_end = time.perf_counter()
        comm_ms = (backward_end - clock.first) * 1000 if clock.first else 0.0
        last_backward_ms = (backward_end - backward_start) * 1000 - comm_ms
        opt.step()
        step_ms = (time.perf_counter() - start) * 1000
        fields = {"loss": loss.item(), "step_ms": step_ms, "comm_ms": comm_ms,
                  "compute_ms": step_ms - comm_ms, "bytes": grad_bytes if world > 1 else 0,
                  "samples": int(index.size(0))}
        if a.step_compute_ms > 0:
            fields["slowed_ms"] = slowed_ms
        fabriclab_metrics.step(step, **fields)

    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
