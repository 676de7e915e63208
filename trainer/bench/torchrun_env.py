"""torchrun's environment as the bench's Python ranks read it.

fabriclab starts each baseline rank (ddp_baseline.py, gloo_allreduce_baseline.py)
with the variables torchrun would set; a missing one is a clear exit, not a
KeyError.
"""
import os
import sys


def env_int(name: str, script: str) -> int:
    value = os.environ.get(name)
    if value is None:
        sys.exit(f"{script}: environment variable {name} is not set (expected torchrun's "
                 "MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)")
    return int(value)
