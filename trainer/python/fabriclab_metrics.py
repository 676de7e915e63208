"""Report a training step to fabriclab's runner: one JSON line per step.

A `command` workload's rank (labs/SCHEMA.md, "The command workload") gets
FABRICLAB_STEPS_FD in its environment: the runner's `fabriclab job` reads
one JSON object per line from it, in metrics.jsonl's `step` format
(doc/metrics.md), and records each as that rank's step event. The runner
puts this file's folder on PYTHONPATH, so a training loop only needs:

    import fabriclab_metrics
    ...
    fabriclab_metrics.step(step, step_ms=..., comm_ms=..., loss=..., bytes=...)

Outside fabriclab (no FABRICLAB_STEPS_FD) step() does nothing, so the same
script runs under torchrun unchanged. The standard library only.
"""

import json
import os

_out = None


def _stream():
    global _out
    if _out is None:
        fd = os.environ.get("FABRICLAB_STEPS_FD")
        if not fd:
            return None
        # A duplicate: closing this stream never closes the runner's fd.
        _out = os.fdopen(os.dup(int(fd)), "w", buffering=1)
    return _out


def step(step, **fields):
    """Reports step number `step` (1-based) with its fields: step_ms,
    comm_ms, compute_ms, loss, bytes, samples... (doc/metrics.md, `step`).
    Call it once per step, after the step's work; the runner's watchdog
    counts a step as progress when every rank has reported it."""
    out = _stream()
    if out is None:
        return
    fields["step"] = int(step)
    out.write(json.dumps(fields) + "\n")
