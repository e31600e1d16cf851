"""How often the human envelope's intervals cover the truth, and how often each verdict is given,
for juries whose truth is known (issues 19 and 35; docs/agreement.md quotes the table).

Populations: each item has a latent quality ~ N(3, 1); a clinician scores it as quality + their
own leniency (~ N(0, 0.25), drawn per clinician) + noise (sd 0.8), rounded to 1–5. A study
draws a pool of clinicians from that population and gives each item 2 to 4 of them (so
overlap varies): pools of 3, 5 and 10 (with 10, a pair of clinicians shares ~7% of the items:
sparse pairs). Juries, each fixed (the jury is what is judged; the clinicians are the sample):

- `lenient`: quality + 0.7 + noise 0.8 (scores higher than clinicians);
- `clinician-like`: a clinician of leniency 0.15 (exchangeable with the clinicians: a typical
  one, neither the most lenient nor the most central);
- `near-perfect`: quality + noise 0.25;
- `noise-free`: the quality itself, rounded;
- `constant`: always 3.

The truth of each figure is its population value over items and clinicians, by Monte Carlo:
adjacency from 2,000,000 (item, clinician) draws; kappas as the mean over 2,000 random pairs
of raters of each pair's kappa on 20,000 items (the kappa difference: the jury's minus the
clinicians').

    .venv/bin/python benchmarks/agreement_coverage.py [--reps 100] [--resamples 1000]
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
SIZES = (30, 100, 300, 1000)
POOLS = (3, 5, 10)
FIGURES = ("adjacent_difference", "kappa_difference", "jury_kappa", "clinician_kappa")
LENIENCY, NOISE, LIKE = 0.25, 0.8, 0.15


def _score(values: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(values), 1, 5).astype(int)


def jury_scores(kind: str, quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = len(quality)
    if kind == "lenient":
        return _score(quality + 0.7 + rng.normal(0, NOISE, n))
    if kind == "clinician-like":
        return _score(quality + LIKE + rng.normal(0, NOISE, n))
    if kind == "near-perfect":
        return _score(quality + rng.normal(0, 0.25, n))
    if kind == "noise-free":
        return _score(quality)
    return np.full(n, 3)


def study(items: int, kind: str, rng: np.random.Generator, pool: int):
    quality = rng.normal(3, 1, items)
    leniency = rng.normal(0, LENIENCY, pool)
    clinicians = {}
    for i in range(items):
        raters = rng.choice(pool, size=min(pool, int(rng.integers(2, 5))), replace=False)
        scores = _score(quality[i] + leniency[raters] + rng.normal(0, NOISE, len(raters)))
        clinicians[f"i{i}"] = {f"c{r}": int(s) for r, s in zip(raters, scores, strict=True)}
    jury = dict(zip(clinicians, jury_scores(kind, quality, rng).tolist(), strict=True))
    return clinicians, jury


def _kappa(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cohen QWK of each row pair (pairs × items)."""
    observed = ((x - y) ** 2).mean(axis=1)
    expected = x.var(axis=1) + y.var(axis=1) + (x.mean(axis=1) - y.mean(axis=1)) ** 2
    return 1 - observed / expected


def truths(rng: np.random.Generator, pairs: int = 2000, items: int = 20_000) -> dict:
    found = {}
    for kind in JURIES:
        quality = rng.normal(3, 1, 2_000_000)
        jury = jury_scores(kind, quality, rng)
        first = _score(
            quality + rng.normal(0, LENIENCY, len(quality)) + rng.normal(0, NOISE, len(quality))
        )
        second = _score(
            quality + rng.normal(0, LENIENCY, len(quality)) + rng.normal(0, NOISE, len(quality))
        )
        adjacent = np.mean(np.abs(jury - first) <= 1) - np.mean(np.abs(first - second) <= 1)
        jury_k, clinician_k = [], []
        for _ in range(pairs // 200):
            q = rng.normal(3, 1, (200, items))
            a = _score(q + rng.normal(0, LENIENCY, (200, 1)) + rng.normal(0, NOISE, q.shape))
            b = _score(q + rng.normal(0, LENIENCY, (200, 1)) + rng.normal(0, NOISE, q.shape))
            j = np.stack([jury_scores(kind, row, rng) for row in q])
            with np.errstate(all="ignore"):
                jury_k.append(np.nan_to_num(_kappa(j.astype(float), a.astype(float))))
            clinician_k.append(_kappa(a.astype(float), b.astype(float)))
        jury_kappa, clinician_kappa = np.mean(jury_k), np.mean(clinician_k)
        found[kind] = {
            "adjacent_difference": float(adjacent),
            "kappa_difference": float(jury_kappa - clinician_kappa),
            "jury_kappa": float(jury_kappa),
            "clinician_kappa": float(clinician_kappa),
        }
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=100, help="simulated studies per cell")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--pools", default=",".join(map(str, POOLS)))
    parser.add_argument("--juries", default=",".join(JURIES))
    parser.add_argument(
        "--raters", choices=env.RATER_MODES, default=env.RESAMPLED, help="the interval's mode"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    pools = [int(p) for p in args.pools.split(",")]
    juries = [j for j in args.juries.split(",") if j in JURIES]
    rng = np.random.default_rng(2026)
    started = time.perf_counter()
    truth = truths(rng)
    print(f"Population values (Monte Carlo, {time.perf_counter() - started:.0f} s):")
    for kind in JURIES:
        print(f"  {kind:<15}" + "  ".join(f"{f} {truth[kind][f]:+.3f}" for f in FIGURES))
    print(
        f"\nCoverage of 95% intervals (clinicians {args.raters}, {args.resamples:,} resamples) "
        f"and verdict rates, {args.reps} simulated studies per row; each item scored by 2–4 of "
        "the pool's clinicians."
    )
    head = f"{'jury':<15}{'pool':>5}{'items':>6}" + "".join(f"{f[:14]:>16}" for f in FIGURES)
    head += "  " + "  ".join(f"{v.split()[0][:8]:>8}" for v in env.VERDICTS) + "  margin"
    print(head)
    for kind in juries:
        for pool in pools:
            for items in sizes:
                print(cell(kind, pool, items, truth[kind], args, rng), flush=True)
    print(
        "\n(coverage ± half the mean interval width; verdict columns and `margin` (flagged at "
        "the margin): share of studies; the Monte-Carlo error of a coverage from 100 studies is "
        "±0.022 at 95%)"
    )
    print(f"Run time {time.perf_counter() - started:.0f} s")


def cell(kind, pool, items, truth, args, rng) -> str:
    covered, widths, verdicts, flagged = Counter(), {f: [] for f in FIGURES}, Counter(), 0
    for _ in range(args.reps):
        clinicians, jury = study(items, kind, rng, pool)
        result = env.envelope(
            clinicians,
            jury,
            n_resamples=args.resamples,
            seed=int(rng.integers(1 << 30)),
            raters=args.raters,
        )
        verdicts[result.verdict] += 1
        flagged += result.at_the_margin
        for name in FIGURES:
            figure, target = getattr(result, name), truth[name]
            if figure.ci is None:
                continue
            covered[name] += figure.low <= target <= figure.high
            widths[name].append(figure.high - figure.low)
    cells = "".join(
        f"{covered[f] / max(1, len(widths[f])):>9.3f} ±{np.mean(widths[f]) / 2 if widths[f] else 0:.2f}"
        for f in FIGURES
    )
    rates = "  ".join(f"{verdicts[v] / args.reps:>8.2f}" for v in env.VERDICTS)
    return f"{kind:<15}{pool:>5}{items:>6}{cells}  {rates}  {flagged / args.reps:>6.2f}"


if __name__ == "__main__":
    main()
