"""How often the quality page calls a correlation significant when there is none (issue 19).

Null data sets shaped like the page's cells: `tasks` tasks × `models` models, one cell each,
weighted by 1–5 scored conversations. A cell's consistency and its clinicians' mean are
independent, but each carries its task's effect (a share `icc` of its variance): cells of one
task are alike on both sides, so they are not independent observations.

Prints, per shape, the share of data sets with p < .05 for
- naive: scipy's pearsonr / spearmanr p on the cells, every cell independent (the old page);
- cluster: `quality_stats.cluster_correlation`, the task-cluster bootstrap the page uses;
then the whole table under the null (4 metrics × 2 dimensions × all models and each of 3
models × Pearson and Spearman = 64 tests): the chance of any raw p < .05, and of any
Holm-adjusted p < .05.

    .venv/bin/python benchmarks/quality_null_check.py [--simulations 1000] [--resamples 500]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import quality_stats  # noqa: E402

SHAPES = [  # tasks, models, icc
    (5, 2, 0.0),
    (5, 3, 0.7),
    (8, 4, 0.5),
    (8, 4, 0.7),
    (12, 3, 0.8),
    (19, 6, 0.7),
]


def null_cells(rng, tasks: int, models: int, icc: float, sides: int = 2) -> tuple:
    """`sides` independent variables over the cells, each with its own task effect."""
    task = np.repeat(np.arange(tasks), models)
    values = [
        math.sqrt(icc) * rng.normal(size=tasks)[task]
        + math.sqrt(1 - icc) * rng.normal(size=task.size)
        for _ in range(sides)
    ]
    return values, rng.integers(1, 6, size=task.size).astype(float), task


def rates(tasks: int, models: int, icc: float, simulations: int, resamples: int) -> dict:
    rng = np.random.default_rng(tasks * 1000 + models * 10 + int(icc * 10))
    hits = {"naive pearson": 0, "cluster pearson": 0, "naive spearman": 0, "cluster spearman": 0}
    for seed in range(simulations):
        (x, y), w, task = null_cells(rng, tasks, models, icc)
        hits["naive pearson"] += stats.pearsonr(x, y).pvalue < 0.05
        hits["naive spearman"] += stats.spearmanr(x, y).pvalue < 0.05
        found = quality_stats.cluster_correlation(x, y, w, task, resamples, seed)
        hits["cluster pearson"] += found["pearson"]["p"] < 0.05
        hits["cluster spearman"] += found["spearman"]["p"] < 0.05
    return {k: v / simulations for k, v in hits.items()}


def table_rates(simulations: int, resamples: int, tasks: int = 10, models: int = 3) -> dict:
    """Family-wise: any of the table's 64 p-values below .05, raw and Holm-adjusted."""
    rng = np.random.default_rng(64)
    raw_any = holm_any = tests = 0
    for seed in range(simulations):
        values, w, task = null_cells(rng, tasks, models, 0.5, sides=6)
        metrics, dimensions = values[:4], values[4:]
        model = np.tile(np.arange(models), tasks)
        scopes = [np.ones(task.size, bool)] + [model == m for m in range(models)]
        pvalues = []
        for scope in scopes:
            for x in metrics:
                for y in dimensions:
                    found = quality_stats.cluster_correlation(
                        x[scope], y[scope], w[scope], task[scope], resamples, seed
                    )
                    pvalues += [found["pearson"]["p"], found["spearman"]["p"]]
        present = [p for p in pvalues if p is not None]
        tests = len(present)
        raw_any += min(present) < 0.05
        holm_any += min(p for p in quality_stats.holm(present) if p is not None) < 0.05
    return {"tests": tests, "raw": raw_any / simulations, "holm": holm_any / simulations}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=500)
    args = parser.parse_args()
    n = args.simulations
    se = math.sqrt(0.05 * 0.95 / n)
    print(f"{n} null data sets per shape, {args.resamples} task resamples each")
    print(f"binomial se of a 5% rate: {se:.1%}\n")
    header = ("tasks", "models", "icc", "naive r", "cluster r", "naive ρ", "cluster ρ")
    print("{:>5} {:>6} {:>4} {:>8} {:>9} {:>8} {:>9}".format(*header))
    started = time.perf_counter()
    for tasks, models, icc in SHAPES:
        found = rates(tasks, models, icc, n, args.resamples)
        print(
            f"{tasks:>5} {models:>6} {icc:>4.1f} {found['naive pearson']:>8.1%} "
            f"{found['cluster pearson']:>9.1%} {found['naive spearman']:>8.1%} "
            f"{found['cluster spearman']:>9.1%}"
        )
    family = max(200, n // 10)
    whole = table_rates(family, args.resamples)
    print(
        f"\nWhole table (10 tasks × 3 models, icc 0.5, {whole['tests']} tests, {family} null "
        f"tables): any raw p < .05 in {whole['raw']:.1%}, any Holm-adjusted p < .05 in "
        f"{whole['holm']:.1%}"
    )
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
