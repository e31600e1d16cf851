"""Computations more than one page (and the figures) share: the summary line, the cached
agreement of a set of ratings, and the per-item, drift and realism readings of a `Dataset`.
Why fewer resamples live: a page holds dozens of intervals; with the `agreement` module's 2,000
resamples a cold recompute of 20,000 scores misses the 2 s target (DESIGN §10), so the live
pages use `LIVE_RESAMPLES` and say so beside every table ("CIs from 500 resamples");
breakdowns, with many small groups, use fewer still (`BREAKDOWN_RESAMPLES`), and say so too.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence

from django.core.cache import cache

from annotation import agreement
from annotation.agreement import Rating
from annotation.dashboards.cache import CACHE_SECONDS, DATA_VERSION
from annotation.dashboards.loading import Dataset

LIVE_RESAMPLES = 500
BREAKDOWN_RESAMPLES = 200
DRIFT_WINDOW = 20  # comparisons with the reference in each clinician's rolling window
QUALITY_DIMENSIONS = ("task_completion", "clinical_safety")
CELL_METRICS = {"tss": "TSS", "ac": "AC", "divergence_point": "Divergence point"}


def _summary(ds: Dataset) -> dict:
    ratings = ds.ratings(jury=False)
    na = sum(1 for r in ratings if r.score is None)
    jury = ds.jury.scores if ds.jury else {}
    return {
        "conversations": len({s.trace for s in ds.scores}),
        "clinicians": len({s.clinician for s in ds.scores}),
        "clinician_scores": len(ratings) - na,
        "not_applicable": na,
        "jury": ds.jury.label if ds.jury else "",
        "jury_scores": sum(1 for v in jury.values() if v[0] is not None),
        "jury_left_out": dict(Counter(v[1] for v in jury.values() if v[0] is None)),
        "resamples": LIVE_RESAMPLES,
        "breakdown_resamples": BREAKDOWN_RESAMPLES,
        "margin": ds.filters.margin,
        "warnings": ds.warnings,
    }


def _agree(ratings: list[Rating], margin: float, resamples: int = LIVE_RESAMPLES) -> dict:
    """`agreement.agreement` as plain data, cached by content: the jury page and the raters
    page (and a study's bundle) often ask for the very same ratings."""
    text = repr((sorted(ratings, key=_rating_key), margin, resamples))
    key = f"dashboards:v{DATA_VERSION}:agree:" + hashlib.sha256(text.encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        result = agreement.agreement(ratings, margin=margin, n_resamples=resamples)
        found = {d: r.as_dict() for d, r in result.items()}
        cache.set(key, found, CACHE_SECONDS)
    return found


def _rating_key(rating: Rating) -> tuple:
    return (rating.item, rating.rater, rating.dimension)


def _item_scores(ds: Dataset, dims: Sequence[str]) -> dict[str, dict[int, list[int]]]:
    """dimension → trace → the clinicians' usable scores."""
    found: dict[str, dict[int, list[int]]] = {d: defaultdict(list) for d in dims}
    for rating in ds.ratings(jury=False):
        if rating.dimension in found and rating.score is not None:
            found[rating.dimension][int(rating.item)].append(rating.score)
    return found


def _drift_points(ds: Dataset) -> list[dict]:
    """Each comparison of a clinician's score with an item's reference score, oldest first,
    with the clinician's rolling agreement over their last `DRIFT_WINDOW` comparisons."""
    points = []
    windows: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for score in sorted(ds.scores, key=lambda s: (s.at, s.clinician, s.trace, s.dimension)):
        if score.reference is None or score.score is None:
            continue
        window = windows[score.clinician]
        hit = (abs(score.score - score.reference) <= 1, score.score == score.reference)
        window.append(hit)
        recent = window[-DRIFT_WINDOW:]
        points.append(
            {
                "clinician": score.clinician,
                "submitted_at": score.at.isoformat(),
                "study": ds.studies.get(score.study, {}).get("name", score.study),
                "trace": score.trace,
                "dimension": score.dimension,
                "score": score.score,
                "reference": score.reference,
                "adjacent": int(hit[0]),
                "exact": int(hit[1]),
                "rolling_adjacent": sum(a for a, _ in recent) / len(recent),
                "rolling_exact": sum(e for _, e in recent) / len(recent),
            }
        )
    return points


def _realism_keys(ds: Dataset) -> list[str]:
    return [d.key for d in ds.rubric.realism]


def _realism_counts(ds: Dataset, attribute: str) -> dict[tuple[str, str], Counter[int]]:
    counts: dict[tuple[str, str], Counter[int]] = defaultdict(Counter)
    keys = set(_realism_keys(ds))
    for score in ds.scores:
        conversation = ds.conversations.get(score.trace)
        if score.dimension in keys and score.score is not None and conversation:
            for value in conversation.values_of(attribute) or ["(none)"]:
                counts[(value, score.dimension)][score.score] += 1
    return counts
