"""How long does the largest study plan one request may ask for take? (Issue 34: at its own
form bounds the planner ran past 120 s and got its web worker killed; `planning.MAX_PLAN_WORK`
now refuses a plan past a budget.)

Times `plan_study` on a synthetic 30-item pilot with 4 clinicians per item, for the page's
default request and for the worst requests inside the budget: the largest single study size
on 1 and on 6 dimensions (the rubric's), and the most designs. Prints each request's work
units, seconds and peak memory added; the figure to watch is the worst in-bounds seconds,
which must stay well inside a web worker's timeout.

    .venv/bin/python benchmarks/planner_budget.py           # ~1-2 minutes on 2 cores
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from planner_check import POPULATIONS, as_ratings  # noqa: E402

from annotation.pure import planning  # noqa: E402
from annotation.pure.agreement import Rating  # noqa: E402


def pilot(dimensions: int) -> list[Rating]:
    rng = np.random.default_rng(0)
    found = []
    for d in range(dimensions):
        for r in as_ratings(*POPULATIONS[1].draw(rng, 30, 4)):
            found.append(Rating(r.item, r.rater, f"dimension {d}", r.score, kind=r.kind))
    return found


def largest_size(overlaps: tuple[int, ...], dimensions: int) -> tuple[int, ...]:
    """The one study size with the most items the budget allows."""
    fixed = planning.plan_work((0,), overlaps, dimensions)
    per_item = planning.plan_work((1,), overlaps, dimensions) - fixed
    return ((planning.MAX_PLAN_WORK - fixed) // per_item,)


def requests() -> list[tuple[str, tuple[int, ...], tuple[int, ...], int]]:
    return [
        ("page default, 6 dimensions", (20, 40, 80, 160), (2, 3, 4), 6),
        ("largest size, 1 dimension", largest_size((2,), 1), (2,), 1),
        ("largest size, 6 dimensions", largest_size((2,), 6), (2,), 6),
        ("most designs, 6 dimensions", (6, 7, 8), tuple(range(2, 10)), 6),
    ]


def main() -> None:
    print(f"budget {planning.MAX_PLAN_WORK:,} work units per request")
    header = f"{'request':<28} {'items':>24} {'overlaps':>10} {'work':>7} {'seconds':>8} {'MB':>6}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name, items, overlaps, dimensions in requests():
        work = planning.plan_work(items, overlaps, dimensions)
        refused = planning.work_refusal(items, overlaps, dimensions)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        if not refused:
            planning.plan_study(pilot(dimensions), items, overlaps, 0.2)
        seconds = time.perf_counter() - started
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        worst = max(worst, seconds)
        shown = "refused" if refused else f"{seconds:8.1f}"
        print(
            f"{name:<28} {','.join(map(str, items)):>24} {len(overlaps):>10} {work:>7,} "
            f"{shown:>8} {grown:>6.0f}",
            flush=True,
        )
    print(f"worst in-bounds request: {worst:.1f} s")


if __name__ == "__main__":
    main()
