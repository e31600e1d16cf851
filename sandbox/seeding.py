"""Random streams that are the same in every process.

Python's `hash()` is salted per process, so seeds are derived with SHA-256 instead: a run
repeated tomorrow, or on another worker, makes exactly the same choices.
"""

from __future__ import annotations

import hashlib
import random


def stable_rng(*parts: object) -> random.Random:
    """A `random.Random` seeded by the parts' text, stable across processes and platforms."""
    key = "\x1f".join(str(part) for part in parts).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def trace_seed(task_id: str, model_name: str, temperature, repetition: int) -> int:
    """Seeded by what the job is, not by the run: the same job run again is the same input."""
    text = f"{task_id}|{model_name}|{temperature}|{repetition}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
