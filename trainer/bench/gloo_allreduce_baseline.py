#!/usr/bin/python3
"""One rank of PyTorch's own Gloo allreduce, the baseline of `fabriclab bench allreduce --baseline pytorch`.

What a PyTorch user runs: torch.distributed.all_reduce (backend gloo, in place,
sum) on a float32 tensor, in the same lab namespaces as fabriclab's ranks,
over the lab device (GLOO_SOCKET_IFNAME, set by the bench), at the same sizes,
with the same warmup and timed iterations. Timed as fabriclab's
`bench allreduce-rank` times itself (runner/bench/allreduce_rank.cc): `warmup`
untimed allreduces, a barrier, `iters` back-to-back ones, the elapsed time
divided by `iters`; the bench averages that over ranks. Checked as it checks
(runner/bench/allreduce_check.h): each rank fills element i with
(rank + 1) x (i mod 251 + 1), one more allreduce, and every element that is not
(i mod 251 + 1) x n(n+1)/2 is one #wrong.

Launched once per rank with torchrun's environment (MASTER_ADDR, MASTER_PORT,
RANK, WORLD_SIZE), as the bench launches its own ranks. Writes one JSON line
per size to --results:
  {"size": B, "count": N, "torch": "1.13.1", "in_place": {"time_us": T, "wrong": W}}
(W -1 with --check 0). Exit 1 with a message on stderr when a collective fails.
"""

import argparse
import json
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

from torchrun_env import env_int  # beside this file


def fill(tensor: torch.Tensor, rank: int) -> None:
    """rank r's input: (r + 1) x (i mod 251 + 1), as fill_allreduce_input()."""
    pattern = torch.arange(tensor.numel(), dtype=torch.int64).remainder_(251).add_(1)
    tensor.copy_(pattern.mul_(rank + 1))


def count_wrong(tensor: torch.Tensor, world: int) -> int:
    """Elements that are not the exact sum over `world` ranks, as count_wrong_elements()."""
    expected = torch.arange(tensor.numel(), dtype=torch.int64).remainder_(251).add_(1)
    expected = expected.mul_(world * (world + 1) // 2).to(torch.float32)
    return int(tensor.ne(expected).sum().item())


def measure(size: int, iters: int, warmup: int, check: bool, rank: int, world: int) -> dict:
    count = size // 4
    tensor = torch.empty(count, dtype=torch.float32)
    fill(tensor, rank)
    for _ in range(warmup):
        dist.all_reduce(tensor)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(tensor)
    time_us = (time.perf_counter() - start) * 1e6 / iters
    wrong = -1
    if check:
        # Fresh data: the timed iterations have summed the sums many times over.
        fill(tensor, rank)
        dist.all_reduce(tensor)
        wrong = count_wrong(tensor, world)
    return {"size": size, "count": count, "torch": torch.__version__,
            "in_place": {"time_us": time_us, "wrong": wrong}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", required=True, help="bytes, comma-separated, multiples of 4")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--check", type=int, choices=[0, 1], default=1)
    ap.add_argument("--results", required=True, help="JSON Lines, one per size")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if any(s <= 0 or s % 4 for s in sizes):
        ap.error("--sizes: each must be a positive multiple of 4")
    if a.iters < 1 or a.warmup < 0:
        ap.error("--iters must be >= 1 and --warmup >= 0")

    rank, world = env_int("RANK", "gloo_allreduce_baseline"), env_int("WORLD_SIZE", "gloo_allreduce_baseline")
    env_int("MASTER_PORT", "gloo_allreduce_baseline")
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=timedelta(seconds=a.timeout))
    with open(a.results, "w") as out:
        for size in sizes:
            out.write(json.dumps(measure(size, a.iters, a.warmup, a.check == 1, rank, world)) + "\n")
            out.flush()
    dist.barrier()  # nobody closes its connections while a peer still reads
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
