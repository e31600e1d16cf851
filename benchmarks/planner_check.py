"""Do the study planner's recommendations reach the verdicts' targets? (Issue 35, item 3; DESIGN
§7: fresh studies of a recommended design reach the target at least 80% of the time.)

A population like benchmarks/agreement_coverage.py's: each item has a latent quality ~ N(3, 1);
a clinician scores it as quality + their own leniency (~ N(0, 0.25²), drawn per clinician) +
noise (sd 0.8), rounded to 1–5; the jury is exchangeable with a clinician (leniency 0.15, noise
0.8: the jury a study hopes to find). A pilot is a calibration round: 3 or 5 clinicians, drawn
from the population, each scoring every one of 30, 60 or 100 items.

`plan_study` recommends, from each pilot, the cheapest design (items × clinicians ×
clinicians per item) for each verdict: the envelope's (both deciding intervals, adjacency and
kappa difference, at most `--target` wide) and the alt-test's (it finds the jury can stand in).
Then fresh studies of that design are drawn from the population — new items, new clinicians,
each item given the design's number of clinicians at random among the least loaded, so every
clinician scores about items × per item / clinicians — and put through the real verdict code:
`envelope.envelope()` (clinicians resampled, `--resamples` bootstrap resamples) and
`alt_test.alt_test()` (ordinal, ε = 0.2). Printed per pilot size and verdict: the design
recommended (the most frequent over pilots, and how many distinct ones), the share of fresh
studies reaching the target with its 95% Wilson interval over the fresh studies (the goal:
≥ 80%), the planner's own figure for that design (median width planned / its power) beside
the realised one, and how many pilots found no design among those tried.

    .venv/bin/python benchmarks/planner_check.py              # ~10 minutes on 2 busy cores
    .venv/bin/python benchmarks/planner_check.py --pilots 2 --fresh 20 --sizes 30
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.pure import alt_test as alt  # noqa: E402
from annotation.pure import envelope as env  # noqa: E402
from annotation.pure import planning  # noqa: E402
from annotation.pure.agreement import JURY, Rating  # noqa: E402
from jury.pure.aggregate import wilson  # noqa: E402

ITEMS = (30, 60, 120, 240, 480, 960)
CLINICIANS = (3, 5, 8, 12, 20)
PER_ITEM = (2, 3)
LENIENCY, NOISE, JURY_LENIENCY = 0.25, 0.8, 0.15


def _score(values: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(values), 1, 5).astype(int)


def balanced_raters(rng, items: int, clinicians: int, per_item: int) -> list[np.ndarray]:
    """Each item's clinicians: `per_item` at random among the least loaded so far."""
    loads = np.zeros(clinicians)
    chosen = []
    for _ in range(items):
        order = np.lexsort((rng.random(clinicians), loads))
        raters = order[:per_item]
        loads[raters] += 1
        chosen.append(raters)
    return chosen


def study(rng, items: int, clinicians: int, per_item: int):
    """clinicians (item → clinician → score) and the jury (item → score) of one study."""
    quality = rng.normal(3, 1, items)
    leniency = rng.normal(0, LENIENCY, clinicians)
    scores: dict[str, dict[str, int]] = {}
    for i, raters in enumerate(balanced_raters(rng, items, clinicians, per_item)):
        given = _score(quality[i] + leniency[raters] + rng.normal(0, NOISE, len(raters)))
        scores[f"i{i}"] = {f"c{r}": int(s) for r, s in zip(raters, given, strict=True)}
    jury = _score(quality + JURY_LENIENCY + rng.normal(0, NOISE, items))
    return scores, dict(zip(scores, map(float, jury), strict=True))


def as_ratings(clinicians, jury) -> list[Rating]:
    ratings = [
        Rating(item, name, "safety", score)
        for item, by in clinicians.items()
        for name, score in by.items()
    ]
    return ratings + [Rating(i, "panel", "safety", int(s), kind=JURY) for i, s in jury.items()]


def fresh(design: planning.Design, rng, args) -> dict[str, list]:
    """The real verdicts on fresh studies of the design."""
    found: dict[str, list] = {"envelope": [], "alt_test": [], "adjacent": [], "kappa": []}
    for _ in range(args.fresh):
        clinicians, jury = study(rng, design.items, design.clinicians, design.per_item)
        verdict = env.envelope(
            clinicians, jury, n_resamples=args.resamples, seed=int(rng.integers(1 << 30))
        )
        widths = [
            f.high - f.low if f.ci else np.inf
            for f in (verdict.adjacent_difference, verdict.kappa_difference)
        ]
        found["adjacent"].append(widths[0])
        found["kappa"].append(widths[1])
        found["envelope"].append(max(widths) <= args.target)
        found["alt_test"].append(alt.alt_test(clinicians, jury).verdict == alt.STANDS_IN)
    return found


def check(pilot_clinicians: int, pilot_items: int, args) -> list[dict]:
    rng = np.random.default_rng([args.seed, pilot_clinicians, pilot_items])
    started = time.perf_counter()
    out = {v: {"designs": [], "reached": [], "planned": [], "real": []} for v in VERDICTS}
    for number in range(args.pilots):
        pilot = as_ratings(*study(rng, pilot_items, pilot_clinicians, pilot_clinicians))
        plan = planning.plan_study(
            pilot, ITEMS, CLINICIANS, PER_ITEM, args.target, seed=number,
        )  # fmt: skip
        for verdict, design in (
            ("envelope", plan.recommended_envelope),
            ("alt_test", plan.recommended_alt_test),
        ):
            out[verdict]["designs"].append(design)
            if design is None:
                continue
            row = next(r for r in plan.rows if r.design == design)
            found = fresh(design, rng, args)
            out[verdict]["reached"] += found[verdict]
            if verdict == "envelope":
                planned = max(row.figures[f].median for f in planning.FIGURES)
                real = np.median(np.maximum(found["adjacent"], found["kappa"]))
            else:
                planned, real = row.figures[planning.ALT_TEST].value, np.mean(found[verdict])
            out[verdict]["planned"].append(planned)
            out[verdict]["real"].append(real)
    seconds = time.perf_counter() - started
    return [
        _summary(verdict, out[verdict], pilot_clinicians, pilot_items, seconds)
        for verdict in VERDICTS
    ]


VERDICTS = ("envelope", "alt_test")


def _summary(verdict, found, clinicians, items, seconds) -> dict:
    designs = [d for d in found["designs"] if d]
    common = Counter(d.as_tuple() for d in designs).most_common(1)
    hits, n = int(np.sum(found["reached"])), len(found["reached"])
    return {
        "verdict": verdict,
        "pilot": f"{clinicians} × {items}",
        "design": "none" if not common else "×".join(map(str, common[0][0])),
        "kinds": len({d.as_tuple() for d in designs}),
        "none": len(found["designs"]) - len(designs),
        "reach": (hits / n, *wilson(hits, n)) if n else None,
        "n": n,
        "planned": float(np.mean(found["planned"])) if found["planned"] else float("nan"),
        "real": float(np.mean(found["real"])) if found["real"] else float("nan"),
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pilots", type=int, default=3, help="pilots per pilot size")
    parser.add_argument("--fresh", type=int, default=40, help="fresh studies per recommendation")
    parser.add_argument("--resamples", type=int, default=500, help="envelope bootstrap resamples")
    parser.add_argument("--clinicians", default="3,5", help="pilot clinicians")
    parser.add_argument("--sizes", default="30,60,100", help="pilot sizes (items)")
    parser.add_argument("--target", type=float, default=0.3, help="envelope CI width wanted")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"{args.pilots} pilots per row, {args.fresh} fresh studies per recommendation, "
        f"envelope on {args.resamples} resamples, target width {args.target:g} (both "
        f"differences), alt-test ε = {alt.EPSILON:g}, planned at {planning.DEFAULT_QUANTILE:.0%}; "
        f"designs {ITEMS[0]}–{ITEMS[-1]} items × {CLINICIANS[0]}–{CLINICIANS[-1]} clinicians × "
        f"{', '.join(map(str, PER_ITEM))} per item. reach: share of fresh studies reaching the "
        "target [95% Wilson interval over them]; planned/real: the envelope's median widest "
        "width, the alt-test's power"
    )
    header = (
        f"{'verdict':<9} {'pilot':>8} {'design':>10} {'kinds':>5} {'none':>4} "
        f"{'reach':>22} {'n':>4} {'planned':>8} {'real':>6} {'seconds':>7}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for clinicians in (int(c) for c in args.clinicians.split(",")):
        for size in (int(s) for s in args.sizes.split(",")):
            for r in check(clinicians, size, args):
                reach = "—" if r["reach"] is None else (
                    f"{r['reach'][0]:6.1%} [{r['reach'][1]:5.1%}, {r['reach'][2]:5.1%}]"
                )  # fmt: skip
                print(
                    f"{r['verdict']:<9} {r['pilot']:>8} {r['design']:>10} {r['kinds']:>5} "
                    f"{r['none']:>4} {reach:>22} {r['n']:>4} {r['planned']:>8.3f} "
                    f"{r['real']:>6.3f} {r['seconds']:>7.1f}",
                    flush=True,
                )
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
