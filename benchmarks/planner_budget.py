"""How long does the largest study plan one request may ask for take? (Issue 34: at its own
form bounds the old planner ran past 120 s and got its web worker killed; `planning.
MAX_PLAN_WORK` refuses a plan past a budget, and `planning.MAX_ITEM_PAIRS` a design whose
studies made from the pilot would not fit in memory.)

Times `plan_study` on a synthetic pilot (3 clinicians scoring each of 60 items, on 1 or 6
dimensions) for the page's default request and for the worst requests inside the budget: the
largest single study the budget allows, and the most designs. Prints each request's work
units, seconds and peak memory added; the figure to watch is the worst in-bounds seconds,
which must stay well inside a web worker's timeout.

    .venv/bin/python benchmarks/planner_budget.py           # ~1 minute on 2 cores
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from planner_check import as_ratings, study  # noqa: E402

from annotation.pure import planning  # noqa: E402
from annotation.pure.agreement import Rating  # noqa: E402


def pilot(dimensions: int) -> list[Rating]:
    rng = np.random.default_rng(0)
    found = []
    for d in range(dimensions):
        for r in as_ratings(*study(rng, 60, 3, 3)):
            found.append(Rating(r.item, r.rater, f"dimension {d}", r.score, kind=r.kind))
    return found


def largest(clinicians: int, dimensions: int) -> tuple[int, ...]:
    """The one study size with the most items the budget allows at this many clinicians."""
    items = 6
    while not planning.work_refusal((items * 2,), (clinicians,), (2,), dimensions):
        items *= 2
    while not planning.work_refusal((items + 50,), (clinicians,), (2,), dimensions):
        items += 50
    return (items,)


def requests():
    return [
        ("page default, 6 dimensions", (30, 60, 120, 240, 480), (3, 5, 8, 12), (2, 3), 6),
        ("largest, 12 clinicians, 1 dim", largest(12, 1), (12,), (2,), 1),
        ("largest, 50 clinicians, 1 dim", largest(50, 1), (50,), (2,), 1),
        ("largest, 12 clinicians, 6 dims", largest(12, 6), (12,), (2,), 6),
        ("many designs, 6 dimensions", (30, 60, 90, 120), tuple(range(3, 11)), (2, 3, 4), 6),
    ]


def main() -> None:
    print(f"budget {planning.MAX_PLAN_WORK:,} work units per request")
    header = (
        f"{'request':<31} {'items':>20} {'clinicians':>10} {'per item':>8} {'work':>7} "
        f"{'seconds':>8} {'MB':>6}"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name, items, clinicians, overlaps, dimensions in requests():
        work = planning.plan_work(items, clinicians, overlaps, dimensions)
        refused = planning.work_refusal(items, clinicians, overlaps, dimensions)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        if not refused:
            planning.plan_study(pilot(dimensions), items, clinicians, overlaps, 0.2)
        seconds = time.perf_counter() - started
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        worst = max(worst, seconds)
        shown = "refused" if refused else f"{seconds:8.1f}"
        print(
            f"{name:<31} {','.join(map(str, items)):>20} {len(clinicians):>10} "
            f"{len(overlaps):>8} {work:>7,} "
            f"{shown:>8} {grown:>6.0f}",
            flush=True,
        )
    print(f"worst in-bounds request: {worst:.1f} s")


if __name__ == "__main__":
    main()
