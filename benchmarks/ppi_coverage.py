"""Coverage and width of the jury-corrected estimates (annotation.pure.corrected) by simulation.

Each replication draws a population of N conversations: a clinician score y on the 1–5 scale
(a fixed distribution, so the true mean and pass rate are known) and a jury score f from one
of five juries: good (a half point kind, a little noise), noisy, biased one way (a point kind:
its pass/fail disagreements nearly all lenient), rarely lenient (exact, but two points kind on
one conversation in ten: for pass rates a disagreement on one in 40) and uninformative (its
scores shuffled). Clinicians score a uniform random n of them (or, in the "stratified" rows,
the jury's failures three times as often as the rest, weighted back by Hájek). For every n it
prints, over the replications, how often each 95% interval covers the truth and its mean width,
for jury only, clinicians only, PPI++ as reported (with the small-sample pseudo-labels) and
plain PPI++ (without them, ppi_py's interval but for the t quantile); the reported PPI's median
and largest effective number of clinician labels; and the share of these honest random samples
the balance check flagged or refused. Jury only is on the jury's own scale: its coverage of the
clinicians' truth is the point of showing it. A last table draws the jury's n lowest scores and
records them as a uniform sample: the balance check must refuse them.

    .venv/bin/python benchmarks/ppi_coverage.py [--reps 1000] [--population 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import corrected  # noqa: E402
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


def good(rng, y):
    return np.clip(y + 0.5 + 0.5 * rng.standard_normal(len(y)), 1, 5)


def noisy(rng, y):
    return np.clip(y + 1.5 * rng.standard_normal(len(y)), 1, 5)


def biased(rng, y):
    return np.clip(y + 1.0 + 0.7 * rng.standard_normal(len(y)), 1, 5)


def rarely_lenient(rng, y):
    return np.where(rng.random(len(y)) < 0.1, np.minimum(y + 2, 5), y)


def uninformative(rng, y):
    return rng.permutation(good(rng, y))


JURIES = {
    "good, +0.5 kind": good,
    "noisy": noisy,
    "biased, +1 kind": biased,
    "rarely lenient": rarely_lenient,
    "uninformative": uninformative,
}
STRATIFIED = ("good, +0.5 kind", "biased, +1 kind")
PLAIN = "plain"  # PPI++ without the small-sample pseudo-labels
METHODS = (JURY_ONLY, CLINICIANS_ONLY, PPI, PLAIN)


def sampled(rng, f, n: int, stratified: bool):
    """The labelled indices and every member's inclusion probability and stratum. A stratified
    sample can only use what is known before clinicians score: the jury's verdict."""
    size = len(f)
    if not stratified:
        chosen = rng.choice(size, n, replace=False)
        return set(chosen.tolist()), np.full(size, n / size), [""] * size
    strata = np.where(f < 3, "fail", "pass")
    counts = {s: int((strata == s).sum()) for s in ("fail", "pass")}
    rate = n / (3 * counts["fail"] + counts["pass"])  # failures at three times the rate
    sizes = {"fail": min(counts["fail"], max(1, round(3 * rate * counts["fail"])))}
    sizes["pass"] = n - sizes["fail"]
    chosen: set[int] = set()
    pi = np.zeros(size)
    for stratum, k in sizes.items():
        where = np.flatnonzero(strata == stratum)
        chosen |= set(rng.choice(where, k, replace=False).tolist())
        pi[where] = k / len(where)
    return chosen, pi, strata.tolist()


def estimates(y, f, chosen, pi, strata, proportion: bool) -> dict:
    transform = passes if proportion else float
    members = [
        Member(
            transform(f[i]), transform(y[i]) if i in chosen else None, pi[i], i in chosen, strata[i]
        )
        for i in range(len(y))
    ]
    found = three_estimates(members, proportion=proportion)
    weights = corrected._weights(members)
    if not isinstance(weights, str) and not found[PPI].balance.startswith("Refused"):
        found[PLAIN] = corrected.prediction_powered(
            members, weights, found[CLINICIANS_ONLY], proportion, pseudo=False
        )
    return found


def replicate(rng, size, n, jury, stratified):
    y = rng.choice(SCORES, size, p=CHANCES).astype(float)
    f = jury(rng, y)
    chosen, pi, strata = sampled(rng, f, n, stratified)
    return {
        "mean": (estimates(y, f, chosen, pi, strata, False), TRUE_MEAN),
        "pass": (estimates(y, f, chosen, pi, strata, True), TRUE_PASS),
    }


def summarise(results) -> dict:
    out = {}
    for method in METHODS:
        with_ci = [(e[method], t) for e, t in results if method in e and e[method].ci is not None]
        cover = np.mean([e.ci[0] <= t <= e.ci[1] for e, t in with_ci]) if with_ci else np.nan
        width = np.mean([e.ci[1] - e.ci[0] for e, _ in with_ci]) if with_ci else np.nan
        out[method] = (cover, width)
    effective = [e[PPI].effective_n for e, _ in results if e[PPI].effective_n is not None]
    out["effective"] = (np.median(effective), max(effective)) if effective else (np.nan, np.nan)
    flags = [e[PPI].balance for e, _ in results]
    out["flagged"] = np.mean([bool(b) and not b.startswith("Refused") for b in flags])
    out["refused"] = np.mean([b.startswith("Refused") for b in flags])
    return out


def coverage_table(rng, args, sizes) -> None:
    header = (
        f"{'jury':<16} {'design':<10} {'est':<4} {'n':>4}  "
        + "  ".join(f"{m + ' cover/width':>20}" for m in METHODS)
        + f"  {'eff n med/max':>13}  {'flag':>5} {'refuse':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, jury in JURIES.items():
        for stratified in (False, True):
            if stratified and name not in STRATIFIED:
                continue
            for n in sizes:
                runs = [
                    replicate(rng, args.population, n, jury, stratified) for _ in range(args.reps)
                ]
                for estimand in ("mean", "pass"):
                    row = summarise([r[estimand] for r in runs])
                    cells = "  ".join(f"{row[m][0]:>9.3f} / {row[m][1]:<8.3f}" for m in METHODS)
                    design = "stratified" if stratified else "uniform"
                    median, most = row["effective"]
                    print(
                        f"{name:<16} {design:<10} {estimand:<4} {n:>4}  {cells}  "
                        f"{median:>6.1f}/{most:<6.0f}  {row['flagged']:>5.3f} "
                        f"{row['refused']:>6.3f}"
                    )


def lowest_table(rng, args, sizes) -> None:
    """The jury's n lowest-scored conversations, recorded as a uniform random sample."""
    print()
    print(f"the jury's n lowest recorded as uniform ({args.reps // 10} populations per row):")
    print(f"{'jury':<16} {'n':>4}  {'mean refused':>12}  {'pass refused':>12}")
    for name in ("good, +0.5 kind", "noisy"):
        for n in sizes:
            refused = {"mean": 0, "pass": 0}
            for _ in range(args.reps // 10):
                y = rng.choice(SCORES, args.population, p=CHANCES).astype(float)
                f = JURIES[name](rng, y)
                chosen = set(np.argsort(f, kind="stable")[:n].tolist())
                pi = np.full(len(y), n / len(y))
                for estimand in refused:
                    found = estimates(y, f, chosen, pi, [""] * len(y), estimand == "pass")
                    refused[estimand] += found[PPI].balance.startswith("Refused")
            total = args.reps // 10
            print(
                f"{name:<16} {n:>4}  {refused['mean'] / total:>12.3f}  "
                f"{refused['pass'] / total:>12.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--population", type=int, default=1000)
    parser.add_argument("--n", default="10,20,30,50,100")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    sizes = [int(x) for x in args.n.split(",")]
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(
        f"N = {args.population}, {args.reps} replications per row; truth: mean "
        f"{TRUE_MEAN:.2f}, pass rate {TRUE_PASS:.2f}; 95% intervals; cover = share of "
        "intervals holding the truth (Monte-Carlo SE about 0.007 at 0.95 and 1,000 "
        "replications), width = mean width; ppi = as reported, plain = PPI++ without the "
        "pseudo-labels; eff n = the reported PPI's effective labels (median / largest); "
        "flag, refuse = shares of these random samples the balance check flagged / refused"
    )
    coverage_table(rng, args, sizes)
    lowest_table(rng, args, sizes)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
