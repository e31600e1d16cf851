"""Computations more than one page shares: the summary line (`page_summary`), the cached
agreement of a set of ratings (`agree`) and the clinicians' scores per item (`item_scores`).
Why fewer resamples live: a page holds dozens of intervals; with the `agreement` module's 2,000
resamples a cold recompute of 20,000 scores misses the 2 s target (DESIGN §10), so the live
pages use `LIVE_RESAMPLES` and say so beside every table ("CIs from 500 resamples");
breakdowns, with many small groups, use fewer still (`BREAKDOWN_RESAMPLES`), and say so too.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence

from annotation.dashboards.cache import CACHE_SECONDS, DATA_VERSION
from annotation.dashboards.loading import Dataset
from annotation.pure import agreement
from patientagentbench.cache import memo
from ratings.rating import Rating
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

LIVE_RESAMPLES = 500
BREAKDOWN_RESAMPLES = 200
# The envelope's verdict: 10,000 resamples on the page's own table (as the CLI), 2,000 within
# breakdown groups (many, small: their Monte-Carlo error is shown and flags `at the margin`).
VERDICT_RESAMPLES = agreement.VERDICT_RESAMPLES
BREAKDOWN_VERDICT_RESAMPLES = 2_000


def page_summary(ds: Dataset) -> dict:
    """The summary line every page shows: what was counted, the jury, the resamples."""
    ratings = ds.ratings(jury=False)
    na = sum(1 for r in ratings if r.score is None)
    jury = ds.jury.scores if ds.jury else {}
    return {
        "conversations": len({s.item for s in ds.scores}),
        "clinicians": len({s.rater for s in ds.scores}),
        "clinician_scores": len(ratings) - na,
        "not_applicable": na,
        "jury": ds.jury.label if ds.jury else "",
        "jury_scores": sum(1 for v in jury.values() if v[0] is not None),
        # Read as "4 not applicable", not the stored status "not_applicable".
        "jury_left_out": dict(
            Counter(v[1].replace("_", " ") for v in jury.values() if v[0] is None)
        ),
        "resamples": LIVE_RESAMPLES,
        "breakdown_resamples": BREAKDOWN_RESAMPLES,
        "margin": ds.filters.margin,
        "warnings": ds.warnings,
    }


def agree(
    ratings: list[Rating],
    margin: float,
    resamples: int = LIVE_RESAMPLES,
    verdict_resamples: int = VERDICT_RESAMPLES,
    epsilon: float = agreement.alt.EPSILON,
    scale: Scale = DEFAULT_SCALE,
) -> dict:
    """`agreement.agreement` as plain data, cached by content: the jury page and a study's
    bundle often ask for the very same ratings. `verdict_resamples=0`: no envelope intervals
    (pages that show no verdict need not pay for one). `scale`: the rubric's, with its pass mark."""
    text = repr(
        (sorted(ratings, key=_rating_key), margin, resamples, verdict_resamples, epsilon, scale)
    )
    content = hashlib.sha256(text.encode()).hexdigest()

    def compute() -> dict:
        result = agreement.agreement(
            ratings,
            margin=margin,
            n_resamples=resamples,
            verdict_resamples=verdict_resamples,
            epsilon=epsilon,
            scale=scale,
        )
        return {d: r.as_dict() for d, r in result.items()}

    return memo(f"dashboards:v{DATA_VERSION}:agree", content, compute, timeout=CACHE_SECONDS)


def _rating_key(rating: Rating) -> tuple:
    return (rating.item, rating.rater, rating.dimension)


def item_scores(ds: Dataset, dims: Sequence[str]) -> dict[str, dict[int, list[int]]]:
    """dimension → trace → the clinicians' usable scores."""
    found: dict[str, dict[int, list[int]]] = {d: defaultdict(list) for d in dims}
    for rating in ds.ratings(jury=False):
        if rating.dimension in found and rating.score is not None:
            found[rating.dimension][int(rating.item)].append(rating.score)
    return found
