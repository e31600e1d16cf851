"""How often the judge-validity AUC interval (`jury.pure.validity.auc_interval`) covers the true AUC,
for 1–5 scores with many ties, smooth and polarised, at several group sizes and true AUCs
(issues 21 and 35).

Smooth: a conversation's latent quality is N(0, 1) when it failed its outcome checks and
N(δ, 1) when it passed; the judge's score is the latent cut into 1–5 at −1.5, −0.5, 0.5, 1.5,
δ chosen to give each target AUC. Polarised (issue 35): the passing conversations are scored
1 or 5 (5 with probability p), the failing ones 2–4 evenly ("2-4") or by the smooth model at
δ = 0 ("smooth"); the true AUC is p, or computed from the two distributions. The true AUC
(ties counted half) is exact in every case. Columns: coverage of the interval reported (and
its mean width), of Newcombe's score interval alone (what was reported before issue 35), of
DeLong's (Wald, clipped to [0, 1]) and the share of studies given a verdict (`separates` or
`inverts`) by the reported interval and by Newcombe's: at a true AUC of 0.5 every verdict is
wrong. Studies whose scores do not vary are left out (the module gives no interval).

    .venv/bin/python benchmarks/auc_coverage.py [--reps 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jury.pure import validity  # noqa: E402

CUTS = np.array([-1.5, -0.5, 0.5, 1.5])
SIZES = ((5, 5), (5, 20), (20, 5), (10, 10), (20, 20), (50, 50), (10, 40))
TARGETS = (0.5, 0.7, 0.85, 0.95)
POLARISED = (0.5, 0.7, 0.9)
Z = stats.norm.ppf(0.975)


def level_probabilities(shift: float) -> np.ndarray:
    edges = np.concatenate([[-np.inf], CUTS - shift, [np.inf]])
    return np.diff(stats.norm.cdf(edges))


def true_auc(passing: np.ndarray, failing: np.ndarray) -> float:
    below = np.concatenate([[0.0], np.cumsum(failing)[:-1]])
    return float(np.sum(passing * (below + 0.5 * failing)))


def shift_for(target: float) -> float:
    if target == 0.5:
        return 0.0
    smooth = level_probabilities(0.0)
    return optimize.brentq(lambda d: true_auc(level_probabilities(d), smooth) - target, 0.0, 10.0)


def scenarios() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, P(score) when passing, P(score) when failing) over the scores 1..5."""
    smooth = level_probabilities(0.0)
    found = [(f"smooth AUC {t:.2f}", level_probabilities(shift_for(t)), smooth) for t in TARGETS]
    for p in POLARISED:
        passing = np.array([1 - p, 0, 0, 0, p])
        found.append((f"polarised p={p} fail 2-4", passing, np.array([0, 1, 1, 1, 0]) / 3))
        found.append((f"polarised p={p} fail smooth", passing, smooth))
    return found


def delong_wald(x, y) -> tuple[float, float]:
    a = validity.auc(x, y)
    half = Z * math.sqrt(validity.delong_variance(np.asarray(x, float), np.asarray(y, float)))
    return max(0.0, a - half), min(1.0, a + half)


def decided(low: float, high: float) -> bool:
    return low > 0.5 or high < 0.5


def cell(rng, passing, failing, m, n, reps) -> dict:
    truth = true_auc(passing, failing)
    hits = {"reported": 0, "newcombe": 0, "delong": 0}
    verdicts = {"reported": 0, "newcombe": 0}
    widths, usable = [], 0
    for _ in range(reps):
        x = rng.choice(5, m, p=passing) + 1
        y = rng.choice(5, n, p=failing) + 1
        if len(set(x) | set(y)) < 2:
            continue  # the module says "no variation" and gives no interval
        usable += 1
        low, high, _method = validity.auc_interval(x, y)
        hits["reported"] += low <= truth <= high
        verdicts["reported"] += decided(low, high)
        widths.append(high - low)
        low, high = validity.newcombe_interval(validity.auc(x, y), m, n)
        hits["newcombe"] += low <= truth <= high
        verdicts["newcombe"] += decided(low, high)
        low, high = delong_wald(x, y)
        hits["delong"] += low <= truth <= high
    return {
        "truth": truth,
        "usable": usable,
        "width": float(np.mean(widths)),
        **{k: v / usable for k, v in hits.items()},
        **{f"{k} verdict": v / usable for k, v in verdicts.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(
        f"95% interval coverage of the true AUC, {args.reps} studies per cell, 1–5 scores "
        f"(Monte-Carlo SE about 0.007 at 0.95); reported = {validity.REPORTED}"
    )
    header = (
        f"{'scores':<28} {'AUC':>5} {'n pass':>6} {'n fail':>6}  {'reported':>8} {'width':>6}"
        f"  {'Newcombe':>8} {'DeLong':>7}  {'verdict':>7} {'Newc. v':>7}"
    )
    print(header)
    print("-" * len(header))
    worst = {"smooth": 1.0, "polarised": 1.0}
    for name, passing, failing in scenarios():
        for m, n in SIZES:
            row = cell(rng, passing, failing, m, n, args.reps)
            worst[name.split()[0]] = min(worst[name.split()[0]], row["reported"])
            print(
                f"{name:<28} {row['truth']:>5.2f} {m:>6} {n:>6}  {row['reported']:>8.3f}"
                f" {row['width']:>6.3f}  {row['newcombe']:>8.3f} {row['delong']:>7.3f}"
                f"  {row['reported verdict']:>7.3f} {row['newcombe verdict']:>7.3f}"
            )
    print(
        f"\nlowest coverage of the reported interval: smooth {worst['smooth']:.3f}, "
        f"polarised {worst['polarised']:.3f}; {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
