"""Calibration: how close a clinician's scores are to the reference, and who passes a round.

Before scoring on their own, clinicians score reference items (PatientAgentBench ran three
rounds). A clinician passes a round on a dimension when their own exact and adjacent
agreement with the reference reach the researcher's thresholds AND the round's clinicians
agree with each other well enough (ordinal Krippendorff's alpha, DESIGN §7): a rubric the
group reads differently is not fixed by one person scoring close to the reference.

"Not applicable" is an answer, not a number: it is never compared as a score, and where it
differs from the reference it is reported separately so the feedback can show it. Scores are
compared one by one, so no mean is taken and nothing is rounded here (where a mean is needed
elsewhere the project rounds half up, never to even).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ratings import reliability
from ratings.rating import Rating
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

# Why a dimension was left out of `compare`.
CLINICIAN_NA = "clinician marked not applicable"
REFERENCE_NA = "reference marks not applicable"
BOTH_NA = "both marked not applicable"
NO_REFERENCE = "no reference score"
NOT_SCORED = "not scored"


@dataclass(frozen=True)
class Comparison:
    score: int
    reference: int
    diff: int  # score − reference: positive when the clinician scored higher
    exact: bool
    adjacent: bool  # |diff| ≤ 1, exact included


class Comparisons(dict[str, Comparison]):
    """`compare`'s answer: dimension → Comparison for the numeric pairs, and `excluded`:
    dimension → why it was not compared (not applicable on either side, or missing)."""

    def __init__(self, compared: dict[str, Comparison], excluded: dict[str, str]) -> None:
        super().__init__(compared)
        self.excluded = excluded


@dataclass(frozen=True)
class Thresholds:
    min_exact: float
    min_adjacent: float
    min_alpha: float


@dataclass(frozen=True)
class DimensionAlpha:
    dimension: str
    alpha: float | None
    raters: int  # clinicians with at least one score on this dimension
    items: int  # items scored by at least two of them (alpha's pairable units)
    reason: str | None  # why alpha is None


@dataclass(frozen=True)
class ClinicianResult:
    clinician: str
    dimension: str
    n: int  # reference items compared (numeric on both sides)
    exact: float | None
    adjacent: float | None
    excluded: int  # reference items left out (not applicable on either side)
    rates_passed: bool
    passed: bool
    reason: str | None  # why not passed


@dataclass(frozen=True)
class RoundReport:
    thresholds: Thresholds
    clinicians: dict[str, dict[str, ClinicianResult]]  # clinician → dimension → result
    dimensions: dict[str, DimensionAlpha]

    def passed(self, clinician: str, dimensions: Iterable[str] | None = None) -> bool:
        """Whether the clinician passed every given dimension (all they rated when None)."""
        results = self.clinicians.get(clinician, {})
        wanted = list(results) if dimensions is None else list(dimensions)
        return bool(wanted) and all(d in results and results[d].passed for d in wanted)


def compare(scores: dict[str, int | None], reference: dict[str, int | None]) -> Comparisons:
    """A clinician's scores beside the reference, dimension by dimension."""
    compared: dict[str, Comparison] = {}
    excluded: dict[str, str] = {}
    for dimension in [*scores, *(d for d in reference if d not in scores)]:
        score, ref = _optional(scores.get(dimension)), _optional(reference.get(dimension))
        if score is not None and ref is not None:
            compared[dimension] = _comparison(score, ref)
        else:
            excluded[dimension] = _why_excluded(dimension, scores, reference)
    return Comparisons(compared, excluded)


def round_report(
    ratings: list[Rating],
    reference: dict[str, dict[str, int | None]],
    thresholds: Thresholds,
    scale: Scale = DEFAULT_SCALE,
) -> RoundReport:
    """Per clinician × dimension agreement with the reference, per dimension alpha, and who
    passes: own rates at or above the thresholds and the dimension's alpha ≥ min_alpha."""
    _require_one_rating_each(ratings)
    dimensions = list(dict.fromkeys(r.dimension for r in ratings))
    alphas = {
        d: dimension_alpha(d, [r for r in ratings if r.dimension == d], scale) for d in dimensions
    }
    clinicians: dict[str, dict[str, ClinicianResult]] = {}
    for code in sorted({r.rater for r in ratings}):
        mine = [r for r in ratings if r.rater == code]
        clinicians[code] = {
            d: _clinician_result(code, d, mine, reference, alphas[d], thresholds)
            for d in dimensions
            if any(r.dimension == d for r in mine)
        }
    return RoundReport(thresholds=thresholds, clinicians=clinicians, dimensions=alphas)


def dimension_alpha(
    dimension: str, ratings: list[Rating], scale: Scale = DEFAULT_SCALE
) -> DimensionAlpha:
    """Ordinal Krippendorff's alpha over one dimension's ratings: units = items, raters =
    clinicians, not applicable = missing. None, with the reason, when it is undefined."""
    numeric = [r for r in ratings if r.score is not None]
    raters = {code: row for row, code in enumerate(sorted({r.rater for r in numeric}))}
    items = {item: column for column, item in enumerate(sorted({r.item for r in numeric}))}
    matrix = np.full((len(raters), len(items)), np.nan)
    for r in numeric:
        matrix[raters[r.rater], items[r.item]] = _checked(r.score, scale)
    shared = int(np.sum(np.sum(~np.isnan(matrix), axis=0) >= 2))
    value, reason = reliability.ordinal_alpha(matrix, scale.points, rater="clinician")
    return DimensionAlpha(dimension, value, len(raters), shared, reason or None)


# Below this many items compared, a round's agreement is a rough check whatever its targets.
FIRM_CHECK_FLOOR = 5


def items_for_a_firm_check(min_exact: float, min_adjacent: float) -> int:
    """How many items a dimension needs before one item scored differently cannot alone
    decide whether its targets are met: with n items, one miss moves agreement by 1/n, and
    the clinician still meets a target t only while (n - 1) / n >= t, so n >= 1 / (1 - t);
    at least FIRM_CHECK_FLOOR. The defaults (0.5 exact, 0.8 adjacent) need 5."""
    needed = [FIRM_CHECK_FLOOR]
    for target in (min_exact, min_adjacent):
        if 0 < target < 1:  # a target of 1 fails on any miss however many items there are
            needed.append(math.ceil(round(1 / (1 - target), 9)))
    return max(needed)


def disagreements(
    item_scores: dict[str, dict[str, int | None]],
    threshold: int = 2,
    scale: Scale = DEFAULT_SCALE,
) -> list[str]:
    """Dimensions of one item where the clinicians' scores spread by `threshold` or more
    (max − min, not applicable ignored): the item's entries in the adjudication queue."""
    by_dimension: dict[str, list[int]] = {}
    for scores in item_scores.values():
        for dimension, score in scores.items():
            values = by_dimension.setdefault(dimension, [])
            if score is not None:
                values.append(_checked(score, scale))
    return [d for d, v in by_dimension.items() if len(v) >= 2 and max(v) - min(v) >= threshold]


def _checked(score: int, scale: Scale = DEFAULT_SCALE) -> int:
    # bool is an int and 3.0 == 3; neither is a rubric score.
    if isinstance(score, bool) or not isinstance(score, int) or score not in scale:
        raise ValueError(f"a score must be an integer from {scale.span} or None, got {score!r}")
    return score


def _optional(score: int | None) -> int | None:
    return None if score is None else _checked(score)


def _comparison(score: int, reference: int) -> Comparison:
    diff = score - reference
    return Comparison(score, reference, diff, exact=diff == 0, adjacent=abs(diff) <= 1)


def _why_excluded(dimension: str, scores: dict, reference: dict) -> str:
    if dimension not in reference:
        return NO_REFERENCE
    if dimension not in scores:
        return NOT_SCORED
    if scores[dimension] is None and reference[dimension] is None:
        return BOTH_NA
    return CLINICIAN_NA if scores[dimension] is None else REFERENCE_NA


def _require_one_rating_each(ratings: list[Rating]) -> None:
    seen: set[tuple[str, str, str]] = set()
    for r in ratings:
        key = (r.rater, r.item, r.dimension)
        if key in seen:
            raise ValueError(
                f"{r.rater} rated item {r.item} on {r.dimension} more than once; "
                "pass only the latest score"
            )
        seen.add(key)


def _clinician_result(
    code: str,
    dimension: str,
    mine: list[Rating],
    reference: dict[str, dict[str, int | None]],
    alpha: DimensionAlpha,
    thresholds: Thresholds,
) -> ClinicianResult:
    pairs = [
        compare({dimension: r.score}, {dimension: reference[r.item][dimension]})
        for r in mine
        if r.dimension == dimension and dimension in reference.get(r.item, {})
    ]
    compared = [c[dimension] for c in pairs if dimension in c]
    n = len(compared)
    exact = sum(c.exact for c in compared) / n if n else None
    adjacent = sum(c.adjacent for c in compared) / n if n else None
    reasons = _rate_reasons(n, exact, adjacent, thresholds)
    rates_passed = not reasons
    reasons += _alpha_reasons(alpha, thresholds)
    return ClinicianResult(
        clinician=code,
        dimension=dimension,
        n=n,
        exact=exact,
        adjacent=adjacent,
        excluded=len(pairs) - n,
        rates_passed=rates_passed,
        passed=not reasons,
        reason="; ".join(reasons) or None,
    )


def _rate_reasons(
    n: int, exact: float | None, adjacent: float | None, thresholds: Thresholds
) -> list[str]:
    if not n or exact is None or adjacent is None:
        return ["no reference item was compared on this dimension"]
    reasons = []
    if exact < thresholds.min_exact:
        reasons.append(f"exact agreement {exact:.2f} is below {thresholds.min_exact:.2f}")
    if adjacent < thresholds.min_adjacent:
        reasons.append(f"adjacent agreement {adjacent:.2f} is below {thresholds.min_adjacent:.2f}")
    return reasons


def _alpha_reasons(alpha: DimensionAlpha, thresholds: Thresholds) -> list[str]:
    if alpha.alpha is None:
        return [f"the round's alpha could not be computed ({alpha.reason})"]
    if alpha.alpha < thresholds.min_alpha:
        return [f"the round's alpha {alpha.alpha:.3f} is below {thresholds.min_alpha:.3f}"]
    return []


# --- whether a round's design can qualify anyone ----------------------------------------------


def stand_in_references(
    n_items: int, dimensions: Iterable[str], scale: Scale = DEFAULT_SCALE
) -> dict[str, dict[str, int]]:
    """References for items whose scores are not written yet: every score in turn (1, 2, 3,
    …), the most favourable case, so only the design (people, items) can make it fail."""
    keys = list(dimensions)
    points = scale.points
    return {f"item-{i}": dict.fromkeys(keys, points[i % len(points)]) for i in range(n_items)}


def cannot_qualify(
    raters: dict[str, Iterable[str]],
    reference: dict[str, dict[str, int | None]],
    thresholds: Thresholds,
    scale: Scale = DEFAULT_SCALE,
) -> dict[str, dict[str, list[str]]]:
    """Clinician → why they cannot pass the round even by scoring every item exactly as the
    reference does → on which of their dimensions (`raters`: code → dimensions). The answer
    is `round_report`'s own on that best case, so it says what the rule says."""
    wanted = {code: list(dimensions) for code, dimensions in raters.items()}
    best_case = [
        Rating(item, code, dimension, scores[dimension])
        for code, dimensions in wanted.items()
        for item, scores in reference.items()
        for dimension in dimensions
        if dimension in scores
    ]
    report = round_report(best_case, reference, thresholds, scale)
    reasons: dict[str, dict[str, list[str]]] = {}
    for code, dimensions in wanted.items():
        results = report.clinicians.get(code, {})
        mine: dict[str, list[str]] = {}
        for dimension in dimensions:
            result = results.get(dimension)
            if result is None:
                mine.setdefault("no reference item to compare with", []).append(dimension)
            elif not result.passed:
                mine.setdefault(result.reason or "not passed", []).append(dimension)
        if mine or not dimensions:
            reasons[code] = mine or {"the round scores none of their dimensions": []}
    return reasons
