"""One rating: who scored which item on which dimension, and how it stands.

The one shape a score has from the moment it is stored to the figure it feeds: the review
app reads a submission's scores into Ratings (`ratings_of`), the dashboards load them, the
agreement and calibration figures take them, and the ratings CSV (`ratings.table`) reads
and writes them. A jury's score is a Rating too, with `kind` jury.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import datetime

# Each status and each spelling of N/A is defined here once and imported everywhere else.
OK = "ok"
NOT_APPLICABLE = "not_applicable"  # the status, as stored
UNPARSEABLE = "unparseable"
NOT_APPLICABLE_CHOICE = "na"  # how the review and research forms send N/A (the key n)
NOT_APPLICABLE_LABEL = "N/A"  # how a page, an audit sentence or a table cell writes it
# How an imported file may write N/A in a score field (case-insensitive).
NOT_APPLICABLE_READS = frozenset({NOT_APPLICABLE_CHOICE, "n/a", "not applicable", NOT_APPLICABLE})
# Why a judge's answer has no score (truncated: cut at the answer cap; na_not_allowed: N/A
# where the rubric forbids it); a clinician's score is only ever ok or not applicable.
STATUSES = (OK, NOT_APPLICABLE, UNPARSEABLE, "truncated", "na_not_allowed", "error")
NO_SCORE_STATUSES = STATUSES[1:]  # left out of every figure and counted by reason

CLINICIAN, JURY = "clinician", "jury"
KINDS = (CLINICIAN, JURY)


@dataclass(frozen=True)
class Rating:
    item: Hashable  # what was rated: a conversation (or a study item) id, as the caller keys it
    rater: str  # a clinician's pseudonymous code, or the jury's name
    dimension: str
    # A whole score from a clinician; a jury's may be a panel's mean (2.5): it is compared with
    # whole scores by the tie rule and used as it is for MAE, bias and correlations.
    score: float | None  # None = no number: not applicable, or no usable answer (see status)
    status: str = OK
    kind: str = CLINICIAN
    # Where and when it was given, when the reader knows: the dashboards' history and
    # reference checks use them; no figure does.
    study: int | None = None
    at: datetime | None = None
    reference: int | None = None  # the item's reference score, on a reference item


def status_of(score: float | None) -> str:
    """A clinician's stored score's status: a number is ok, None is not applicable."""
    return OK if score is not None else NOT_APPLICABLE


def ratings_of(
    item: Hashable,
    rater: str,
    scores: Mapping[str, float | None],
    *,
    study: int | None = None,
    at: datetime | None = None,
    references: Mapping[str, int | None] | None = None,
) -> list[Rating]:
    """A clinician's submission (`{dimension: score or None}`, as the review page stores it)
    as Ratings, one per dimension, in the submission's order."""
    references = references or {}
    return [
        Rating(
            item,
            rater,
            dimension,
            score,
            status_of(score),
            CLINICIAN,
            study=study,
            at=at,
            reference=references.get(dimension),
        )
        for dimension, score in scores.items()
    ]
