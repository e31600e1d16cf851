"""Is the alt-test honest and earnable? Type I error and power of annotation.pure.alt_test.

    .venv/bin/python benchmarks/alt_test_check.py [--sims 500] [--epsilon 0.2]

Simulated studies: every clinician scores every item, round(quality + N(0, 0.6²)) clipped to
1–5, quality ~ N(3, 1.2²) per item (pass = 3 or more). For 3, 5 and 10 clinicians × 30, 100 and
300 items, on the ordinal scores (−RMSE) and on pass/fail (accuracy):

- type I error: a jury worse than a clinician by exactly ε, the edge of the null
  (ρ_h − ρ_f = ε for every clinician). On each item it answers as one more clinician with
  probability π, and uniformly at random otherwise; the random answer's disadvantage δ
  (E[W_h − W_f]) is measured on 200,000 calibration items and π = 1 − ε/δ, so the expected
  difference is ε (checked on fresh items and printed). The share of studies the real code
  calls "the jury can stand in for a clinician" should be ≤ 5%; per-clinician rejections too.
- power: an exchangeable jury (one more clinician): the share of studies that stand in.

Every study goes through `alt_test` itself. Each share has a two-sided 95% Wilson interval
over the simulated studies (its Monte-Carlo error); "per clinician" is the share of all
clinician comparisons the jury won, and ρ the mean average advantage probability.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import alt_test as at  # noqa: E402
from jury.pure.aggregate import wilson  # noqa: E402

CLINICIANS = (3, 5, 10)
ITEMS = (30, 100, 300)
NOISE, SPREAD = 0.6, 1.2


def scores(rng: np.random.Generator, quality: np.ndarray, raters: int) -> np.ndarray:
    noisy = quality[:, None] + rng.normal(0, NOISE, (len(quality), raters))
    return np.clip(np.rint(noisy), 1, 5)


def boundary_mix(raters: int, scale: str, epsilon: float, rng: np.random.Generator) -> float:
    """π: the share of items on which the jury answers as a clinician, so that it is worse
    than each clinician by ε in expectation."""
    delta = mean_difference(raters, scale, 0.0, rng, 200_000)
    if delta <= epsilon:
        raise SystemExit(f"a random jury is only {delta:.3f} worse; cannot place it at ε")
    return 1 - epsilon / delta


def jury_scores(rng, quality, mix: float) -> np.ndarray:
    clinician_like = scores(rng, quality, 1)[:, 0]
    random = rng.integers(1, 6, len(quality)).astype(float)
    return np.where(rng.random(len(quality)) < mix, clinician_like, random)


def mean_difference(raters, scale, mix, rng, items) -> float:
    """E[W_h − W_f] over clinicians on `items` fresh items (one big study)."""
    quality = rng.normal(3, SPREAD, items)
    matrix = scores(rng, quality, raters)
    pairs = at.indicator_differences(matrix, jury_scores(rng, quality, mix), scale, 3, "half_up")
    return float(np.mean([np.mean(h - f) for f, h in pairs]))


def study(rng, raters: int, items: int, mix: float) -> tuple[dict, dict]:
    quality = rng.normal(3, SPREAD, items)
    matrix = scores(rng, quality, raters).astype(int).tolist()
    jury = jury_scores(rng, quality, mix)
    names = [f"c{k}" for k in range(raters)]
    clinicians = {f"i{i}": dict(zip(names, row, strict=True)) for i, row in enumerate(matrix)}
    return clinicians, {f"i{i}": float(v) for i, v in enumerate(jury)}


def run(raters, items, scale, mix, sims, epsilon, rng) -> dict:
    stood = rejections = tested = 0
    rho = []
    for _ in range(sims):
        clinicians, jury = study(rng, raters, items, mix)
        result = at.alt_test(clinicians, jury, scale=scale, epsilon=epsilon)
        stood += result.verdict == at.STANDS_IN
        rejections += result.wins
        tested += result.n_clinicians
        rho.append(result.advantage)
    return {
        "stood": stood,
        "stands_in": stood / sims,
        "per_clinician": rejections / max(tested, 1),
        "rho": float(np.mean(rho)),
    }


def share(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits / n:6.1%} [{low:5.1%}, {high:5.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=500, help="studies per cell and jury")
    parser.add_argument("--epsilon", type=float, default=at.EPSILON)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(
        f"alt-test, ε = {args.epsilon:g}, BY q = {at.Q:g}, ω ≥ {at.WINNING_RATE:g}; "
        f"{args.sims} simulated studies per cell and jury; clinicians' noise sd {NOISE}, "
        f"quality sd {SPREAD}; every clinician scores every item; [95% Wilson interval over "
        "the studies]"
    )
    for scale in at.SCALES:
        print(f"\n{scale} ({at.ALIGNMENT[scale]} alignment)")
        print(
            f"{'clinicians':>10} {'items':>5} | {'E[d] at the edge':>16} | "
            f"{'type I: stands in':>22} {'per clinician':>14} | "
            f"{'power: stands in':>22} {'ρ exch.':>7} {'ρ edge':>7}"
        )
        for raters in CLINICIANS:
            mix = boundary_mix(raters, scale, args.epsilon, rng)
            edge = mean_difference(raters, scale, mix, rng, 200_000)
            for items in ITEMS:
                null = run(raters, items, scale, mix, args.sims, args.epsilon, rng)
                power = run(raters, items, scale, 1.0, args.sims, args.epsilon, rng)
                print(
                    f"{raters:>10} {items:>5} | {edge:>16.3f} | "
                    f"{share(null['stood'], args.sims):>22} "
                    f"{null['per_clinician']:>14.1%} | "
                    f"{share(power['stood'], args.sims):>22} "
                    f"{power['rho']:>7.3f} {null['rho']:>7.3f}"
                )
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
