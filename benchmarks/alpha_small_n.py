"""How often the clinicians' alpha interval covers the truth on few items (a calibration round
has 4; the demo study 2), which decides below how many items the page withholds it.

Population (as benchmarks/agreement_coverage.py): each item has a latent quality ~ N(3, 1); a
clinician scores it as quality + their leniency (~ N(0, 0.25)) + noise (sd 0.8), rounded to
1–5. Each simulated study draws 2 clinicians who both score every one of its n items. The
truth is ordinal alpha on one very large study from the same population. For each n it prints
how often an interval was given, how often a given one covered the truth (nominal 95%), and
its median width.

    .venv/bin/python benchmarks/alpha_small_n.py [--reps 200] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure.agreement import agreement  # noqa: E402
from ratings.rating import Rating  # noqa: E402

SIZES = (2, 3, 4, 6, 8, 12, 20, 30, 60)


def scores(rng: np.random.Generator, items: int, clinicians: int) -> np.ndarray:
    quality = rng.normal(3, 1, size=items)
    leniency = rng.normal(0, 0.25, size=clinicians)
    noise = rng.normal(0, 0.8, size=(clinicians, items))
    return np.clip(np.rint(quality[None, :] + leniency[:, None] + noise), 1, 5).astype(int)


def alpha_of(matrix: np.ndarray, resamples: int, seed: int):
    ratings = [
        Rating(f"i{item}", f"c{rater}", "d", int(matrix[rater, item]))
        for rater in range(matrix.shape[0])
        for item in range(matrix.shape[1])
    ]
    return agreement(ratings, n_resamples=resamples, verdict_resamples=0, seed=seed)["d"].alpha


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)

    import krippendorff

    # The truth: many studies' worth of items, each its own pair of clinicians, pooled.
    truth_items = np.concatenate([scores(rng, 200, 2) for _ in range(200)], axis=1)
    truth = krippendorff.alpha(
        reliability_data=truth_items, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]
    )
    print(f"truth: ordinal alpha {truth:.3f} (40,000 items, 2 clinicians each)")
    print(f"{args.reps} studies per size, {args.resamples} resamples, nominal 95%")
    print("items  value given  interval given  covered (of given)  median width")
    started = time.perf_counter()
    for n in SIZES:
        values = given = covered = 0
        widths = []
        for rep in range(args.reps):
            ordinal = alpha_of(scores(rng, n, 2), args.resamples, rep).ordinal
            values += ordinal.value is not None
            if ordinal.ci is not None:
                given += 1
                covered += ordinal.ci[0] <= truth <= ordinal.ci[1]
                widths.append(ordinal.ci[1] - ordinal.ci[0])
        share = f"{100 * covered / given:5.1f}%" if given else "    —"
        width = f"{np.median(widths):.2f}" if widths else "—"
        print(
            f"{n:5d}  {100 * values / args.reps:10.0f}%  {100 * given / args.reps:13.0f}%  "
            f"{share:>18}  {width:>12}"
        )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
