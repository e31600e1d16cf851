"""Does the study planner's recommendation reach its target? (DESIGN §7: a recommended design
reaches its target width at least 80% of the time.)

From known synthetic populations of clinician and jury scores (an item's true score, each
clinician and the jury scoring near it with their own noise), pilots of 30 and 60 items with 4
clinicians each are drawn; `plan_study` recommends a design for a target width on both ordinal
alpha and the jury-minus-clinician adjacent-agreement difference; then fresh studies of that
design are drawn from the population and their intervals computed by the method the planner
models (`planning.bootstrap_widths`: a 95% percentile bootstrap over items, here with more
resamples than the planner uses). Printed per population, pilot size and quantile: the design
recommended (the most frequent one over pilots, and how many distinct ones), the share of fresh
studies whose widths both reach the target (the goal: ≥ 80% at the 80th percentile), the
planner's median difference width over the realised one (below 1: under-predicted), how often
the pilot's own resamples kept the recommendation, and the run time.

    .venv/bin/python benchmarks/planner_check.py                # ~2-3 minutes on 2 cores
    .venv/bin/python benchmarks/planner_check.py --pilots 10 --fresh 400 --quantiles 0.5,0.8,0.9
    .venv/bin/python benchmarks/planner_check.py --compare      # also without the corrections
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import planning  # noqa: E402
from annotation.pure.agreement import JURY, Rating  # noqa: E402

TRUTH = np.array([0.1, 0.2, 0.3, 0.25, 0.15])  # how often each true score 1..5 occurs
ITEMS = (20, 30, 40, 60, 80, 120, 160, 240, 320)
OVERLAPS = (2, 3)
PILOT_CLINICIANS = 4


@dataclass(frozen=True)
class Population:
    name: str
    clinician_noise: float  # sd of a clinician's score around the truth, before rounding
    jury_noise: float
    jury_bias: float  # a lenient jury scores this much higher
    target: float  # CI width wanted on both figures

    def draw(self, rng: np.random.Generator, items: int, clinicians: int):
        """(items, clinicians) clinician scores and (items,) jury scores."""
        truth = rng.choice(np.arange(1, 6), p=TRUTH, size=items).astype(float)
        noise = rng.normal(0, self.clinician_noise, (items, clinicians))
        scores = np.clip(np.rint(truth[:, None] + noise), 1, 5)
        jury = truth + self.jury_bias + rng.normal(0, self.jury_noise, items)
        return scores, np.clip(np.rint(jury), 1, 5)


POPULATIONS = (
    Population("close agreement", 0.5, 0.5, 0.0, 0.15),
    Population("moderate", 0.9, 1.0, 0.0, 0.2),
    Population("loose, lenient jury", 1.3, 1.2, 0.5, 0.25),
)


def as_ratings(scores: np.ndarray, jury: np.ndarray) -> list[Rating]:
    ratings = []
    for i, (row, verdict) in enumerate(zip(scores, jury, strict=True)):
        item = f"i{i:04d}"
        ratings += [Rating(item, f"c{c}", "safety", int(s)) for c, s in enumerate(row)]
        ratings.append(Rating(item, "panel", "safety", int(verdict), kind=JURY))
    return ratings


def realised_widths(population, design, rng, studies: int, n_boot: int) -> dict:
    """The widths of fresh studies of `design` drawn from the population itself."""
    items, overlap = design
    found: dict[str, list[np.ndarray]] = {"alpha": [], "difference": []}
    chunk = max(1, 3_000_000 // (n_boot * items))
    for start in range(0, studies, chunk):
        size = min(chunk, studies - start)
        scores, jury = population.draw(rng, size * items, overlap)
        per_item = planning.item_sums(scores.reshape(size, items, overlap), jury.reshape(size, -1))
        resamples = planning.resample_counts(rng, size, n_boot, items)
        for figure, widths in planning.bootstrap_widths(per_item, resamples).items():
            found[figure].append(widths)
    return {f: np.concatenate(w) for f, w in found.items()}


def check(population, pilot_items, quantile, args, predictive=True) -> dict:
    rng = np.random.default_rng([args.seed, pilot_items, int(quantile * 100), predictive])
    started = time.perf_counter()
    reached, designs, ratios, same = [], [], [], []
    for pilot_number in range(args.pilots):
        pilot = as_ratings(*population.draw(rng, pilot_items, PILOT_CLINICIANS))
        plan = planning.plan_study(
            pilot, ITEMS, OVERLAPS, population.target, seed=pilot_number, quantile=quantile,
            correct=predictive,
        )  # fmt: skip
        designs.append(plan.recommended)
        same.append(plan.stability.same)
        if plan.recommended is None:
            continue
        widths = realised_widths(population, plan.recommended, rng, args.fresh, args.boot)
        reached.append(
            (widths["alpha"] <= population.target) & (widths["difference"] <= population.target)
        )
        row = next(r for r in plan.rows if (r.items, r.overlap) == plan.recommended)
        ratios.append(row.difference_width_median / np.median(widths["difference"]))
    found = [d for d in designs if d]
    common = max(set(found), key=found.count) if found else None
    return {
        "population": population.name,
        "pilot": pilot_items,
        "quantile": quantile,
        "mode": "corrected" if predictive else "plain",
        "design": "none" if common is None else f"{common[0]}×{common[1]}",
        "distinct": len(set(designs)),
        "reach": float(np.concatenate(reached).mean()) if reached else float("nan"),
        "ratio": float(np.mean(ratios)) if ratios else float("nan"),
        "same": float(np.mean(same)),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pilots", type=int, default=3, help="pilots per population and size")
    parser.add_argument("--fresh", type=int, default=150, help="fresh studies per recommendation")
    parser.add_argument("--boot", type=int, default=500, help="resamples per fresh interval")
    parser.add_argument("--sizes", default="30,60", help="pilot sizes (items)")
    parser.add_argument("--quantiles", default="0.8", help="quantiles planned on")
    parser.add_argument("--compare", action="store_true", help="also plan without corrections")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    quantiles = [float(q) for q in args.quantiles.split(",")]
    modes = (True, False) if args.compare else (True,)
    print(
        f"{args.pilots} pilots per row, {args.fresh} fresh studies per recommendation, "
        f"{args.boot} resamples per fresh interval; designs {ITEMS[0]}–{ITEMS[-1]} items × "
        f"{', '.join(map(str, OVERLAPS))} clinicians"
    )
    header = (
        f"{'population':<21} {'target':>6} {'pilot':>5} {'q':>4} {'mode':<9} {'design':>7} "
        f"{'kinds':>5} {'reach':>6} {'diff pred/real':>14} {'kept':>5} {'seconds':>7}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for population in POPULATIONS:
        for size in sizes:
            for quantile in quantiles:
                for predictive in modes:
                    r = check(population, size, quantile, args, predictive)
                    print(
                        f"{r['population']:<21} {population.target:>6.2f} {r['pilot']:>5} "
                        f"{r['quantile']:>4.2f} {r['mode']:<9} {r['design']:>7} "
                        f"{r['distinct']:>5} {r['reach']:>6.0%} {r['ratio']:>14.3f} "
                        f"{r['same']:>5.0%} {r['seconds']:>7.1f}",
                        flush=True,
                    )
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
