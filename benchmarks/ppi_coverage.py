"""Coverage and width of the jury-corrected estimates (annotation.pure.corrected) by simulation.

Each replication draws a population of N conversations: a clinician score y on the 1–5 scale
(a fixed distribution, so the true mean and pass rate are known) and a jury score
f = clip(y + bias + noise, 1, 5); clinicians score a uniform random n of them (or, in the
"stratified" rows, the jury's failures three times as often as the rest, weighted back by Hájek). For
every n it prints, over the replications, how often each 95% interval covers the truth and
its mean width, for jury only, clinicians only and PPI++, and the PPI's median effective number
of clinician labels. Jury only is on the jury's own scale: its coverage of the clinicians'
truth is the point of showing it.

    .venv/bin/python benchmarks/ppi_coverage.py [--reps 1000] [--population 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure.corrected import (  # noqa: E402
    CLINICIANS_ONLY,
    JURY_ONLY,
    PPI,
    Member,
    passes,
    three_estimates,
)

SCORES = np.array([1, 2, 3, 4, 5])
CHANCES = np.array([0.1, 0.15, 0.3, 0.3, 0.15])
TRUE_MEAN = float(SCORES @ CHANCES)
TRUE_PASS = float(CHANCES[SCORES >= 3].sum())
JURIES = {  # name: (bias, noise sd, shuffled)
    "good jury, +0.5 kind": (0.5, 0.5, False),
    "noisy jury": (0.0, 1.5, False),
    "uninformative jury": (0.0, 0.5, True),
}
METHODS = (JURY_ONLY, CLINICIANS_ONLY, PPI)


def population(rng, size: int, bias: float, noise: float, shuffled: bool):
    y = rng.choice(SCORES, size, p=CHANCES).astype(float)
    f = np.clip(y + bias + noise * rng.standard_normal(size), 1, 5)
    return y, (rng.permutation(f) if shuffled else f)


def sampled(rng, y, f, n: int, stratified: bool):
    """The labelled indices and every member's inclusion probability and stratum. A stratified
    sample can only use what is known before clinicians score: the jury's verdict."""
    if not stratified:
        chosen = rng.choice(len(y), n, replace=False)
        return set(chosen.tolist()), np.full(len(y), n / len(y)), np.array([""] * len(y))
    strata = np.where(f < 3, "fail", "pass")
    counts = {s: int((strata == s).sum()) for s in ("fail", "pass")}
    # failures at three times the rate of the rest, n in total
    rate = n / (3 * counts["fail"] + counts["pass"])
    sizes = {"fail": min(counts["fail"], round(3 * rate * counts["fail"]))}
    sizes["pass"] = n - sizes["fail"]
    chosen: set[int] = set()
    pi = np.zeros(len(y))
    for stratum, size in sizes.items():
        where = np.flatnonzero(strata == stratum)
        chosen |= set(rng.choice(where, size, replace=False).tolist())
        pi[where] = size / len(where)
    return chosen, pi, strata


def replicate(rng, size, n, jury, stratified):
    y, f = population(rng, size, *jury)
    chosen, pi, strata = sampled(rng, y, f, n, stratified)
    found = {}
    for estimand, transform, truth in (
        ("mean", float, TRUE_MEAN),
        ("pass", passes, TRUE_PASS),
    ):
        members = [
            Member(
                transform(f[i]),
                transform(y[i]) if i in chosen else None,
                pi[i],
                i in chosen,
                strata[i],
            )
            for i in range(size)
        ]
        found[estimand] = (three_estimates(members, proportion=estimand == "pass"), truth)
    return found


def summarise(results) -> dict:
    out = {}
    for method in METHODS:
        estimates = [(e[method], truth) for e, truth in results]
        with_ci = [(e, t) for e, t in estimates if e.ci is not None]
        cover = np.mean([e.ci[0] <= t <= e.ci[1] for e, t in with_ci]) if with_ci else np.nan
        width = np.mean([e.ci[1] - e.ci[0] for e, _ in with_ci]) if with_ci else np.nan
        out[method] = (cover, width, len(estimates) - len(with_ci))
    effective = [e[PPI].effective_n for e, _ in results if e[PPI].effective_n is not None]
    out["effective"] = float(np.median(effective)) if effective else np.nan
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--population", type=int, default=1000)
    parser.add_argument("--n", default="10,20,40,80,160")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    sizes = [int(x) for x in args.n.split(",")]
    rng = np.random.default_rng(args.seed)
    print(
        f"N = {args.population}, {args.reps} replications per row; truth: mean "
        f"{TRUE_MEAN:.2f}, pass rate {TRUE_PASS:.2f}; 95% intervals; cover = share of "
        "intervals holding the truth, width = mean width, eff n = PPI's median effective labels"
    )
    header = (
        f"{'jury':<22} {'design':<10} {'est':<4} {'n':>4}  "
        + "  ".join(f"{m + ' cover/width':>22}" for m in METHODS)
        + f"  {'eff n':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, jury in JURIES.items():
        for stratified in (False, True):
            if stratified and name != "good jury, +0.5 kind":
                continue
            for n in sizes:
                runs = [
                    replicate(rng, args.population, n, jury, stratified) for _ in range(args.reps)
                ]
                for estimand in ("mean", "pass"):
                    row = summarise([r[estimand] for r in runs])
                    cells = "  ".join(f"{row[m][0]:>10.3f} / {row[m][1]:<9.3f}" for m in METHODS)
                    design = "stratified" if stratified else "uniform"
                    print(
                        f"{name:<22} {design:<10} {estimand:<4} {n:>4}  {cells}  "
                        f"{row['effective']:>6.1f}"
                    )


if __name__ == "__main__":
    main()
