"""How often the judge-validity AUC interval (`jury.pure.validity.auc_interval`) covers the true AUC,
for 1–5 scores with many ties, at several group sizes and true AUCs (issue 21's check).

Population: a conversation's latent quality is N(0, 1) when it failed its outcome checks and
N(δ, 1) when it passed; the judge's score is the latent cut into 1–5 at −1.5, −0.5, 0.5, 1.5.
The true AUC (ties counted half) is computed exactly from the two discrete distributions, and
δ is chosen to give each target AUC. Besides the interval the module reports (Newcombe's
score interval, method 5) the table shows DeLong's for comparison, on the AUC scale (Wald,
clipped to [0, 1]) and on the logit scale (Newcombe's where the logit is undefined, at an
AUC of 0 or 1: the share of studies is `fallback`).

    .venv/bin/python benchmarks/auc_coverage.py [--reps 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jury.pure import validity  # noqa: E402

CUTS = np.array([-1.5, -0.5, 0.5, 1.5])
SIZES = ((5, 5), (10, 10), (20, 20), (50, 50), (10, 40))
TARGETS = (0.5, 0.7, 0.85, 0.95)
Z = stats.norm.ppf(0.975)


def level_probabilities(shift: float) -> np.ndarray:
    edges = np.concatenate([[-np.inf], CUTS - shift, [np.inf]])
    return np.diff(stats.norm.cdf(edges))


def true_auc(shift: float) -> float:
    p, q = level_probabilities(shift), level_probabilities(0.0)  # passing, failing
    below = np.concatenate([[0.0], np.cumsum(q)[:-1]])
    return float(np.sum(p * (below + 0.5 * q)))


def shift_for(target: float) -> float:
    if target == 0.5:
        return 0.0
    return optimize.brentq(lambda d: true_auc(d) - target, 0.0, 10.0)


def draw(rng, shift: float, n: int) -> np.ndarray:
    return np.digitize(rng.normal(shift, 1.0, n), CUTS) + 1


def delong_wald(x, y) -> tuple[float, float]:
    a = validity.auc(x, y)
    half = Z * math.sqrt(validity.delong_variance(np.asarray(x, float), np.asarray(y, float)))
    return max(0.0, a - half), min(1.0, a + half)


def delong_logit(x, y) -> tuple[float, float, bool]:
    """DeLong on the logit scale; Newcombe's where the logit is undefined (True: fell back)."""
    found = validity.delong_logit_interval(x, y)
    if found is not None:
        return (*found, False)
    return (*validity.newcombe_interval(validity.auc(x, y), len(x), len(y)), True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"95% interval coverage of the true AUC, {args.reps} studies per cell, 1–5 scores")
    print(
        f"{'n pass':>6} {'n fail':>6} {'AUC':>5}  {'reported':>8} {'width':>6}"
        f"  {'DeLong':>7} {'logit':>7} {'fallback':>8}"
    )
    for m, n in SIZES:
        for target in TARGETS:
            shift = shift_for(target)
            truth = true_auc(shift)
            hits = {"reported": 0, "delong": 0, "logit": 0}
            fallback, widths, usable = 0, [], 0
            for _ in range(args.reps):
                x, y = draw(rng, shift, m), draw(rng, 0.0, n)
                if len(set(x) | set(y)) < 2:
                    continue  # the module says "no variation" and gives no interval
                usable += 1
                low, high, _method = validity.auc_interval(x, y)
                hits["reported"] += low <= truth <= high
                widths.append(high - low)
                low, high = delong_wald(x, y)
                hits["delong"] += low <= truth <= high
                low, high, fell_back = delong_logit(x, y)
                hits["logit"] += low <= truth <= high
                fallback += fell_back
            print(
                f"{m:>6} {n:>6} {truth:>5.2f}  {hits['reported'] / usable:>8.3f}"
                f" {np.mean(widths):>6.3f}  {hits['delong'] / usable:>7.3f}"
                f" {hits['logit'] / usable:>7.3f} {fallback / usable:>8.1%}"
            )


if __name__ == "__main__":
    main()
