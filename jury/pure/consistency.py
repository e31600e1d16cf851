"""Judge consistency: does a judge give the same verdict when asked the same question again?

The seed paper asked it of agents; here it is asked of judges (DESIGN §5). With `--repeat K`
each judge scores each conversation K times; per judge and dimension we report

- exact and adjacent (|a − b| ≤ 1) agreement over every pair of repetitions of a
  conversation, pooled over conversations;
- ordinal Krippendorff's alpha with repetitions as raters and conversations as units (the
  `krippendorff` package; a repetition that was not `ok` is a missing value);
- the share of conversations whose pass/fail flips between repetitions.

Each judge also gets a row over all its dimensions (dimension `ALL`), where a unit is a
(conversation, dimension). Only `ok` answers are numbers; the rest are counted, per status.

`compare_versions` asks the same of two rubric or prompt versions on the same conversations
and lists every verdict that flipped, which is what a researcher needs after editing text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ratings import reliability
from ratings.alpha import alpha_undefined
from ratings.rating import OK
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE, PASS_THRESHOLD

ALL = "all"

Units = dict[Any, dict[Any, int | None]]  # unit -> repetition -> score (None: not ok)


@dataclass(frozen=True)
class RetestRow:
    judge: str
    dimension: str  # or ALL
    n_units: int  # units answered at least once
    n_repetitions: int
    n_pairs: int  # pairs of ok repetitions of the same unit
    exact: float | None
    adjacent: float | None
    alpha: float | None
    alpha_reason: str  # why alpha is None; empty otherwise
    n_flip_units: int  # units with at least two ok repetitions
    flips: int
    flip_share: float | None
    n_excluded: dict[str, int] = field(default_factory=dict)


def retest(records: Iterable[Any], scale: Scale = DEFAULT_SCALE) -> list[RetestRow]:
    """Per judge × dimension (then per judge over all dimensions) from records with judge,
    conversation, dimension, repetition, status and score."""
    per_dimension: dict[tuple[str, str], Units] = defaultdict(lambda: defaultdict(dict))
    pooled: dict[str, Units] = defaultdict(lambda: defaultdict(dict))
    excluded: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for record in records:
        judge, dimension = str(_get(record, "judge")), str(_get(record, "dimension"))
        conversation, repetition = _get(record, "conversation"), _get(record, "repetition")
        score = _score(record, scale)
        if score is None:
            excluded[(judge, dimension)][str(_get(record, "status"))] += 1
            excluded[(judge, ALL)][str(_get(record, "status"))] += 1
        _put(per_dimension[(judge, dimension)], conversation, repetition, score)
        _put(pooled[judge], (conversation, dimension), repetition, score)
    rows = [
        _row(judge, dimension, units, scale, excluded[(judge, dimension)])
        for (judge, dimension), units in sorted(per_dimension.items())
    ]
    rows += [
        _row(judge, ALL, units, scale, excluded[(judge, ALL)])
        for judge, units in sorted(pooled.items())
    ]
    return rows


def _put(units: Units, unit: Any, repetition: Any, score: int | None) -> None:
    if repetition in units[unit]:
        raise ValueError(f"two answers for unit {unit!r} in repetition {repetition!r}")
    units[unit][repetition] = score


def _row(judge: str, dimension: str, units: Units, scale: Scale, excluded) -> RetestRow:
    differences = [abs(a - b) for scores in units.values() for a, b in _pairs(scores)]
    alpha, reason = ordinal_alpha(units, scale)
    flip_units = [_ok(scores) for scores in units.values() if len(_ok(scores)) >= 2]
    flips = sum(len({scale.passes(s) for s in scores}) > 1 for scores in flip_units)
    return RetestRow(
        judge=judge,
        dimension=dimension,
        n_units=len(units),
        n_repetitions=len({rep for scores in units.values() for rep in scores}),
        n_pairs=len(differences),
        exact=_share(d == 0 for d in differences),
        adjacent=_share(d <= 1 for d in differences),
        alpha=alpha,
        alpha_reason=reason,
        n_flip_units=len(flip_units),
        flips=flips,
        flip_share=flips / len(flip_units) if flip_units else None,
        n_excluded=dict(excluded),
    )


def _pairs(scores: dict[Any, int | None]) -> list[tuple[int, int]]:
    return list(combinations(_ok(scores), 2))


def _ok(scores: dict[Any, int | None]) -> list[int]:
    return [scores[rep] for rep in sorted(scores, key=str) if scores[rep] is not None]


def _share(flags: Iterable[bool]) -> float | None:
    values = list(flags)
    return sum(values) / len(values) if values else None


def ordinal_alpha(units: Units, scale: Scale = DEFAULT_SCALE) -> tuple[float | None, str]:
    """Ordinal Krippendorff's alpha, repetitions as raters and units as units; None with the
    reason when it is undefined."""
    repetitions = sorted({rep for scores in units.values() for rep in scores}, key=str)
    if len(repetitions) < 2:
        return None, alpha_undefined(len(repetitions), 0, rater="repetition")
    matrix = np.full((len(repetitions), len(units)), np.nan)
    for column, scores in enumerate(units.values()):
        for rep, score in scores.items():
            if score is not None:
                matrix[repetitions.index(rep), column] = score
    return reliability.ordinal_alpha(matrix, scale.points, rater="repetition", unit="conversation")


# --- two versions of the rubric or the judge prompt ---------------------------------------------


@dataclass(frozen=True)
class Flip:
    conversation: str
    dimension: str
    judge: str  # "" for panel verdicts
    before: float
    after: float
    before_passed: bool
    after_passed: bool


@dataclass(frozen=True)
class StatusChange:
    conversation: str
    dimension: str
    judge: str
    before: str  # status
    after: str


@dataclass(frozen=True)
class VersionComparison:
    n_compared: int  # keys scored in both versions
    flipped: list[Flip]
    status_changed: list[StatusChange]  # e.g. ok before, unparseable after
    only_before: int
    only_after: int
    exact: float | None
    adjacent: float | None
    mean_shift: float | None  # mean of (after − before)

    @property
    def flip_share(self) -> float | None:
        return len(self.flipped) / self.n_compared if self.n_compared else None


def compare_versions(
    before: Iterable[Any], after: Iterable[Any], threshold: int = PASS_THRESHOLD
) -> VersionComparison:
    """Verdicts of two versions on the same (conversation, dimension[, judge]): records with
    conversation, dimension, optional judge, status, score and optional passed (a panel's
    majority verdict; otherwise score ≥ threshold). One verdict per key per version."""
    old, new = _keyed(before, "before"), _keyed(after, "after")
    shared = [key for key in old if key in new]
    both = [k for k in shared if old[k]["score"] is not None and new[k]["score"] is not None]
    diffs = [new[k]["score"] - old[k]["score"] for k in both]
    compared = [_compared(k, old[k], new[k], threshold) for k in both]
    return VersionComparison(
        n_compared=len(both),
        flipped=[c for c in compared if c.before_passed != c.after_passed],
        status_changed=[
            StatusChange(*k, old[k]["status"], new[k]["status"])
            for k in shared
            if old[k]["status"] != new[k]["status"]
        ],
        only_before=sum(k not in new for k in old),
        only_after=sum(k not in old for k in new),
        exact=_share(d == 0 for d in diffs),
        adjacent=_share(abs(d) <= 1 for d in diffs),
        mean_shift=sum(diffs) / len(diffs) if diffs else None,
    )


def _keyed(records: Iterable[Any], side: str) -> dict[tuple[str, str, str], dict]:
    keyed: dict[tuple[str, str, str], dict] = {}
    for record in records:
        key = (
            str(_get(record, "conversation")),
            str(_get(record, "dimension")),
            str(_get(record, "judge") or ""),
        )
        if key in keyed:
            raise ValueError(f"{side}: two verdicts for {key}; aggregate repetitions first")
        status = str(_get(record, "status") or OK)
        score = _get(record, "score") if status == OK else None
        keyed[key] = {"status": status, "score": score, "passed": _get(record, "passed")}
    return keyed


def _passed(verdict: Mapping[str, Any], threshold: int) -> bool:
    passed = verdict["passed"]
    return passed if isinstance(passed, bool) else verdict["score"] >= threshold


def _compared(key: tuple[str, str, str], old: Mapping, new: Mapping, threshold: int) -> Flip:
    return Flip(
        *key,
        before=old["score"],
        after=new["score"],
        before_passed=_passed(old, threshold),
        after_passed=_passed(new, threshold),
    )


# --- records ------------------------------------------------------------------------------------


def _get(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def _score(record: Any, scale: Scale) -> int | None:
    """A record's score when it is an ok answer; None otherwise (never a number)."""
    if _get(record, "status") != OK:
        return None
    score = _get(record, "score")
    if not isinstance(score, int) or score not in scale:
        raise ValueError(f"an ok answer needs an integer score from {scale.span}, got {score!r}")
    return score
