"""How often the human envelope's intervals cover the truth, and how often each verdict is given,
for juries whose truth is known (issue 19's proof; docs/agreement.md quotes the table).

Populations: each item has a latent quality ~ N(3, 1); a clinician scores it as quality + their
own leniency (~ N(0, 0.25)) + noise (sd 0.8), rounded to 1–5. A study draws a pool of clinicians
from that population and gives each item 2 to 4 of them (so overlap varies). Juries:

- `lenient`: quality + 0.7 + noise 0.8 (scores higher than clinicians);
- `clinician-like`: one more clinician drawn from the same population (exchangeable);
- `near-perfect`: quality + noise 0.25;
- `noise-free`: the quality itself, rounded;
- `constant`: always 3.

The truth of each figure is its value on one very large complete study (every clinician of a
large pool on every item), so it is the population value the intervals claim to cover.

    .venv/bin/python benchmarks/agreement_coverage.py [--reps 100] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import envelope as env  # noqa: E402

JURIES = ("lenient", "clinician-like", "near-perfect", "noise-free", "constant")
SIZES = (30, 60, 120, 300)
POOL = 5
FIGURES = ("adjacent_difference", "kappa_difference", "jury_kappa", "clinician_kappa")


def _score(values: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(values), 1, 5).astype(int)


def jury_scores(kind: str, quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = len(quality)
    if kind == "lenient":
        return _score(quality + 0.7 + rng.normal(0, 0.8, n))
    if kind == "clinician-like":
        return _score(quality + rng.normal(0, 0.25) + rng.normal(0, 0.8, n))
    if kind == "near-perfect":
        return _score(quality + rng.normal(0, 0.25, n))
    if kind == "noise-free":
        return _score(quality)
    return np.full(n, 3)


def study(items: int, kind: str, rng: np.random.Generator, pool: int = POOL, complete=False):
    quality = rng.normal(3, 1, items)
    leniency = rng.normal(0, 0.25, pool)
    clinicians = {}
    for i in range(items):
        k = pool if complete else int(rng.integers(2, 5))
        raters = np.arange(pool) if complete else rng.choice(pool, size=k, replace=False)
        scores = _score(quality[i] + leniency[raters] + rng.normal(0, 0.8, len(raters)))
        clinicians[f"i{i}"] = {f"c{r}": int(s) for r, s in zip(raters, scores, strict=True)}
    jury = dict(zip(clinicians, jury_scores(kind, quality, rng).tolist(), strict=True))
    return clinicians, jury


def truths(rng: np.random.Generator) -> dict[str, dict[str, float]]:
    """Each figure's population value: one complete study of 4,000 items × 40 clinicians."""
    found = {}
    for kind in JURIES:
        clinicians, jury = study(4000, kind, rng, pool=40, complete=True)
        result = env.envelope(clinicians, jury, n_resamples=0, min_items=2)
        found[kind] = {name: getattr(result, name).value for name in FIGURES}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=100, help="simulated studies per cell")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--juries", default=",".join(JURIES))
    parser.add_argument(
        "--raters", choices=env.RATER_MODES, default=env.RESAMPLED, help="the bootstrap's mode"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    juries = [j for j in args.juries.split(",") if j in JURIES]
    rng = np.random.default_rng(2026)
    started = time.perf_counter()
    truth = truths(rng)
    print(
        f"Truth from a complete study of 4,000 items × 40 clinicians ({time.perf_counter() - started:.0f} s):"
    )
    for kind in JURIES:
        print(f"  {kind:<15}" + "  ".join(f"{f} {truth[kind][f]:+.3f}" for f in FIGURES))
    print(
        f"\nCoverage of 95% intervals (percentile bootstrap over items, clinicians {args.raters}, "
        f"{args.resamples:,} "
        f"resamples) and verdict rates, {args.reps} simulated studies per row; pool of "
        f"{POOL} clinicians, 2–4 per item."
    )
    head = f"{'jury':<15}{'items':>6}" + "".join(f"{f[:14]:>16}" for f in FIGURES)
    head += "  " + "  ".join(f"{v.split()[0][:8]:>8}" for v in env.VERDICTS)
    print(head)
    for kind in juries:
        for items in sizes:
            covered, widths, verdicts = Counter(), {f: [] for f in FIGURES}, Counter()
            for _ in range(args.reps):
                clinicians, jury = study(items, kind, rng)
                result = env.envelope(
                    clinicians,
                    jury,
                    n_resamples=args.resamples,
                    seed=int(rng.integers(1 << 30)),
                    raters=args.raters,
                )
                verdicts[result.verdict] += 1
                for name in FIGURES:
                    figure, target = getattr(result, name), truth[kind][name]
                    if figure.ci is None or target is None:
                        continue
                    covered[name] += figure.low <= target <= figure.high
                    widths[name].append(figure.high - figure.low)
            cells = "".join(
                f"{covered[f] / max(1, len(widths[f])):>9.3f} ±{np.mean(widths[f]) / 2 if widths[f] else 0:.2f}"
                for f in FIGURES
            )
            rates = "  ".join(f"{verdicts[v] / args.reps:>8.2f}" for v in env.VERDICTS)
            print(f"{kind:<15}{items:>6}{cells}  {rates}")
    print("\n(coverage ± half the mean interval width; verdict columns: share of studies)")
    print(f"Run time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
