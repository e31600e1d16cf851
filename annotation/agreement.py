"""Agreement between raters: the jury against clinicians, and clinicians among themselves
(DESIGN §7), on plain data, for the pages, the `agreement` command and the exports.

Point estimates come from the libraries that define them: quadratic-weighted Cohen's kappa
and Fleiss' kappa from statsmodels (scikit-learn is not a dependency; statsmodels'
`cohens_kappa(wt="quadratic")` reproduces scikit-learn's published 0.9541), Pearson and
Spearman from scipy, Krippendorff's alpha from the `krippendorff` package. Intervals are
95% bootstrap intervals resampling ITEMS (conversations), the independent units, seeded so a
page shows the same interval twice: scipy's BCa as in `analysis.statistics.bootstrap_ci`,
falling back to the percentile interval where BCa is undefined. Thousands of resamples per
figure would mean calling the libraries millions of times, so each figure is also written as
a vectorised function of per-item sums (a pair table, a coincidence matrix, category counts);
the tests hold it equal to the library on the full data.

Rounding, stated once: where the jury is compared with the clinicians' mean (modes 2–4),
exact and adjacent agreement and kappa compare with the mean rounded HALF UP (2.5 → 3,
3.5 → 4; Python's `round` would send 2.5 to 2). MAE, bias, Pearson and Spearman use the
unrounded mean.

Not applicable, unparseable and error ratings are never numbers: they are left out and
counted per rater kind and reason. A figure that cannot be computed (no pairs, no variation)
is None with the reason, never 0.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, permutations
from typing import Any

import krippendorff
import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from ratings.alpha import alpha_undefined, no_variation
from ratings.scale import PASS_THRESHOLD, SCORES

OK = "ok"
NOT_APPLICABLE = "not_applicable"
STATUSES = (OK, NOT_APPLICABLE, "unparseable", "error")
CLINICIAN, JURY = "clinician", "jury"
KINDS = (CLINICIAN, JURY)
LEVEL = 0.95
RESAMPLES = 2000
MARGIN = 0.1

# PatientAgentBench's four ways of setting the jury beside the clinicians. The value is how
# far (strictly more than) a clinician may sit from the item's mean before being left out.
MODES: dict[str, float | None] = {
    "every_pair": None,  # every jury–clinician pair on an item
    "clinician_mean": math.inf,  # jury vs the clinicians' mean per item
    "mean_within_1": 1,  # the same, clinicians more than 1 from that mean left out
    "mean_within_2": 2,  # the same, more than 2 from it left out
}
FIGURES = ("adjacent", "exact", "weighted_kappa", "pearson", "spearman", "mae", "bias")
ALPHA_LEVELS = ("ordinal", "nominal", "interval", "nominal_scores")

INSIDE = "inside the human envelope"
OUTSIDE = "outside the human envelope"
INCONCLUSIVE = "inconclusive"
NOT_COMPUTABLE = "not computable"

_VALUES = np.array(SCORES, dtype=float)
_QUADRATIC = (_VALUES[:, None] - _VALUES[None, :]) ** 2
_PASS = np.array([[s < PASS_THRESHOLD, s >= PASS_THRESHOLD] for s in SCORES], dtype=float)
_AT_OR_ABOVE_DIAGONAL = np.triu(np.ones((len(SCORES), len(SCORES)), dtype=bool))
_NOT_ASKED = "no resamples asked for"
_JURY_KEY = "\x00jury"  # the jury as one more rater; no clinician code starts with NUL


# --- input ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    item: str
    rater: str
    dimension: str
    score: int | None  # None = not applicable (or no usable answer: see status)
    status: str = OK  # ok, not_applicable, unparseable, error
    kind: str = CLINICIAN  # clinician or jury


def half_up(value: float) -> int:
    """The nearest integer, halves up: 2.5 → 3, 3.5 → 4 (never to the even neighbour).

    A mean of integer scores is a half only when it is exactly k + 0.5, which a float holds
    exactly, so adding 0.5 and flooring has no representation error to trip on."""
    return int(math.floor(value + 0.5))


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0  # items the figure stands on
    reason: str | None = None  # why value (or the interval) is None
    method: str | None = None  # how the interval was found: BCa or percentile

    @property
    def ci(self) -> list[float] | None:
        if self.ci_low is None or self.ci_high is None:
            return None
        return [self.ci_low, self.ci_high]

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci": self.ci, "n": self.n, "reason": self.reason}


@dataclass(frozen=True)
class PairwiseStats:
    """Figures over pairs (x, y) of scores; for the jury x is the jury, so bias > 0 means the
    jury scored higher. For clinician pairs each pair counts both ways, so no figure depends
    on which clinician is called first (and bias, 0 by construction, is None)."""

    n_items: int
    n_pairs: int
    adjacent: Estimate
    exact: Estimate
    weighted_kappa: Estimate
    pearson: Estimate
    spearman: Estimate
    mae: Estimate
    bias: Estimate
    left_out: int = 0  # clinician scores left out as too far from the item's mean
    items_without_mean: int = 0  # items where every clinician was too far from the mean

    def as_dict(self) -> dict[str, Any]:
        figures = {name: getattr(self, name).as_dict() for name in FIGURES}
        return {"n_items": self.n_items, "n_pairs": self.n_pairs, **figures} | {
            "left_out": self.left_out,
            "items_without_mean": self.items_without_mean,
        }


@dataclass(frozen=True)
class Alphas:
    """Krippendorff's alpha of one set of raters: ordinal on the 1–5 scores, nominal on
    pass/fail (score ≥ 3), and for comparison interval and nominal on the five scores."""

    n_items: int  # items with two or more ratings (alpha's pairable units)
    n_raters: int
    ordinal: Estimate
    nominal: Estimate
    interval: Estimate
    nominal_scores: Estimate

    def as_dict(self) -> dict[str, Any]:
        levels = {level: getattr(self, level).as_dict() for level in ALPHA_LEVELS}
        return {"n_items": self.n_items, "n_raters": self.n_raters, **levels}


@dataclass(frozen=True)
class Envelope:
    """Is the jury inside the human envelope? On the items with a jury score and two or more
    clinicians: the jury–clinician adjacent agreement, the clinician–clinician one, and their
    difference with a paired bootstrap interval (both resampled with the same items). Inside
    when that interval lies within ±margin; outside when it lies wholly beyond it."""

    n_items: int
    jury_adjacent: Estimate
    clinician_adjacent: Estimate
    difference: Estimate
    margin: float
    verdict: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "jury_adjacent": self.jury_adjacent.as_dict(),
            "clinician_adjacent": self.clinician_adjacent.as_dict(),
            "difference": self.difference.as_dict(),
            "margin": self.margin,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class DimensionAgreement:
    dimension: str
    n_items: int  # items with at least one usable score
    n_raters: int  # clinicians with at least one usable score (the jury not counted)
    has_jury: bool
    excluded: dict[str, dict[str, int]]  # rater kind → reason → ratings left out
    clinicians: PairwiseStats  # clinician vs clinician, every pair on an item
    fleiss_kappa: Estimate
    fleiss_raters_per_item: int | None  # Fleiss needs equal counts: items with this many
    alpha: Alphas
    alpha_with_jury: Alphas | None
    modes: dict[str, PairwiseStats] = field(default_factory=dict)  # jury vs clinicians
    envelope: Envelope | None = None

    def summary(self) -> dict[str, Any]:
        """The `agreement` command's JSON for this dimension: each figure's value under its
        name and its interval as `<name>_ci: [low, high]`."""
        figures = {
            "krippendorff_alpha_ordinal": self.alpha.ordinal,
            "krippendorff_alpha_nominal": self.alpha.nominal,
            "krippendorff_alpha_interval": self.alpha.interval,
            "krippendorff_alpha_nominal_scores": self.alpha.nominal_scores,
            "fleiss_kappa": self.fleiss_kappa,
        }
        if self.envelope is not None:
            every = self.modes["every_pair"]
            figures |= {
                "jury_adjacent_agreement": self.envelope.jury_adjacent,
                "clinician_adjacent_agreement": self.envelope.clinician_adjacent,
                "adjacent_agreement_difference": self.envelope.difference,
                "jury_exact_agreement": every.exact,
                "weighted_kappa": every.weighted_kappa,
            }
        out: dict[str, Any] = {"n_items": self.n_items, "n_raters": self.n_raters}
        for name, estimate in figures.items():
            out |= {name: estimate.value, f"{name}_ci": estimate.ci}
        if self.envelope is not None:
            out |= {"margin": self.envelope.margin, "verdict": self.envelope.verdict}
        return out | {"excluded": self.excluded}

    def as_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "has_jury": self.has_jury,
            "excluded": self.excluded,
            "clinicians": self.clinicians.as_dict(),
            "fleiss_kappa": self.fleiss_kappa.as_dict(),
            "fleiss_raters_per_item": self.fleiss_raters_per_item,
            "alpha": self.alpha.as_dict(),
            "alpha_with_jury": self.alpha_with_jury and self.alpha_with_jury.as_dict(),
            "modes": {mode: stats_.as_dict() for mode, stats_ in self.modes.items()},
            "envelope": self.envelope and self.envelope.as_dict(),
        }


@dataclass(frozen=True)
class _Options:
    seed: int = 0
    n_resamples: int = RESAMPLES
    level: float = LEVEL


# --- the public entry points ---------------------------------------------------------------------


def agreement(
    ratings: Iterable[Rating],
    *,
    margin: float = MARGIN,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> dict[str, DimensionAgreement]:
    """Every figure, per dimension (in order of first appearance). `n_resamples=0` gives the
    point estimates without intervals, which is fast."""
    options = _Options(seed, n_resamples, level)
    by_dimension = split_by_dimension(ratings)
    return {d: _dimension(d, s, margin, options) for d, s in by_dimension.items()}


def pairwise(
    a: Sequence[int | None],
    b: Sequence[int | None],
    *,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> PairwiseStats:
    """Figures between two score vectors, position by position (each position one item);
    positions where either side is None are left out. Bias is the mean of a − b."""
    if len(a) != len(b):
        raise ValueError(f"the two score vectors differ in length ({len(a)} and {len(b)})")
    rows = [(str(i), _checked(x), _checked(y)) for i, (x, y) in enumerate(zip(a, b, strict=True))]
    pairs = _pairs([(i, x, y) for i, x, y in rows if x is not None and y is not None])
    return _pairwise_stats(pairs, _Options(seed, n_resamples, level))


def clinician_matrix(
    ratings: Iterable[Rating],
    dimension: str,
    *,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> dict[tuple[str, str], PairwiseStats]:
    """The pairwise clinician agreement matrix of one dimension: for each pair of clinicians
    (a < b) who share an item, a's scores against b's on the items both scored."""
    scores = split_by_dimension(ratings).get(dimension)
    if scores is None:
        return {}
    options = _Options(seed, n_resamples, level)
    raters = sorted({r for by_rater in scores.clinicians.values() for r in by_rater})
    matrix = {}
    for first, second in combinations(raters, 2):
        shared = [
            (item, by_rater[first], by_rater[second])
            for item, by_rater in sorted(scores.clinicians.items())
            if first in by_rater and second in by_rater
        ]
        if shared:
            matrix[(first, second)] = _pairwise_stats(_pairs(shared), options)
    return matrix


def verdict(difference: Estimate, margin: float) -> str:
    """The equivalence verdict from the interval of (jury − clinician) adjacent agreement."""
    if difference.ci_low is None or difference.ci_high is None:
        return NOT_COMPUTABLE
    if -margin <= difference.ci_low and difference.ci_high <= margin:
        return INSIDE
    if difference.ci_high < -margin or difference.ci_low > margin:
        return OUTSIDE
    return INCONCLUSIVE


# --- splitting ratings ---------------------------------------------------------------------------


@dataclass
class Scores:
    """One dimension's usable scores, and what was left out."""

    clinicians: dict[str, dict[str, int]] = field(default_factory=dict)  # item → rater → score
    jury: dict[str, int] = field(default_factory=dict)  # item → score
    excluded: dict[str, Counter[str]] = field(default_factory=dict)  # kind → reason → count

    @property
    def items(self) -> list[str]:
        return sorted(set(self.clinicians) | set(self.jury))


def split_by_dimension(ratings: Iterable[Rating]) -> dict[str, Scores]:
    by_dimension: dict[str, Scores] = {}
    seen: set[tuple[str, str, str]] = set()
    jury_raters: dict[tuple[str, str], str] = {}
    for rating in ratings:
        _check_rating(rating)
        _check_once(rating, seen, jury_raters)
        scores = by_dimension.setdefault(rating.dimension, Scores())
        reason = _excluded_reason(rating)
        if reason:
            scores.excluded.setdefault(rating.kind, Counter())[reason] += 1
        elif rating.kind == JURY:
            scores.jury[rating.item] = rating.score  # type: ignore[assignment]
        else:
            scores.clinicians.setdefault(rating.item, {})[rating.rater] = rating.score  # type: ignore[assignment]
    return by_dimension


def _check_rating(rating: Rating) -> None:
    if rating.kind not in KINDS:
        raise ValueError(f"unknown rater kind {rating.kind!r}; one of {', '.join(KINDS)}")
    if rating.status not in STATUSES:
        raise ValueError(f"unknown status {rating.status!r}; one of {', '.join(STATUSES)}")
    if rating.status == OK:
        _checked(rating.score)


def _check_once(rating: Rating, seen: set, jury_raters: dict) -> None:
    key = (rating.item, rating.rater, rating.dimension)
    if key in seen:
        raise ValueError(
            f"{rating.rater} rated item {rating.item} on {rating.dimension} more than once; "
            "pass only the latest score"
        )
    seen.add(key)
    if rating.kind == JURY:
        other = jury_raters.setdefault((rating.item, rating.dimension), rating.rater)
        if other != rating.rater:
            raise ValueError(
                f"item {rating.item} has jury scores from {other} and {rating.rater} on "
                f"{rating.dimension}; compare one panel at a time"
            )


def _excluded_reason(rating: Rating) -> str | None:
    if rating.status != OK:
        return rating.status
    return NOT_APPLICABLE if rating.score is None else None


def _checked(score: Any) -> int | None:
    # bool is an int and 3.0 == 3; neither is a rubric score.
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | np.integer) or score not in SCORES:
        raise ValueError(f"a score must be an integer from 1 to 5 or None, got {score!r}")
    return int(score)


# --- one dimension -------------------------------------------------------------------------------


def _dimension(name: str, scores: Scores, margin: float, options: _Options) -> DimensionAgreement:
    fleiss, per_item = _fleiss(scores.clinicians, options)
    has_jury = bool(scores.jury)
    return DimensionAgreement(
        dimension=name,
        n_items=len(scores.items),
        n_raters=len({r for by_rater in scores.clinicians.values() for r in by_rater}),
        has_jury=has_jury,
        excluded={kind: dict(sorted(c.items())) for kind, c in sorted(scores.excluded.items())},
        clinicians=_pairwise_stats(_clinician_pairs(scores.clinicians), options, symmetric=True),
        fleiss_kappa=fleiss,
        fleiss_raters_per_item=per_item,
        alpha=_alphas(scores.clinicians, options),
        alpha_with_jury=_alphas(_with_jury(scores), options) if has_jury else None,
        modes={m: _mode(scores, m, options) for m in MODES} if has_jury else {},
        envelope=_envelope(scores, margin, options) if has_jury else None,
    )


def _with_jury(scores: Scores) -> dict[str, dict[str, int]]:
    rows = {item: dict(by_rater) for item, by_rater in scores.clinicians.items()}
    for item, score in scores.jury.items():
        rows.setdefault(item, {})[_JURY_KEY] = score
    return rows


def _clinician_pairs(clinicians: dict[str, dict[str, int]]) -> _Pairs:
    rows = [
        (item, a, b)
        for item in sorted(clinicians)
        for a, b in permutations([s for _, s in sorted(clinicians[item].items())], 2)
    ]
    return _pairs(rows)


def _mode(scores: Scores, mode: str, options: _Options) -> PairwiseStats:
    limit = MODES[mode]
    rows, left_out, without = [], 0, 0
    for item, jury in sorted(scores.jury.items()):
        clinicians = [s for _, s in sorted(scores.clinicians.get(item, {}).items())]
        if not clinicians:
            continue
        if limit is None:
            rows += [(item, jury, s) for s in clinicians]
            continue
        kept = _near_the_mean(clinicians, limit)
        left_out += len(clinicians) - len(kept)
        if kept:
            rows.append((item, jury, sum(kept) / len(kept)))
        else:
            without += 1
    result = _pairwise_stats(_pairs(rows), options)
    return replace(result, left_out=left_out, items_without_mean=without)


def _near_the_mean(scores: list[int], limit: float) -> list[int]:
    mean = sum(scores) / len(scores)
    return [s for s in scores if abs(s - mean) <= limit]


# --- pairs: the figures and their intervals ------------------------------------------------------


@dataclass(frozen=True)
class _Pairs:
    item: np.ndarray  # each pair's item, coded 0 … n_items − 1
    x: np.ndarray  # an integer score
    y: np.ndarray  # a score, or a clinicians' mean
    n_items: int


def _pairs(rows: Sequence[tuple[str, float, float]]) -> _Pairs:
    codes = {item: code for code, item in enumerate(dict.fromkeys(r[0] for r in rows))}
    item = np.array([codes[r[0]] for r in rows], dtype=np.intp)
    x = np.array([r[1] for r in rows], dtype=float)
    y = np.array([r[2] for r in rows], dtype=float)
    return _Pairs(item, x, y, len(codes))


def _pairwise_stats(pairs: _Pairs, options: _Options, symmetric: bool = False) -> PairwiseStats:
    n_pairs = len(pairs.x)
    if n_pairs == 0:
        none = Estimate(None, reason="no item has scores on both sides")
        return PairwiseStats(0, 0, **dict.fromkeys(FIGURES, none))
    points = _pair_points(pairs.x, pairs.y)
    table, y_values = _pair_table(pairs)
    intervals = _intervals(
        table, lambda sums: _pair_figures(sums, y_values), [v for v, _ in points], options
    )
    figures = {
        name: _estimate(point, interval, pairs.n_items)
        for name, point, interval in zip(FIGURES, points, intervals, strict=True)
    }
    if symmetric:
        figures["bias"] = Estimate(
            None, n=pairs.n_items, reason="clinician pairs have no direction"
        )
    return PairwiseStats(pairs.n_items, n_pairs, **figures)


def _pair_points(x: np.ndarray, y: np.ndarray) -> list[tuple[float | None, str | None]]:
    """Each figure of the pairs from its library (the means are plain means)."""
    rounded = np.floor(y + 0.5)  # half up, as `half_up`
    return [
        (float(np.mean(np.abs(x - rounded) <= 1)), None),
        (float(np.mean(x == rounded)), None),
        _library_kappa(x, rounded),
        _library_correlation(stats.pearsonr, x, y),
        _library_correlation(stats.spearmanr, x, y),
        (float(np.mean(np.abs(x - y))), None),
        (float(np.mean(x - y)), None),
    ]


def _library_kappa(x: np.ndarray, y: np.ndarray) -> tuple[float | None, str | None]:
    table = np.zeros((5, 5))
    np.add.at(table, (x.astype(int) - 1, y.astype(int) - 1), 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = cohens_kappa(table, wt="quadratic", return_results=False)
    if not np.isfinite(value):
        return None, "no variation: both sides gave one and the same score"
    return float(value), None


def _library_correlation(
    test: Callable, x: np.ndarray, y: np.ndarray
) -> tuple[float | None, str | None]:
    if len(x) < 2:
        return None, "fewer than 2 pairs"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, "no variation on one side"
    return float(test(x, y).statistic), None


def _pair_table(pairs: _Pairs) -> tuple[np.ndarray, np.ndarray]:
    """Per item, how many pairs fall in each (x, y) cell: every pair figure is a function of
    this table summed over the items drawn, which is what makes the bootstrap fast."""
    y_values = np.unique(pairs.y)
    table = np.zeros((pairs.n_items, len(SCORES), len(y_values)))
    cells = (pairs.item, pairs.x.astype(int) - 1, np.searchsorted(y_values, pairs.y))
    np.add.at(table, cells, 1)
    return table.reshape(pairs.n_items, -1), y_values


def _pair_figures(sums: np.ndarray, y_values: np.ndarray) -> np.ndarray:
    """FIGURES (last axis) of pair tables summed over items, vectorised over leading axes."""
    table = sums.reshape(*sums.shape[:-1], len(SCORES), len(y_values))
    x, y = _VALUES[:, None], y_values[None, :]
    rounded = np.floor(y + 0.5)
    n = table.sum(axis=(-2, -1))
    with np.errstate(all="ignore"):

        def mean(values: np.ndarray) -> np.ndarray:
            return (table * values).sum(axis=(-2, -1)) / n

        ranks_x = _midranks(table.sum(axis=-1))[..., :, None]
        ranks_y = _midranks(table.sum(axis=-2))[..., None, :]
        collapse = (_VALUES[None, :] == rounded.T).astype(float)  # y value → rounded score
        figures = [
            mean(np.abs(x - rounded) <= 1),
            mean(x == rounded),
            _quadratic_kappa(table @ collapse),
            _weighted_correlation(table, x, y),
            _weighted_correlation(table, ranks_x, ranks_y),
            mean(np.abs(x - y)),
            mean(x - y),
        ]
    return np.stack(figures, axis=-1)


def _midranks(counts: np.ndarray) -> np.ndarray:
    """The average rank of each value given how often each occurs (ties share their mean
    rank, as scipy.stats.rankdata does for Spearman)."""
    return np.cumsum(counts, axis=-1) - (counts - 1) / 2


def _weighted_correlation(table: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = table.sum(axis=(-2, -1), keepdims=True)
    dx = x - (table * x).sum(axis=(-2, -1), keepdims=True) / n
    dy = y - (table * y).sum(axis=(-2, -1), keepdims=True) / n
    covariance = (table * dx * dy).sum(axis=(-2, -1))
    spread = (table * dx**2).sum(axis=(-2, -1)) * (table * dy**2).sum(axis=(-2, -1))
    return np.where(spread > 1e-12, covariance / np.sqrt(spread), np.nan)


def _quadratic_kappa(table: np.ndarray) -> np.ndarray:
    """statsmodels' `cohens_kappa(wt="quadratic")`: 1 − Σ w·observed / Σ w·expected."""
    n = table.sum(axis=(-2, -1))[..., None, None]
    expected = table.sum(axis=-1)[..., :, None] * table.sum(axis=-2)[..., None, :] / n
    observed = (_QUADRATIC * table).sum(axis=(-2, -1))
    chance = (_QUADRATIC * expected).sum(axis=(-2, -1))
    return np.where(chance > 1e-12, 1 - observed / chance, np.nan)


# --- clinicians among themselves: Fleiss and Krippendorff ----------------------------------------


def _fleiss(
    clinicians: dict[str, dict[str, int]], options: _Options
) -> tuple[Estimate, int | None]:
    """Fleiss' kappa over the items rated by the most common number (≥ 2) of clinicians: the
    statistic assumes every item has as many ratings, not that the raters are the same."""
    sizes = Counter(len(s) for s in clinicians.values() if len(s) >= 2)
    if not sizes:
        return Estimate(None, reason="no item was scored by 2 or more clinicians"), None
    per_item = max(sizes, key=lambda size: (sizes[size], size))
    rows = [sorted(s.values()) for _, s in sorted(clinicians.items()) if len(s) == per_item]
    counts, _ = aggregate_raters(np.array(rows) - 1, n_cat=len(SCORES))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(fleiss_kappa(counts))
    if not math.isfinite(value):
        return Estimate(None, n=len(rows), reason="no variation: one score throughout"), per_item
    per_item_sums = np.column_stack([counts, (counts**2).sum(axis=1), np.ones(len(rows))])
    (interval,) = _intervals(
        per_item_sums, lambda s: _fleiss_vectorised(s, per_item), [value], options
    )
    return _estimate((value, None), interval, len(rows)), per_item


def _fleiss_vectorised(sums: np.ndarray, raters: int) -> np.ndarray:
    counts, squares, items = sums[..., :5], sums[..., 5], sums[..., 6]
    with np.errstate(all="ignore"):
        shares = counts / (items * raters)[..., None]
        observed = (squares - items * raters) / (items * raters * (raters - 1))
        chance = (shares**2).sum(axis=-1)
        kappa = np.where(chance < 1 - 1e-12, (observed - chance) / (1 - chance), np.nan)
    return kappa[..., None]


def _alphas(rows: dict[str, dict[str, int]], options: _Options) -> Alphas:
    """Krippendorff's alpha at each level; units are items, raters the keys of each row."""
    raters = sorted({r for by_rater in rows.values() for r in by_rater})
    pairable = {item: s for item, s in sorted(rows.items()) if len(s) >= 2}
    # Variation is checked per level in _library_alpha (pass/fail can lack it alone).
    reason = alpha_undefined(len(raters), len(pairable))
    if reason:
        none = Estimate(None, n=len(pairable), reason=reason)
        return Alphas(len(pairable), len(raters), **dict.fromkeys(ALPHA_LEVELS, none))
    matrix = _reliability_matrix(pairable, raters)
    points = [_library_alpha(matrix, level) for level in ALPHA_LEVELS]
    coincidences = _coincidences(matrix)
    intervals = _intervals(coincidences, _alpha_levels, [v for v, _ in points], options)
    estimates = [_estimate(p, i, len(pairable)) for p, i in zip(points, intervals, strict=True)]
    return Alphas(len(pairable), len(raters), *estimates)


def _reliability_matrix(rows: dict[str, dict[str, int]], raters: list[str]) -> np.ndarray:
    """Raters × items, NaN where a rater did not score an item (krippendorff's layout)."""
    matrix = np.full((len(raters), len(rows)), np.nan)
    position = {rater: row for row, rater in enumerate(raters)}
    for column, by_rater in enumerate(rows.values()):
        for rater, score in by_rater.items():
            matrix[position[rater], column] = score
    return matrix


def _library_alpha(matrix: np.ndarray, level: str) -> tuple[float | None, str | None]:
    data, domain, measure = matrix, list(SCORES), level
    if level == "nominal":  # pass/fail
        data = np.where(np.isnan(matrix), np.nan, matrix >= PASS_THRESHOLD)
        domain = [0, 1]
    elif level == "nominal_scores":
        measure = "nominal"
    if len(set(data[~np.isnan(data)].tolist())) < 2:
        return None, no_variation()
    value = krippendorff.alpha(
        reliability_data=data, level_of_measurement=measure, value_domain=domain
    )
    return float(value), None


def _coincidences(matrix: np.ndarray) -> np.ndarray:
    """Per item, Krippendorff's coincidence matrix (5 × 5, flattened): each ordered pair of
    ratings within the item, weighted 1 / (ratings − 1). Alpha at any level of a set of items
    is a function of the sum of these over the items."""
    counts = np.stack([(matrix == s).sum(axis=0) for s in SCORES], axis=-1).astype(float)
    return coincidences_of_counts(counts).reshape(len(counts), -1)


def coincidences_of_counts(counts: np.ndarray) -> np.ndarray:
    """counts: (…, 5) ratings per score on each item → (…, 5, 5) coincidences."""
    ratings = counts.sum(axis=-1)[..., None, None]
    pairs = counts[..., :, None] * counts[..., None, :]
    pairs = pairs - np.eye(len(SCORES)) * counts[..., None, :]
    with np.errstate(all="ignore"):
        return np.where(ratings >= 2, pairs / (ratings - 1), 0.0)


def _alpha_levels(sums: np.ndarray) -> np.ndarray:
    """ALPHA_LEVELS (last axis) from summed coincidence matrices, as krippendorff.alpha
    computes them: 1 − Σ o·δ / Σ e·δ with e the coincidences expected by chance."""
    coincidences = sums.reshape(*sums.shape[:-1], len(SCORES), len(SCORES))
    passed = np.swapaxes(_PASS, 0, 1) @ coincidences @ _PASS
    levels = [
        alpha_from(coincidences, ordinal_distances),
        alpha_from(passed, _nominal_distances),
        alpha_from(coincidences, lambda _: _QUADRATIC),
        alpha_from(coincidences, _nominal_distances),
    ]
    return np.stack(levels, axis=-1)


def alpha_from(coincidences: np.ndarray, distances: Callable) -> np.ndarray:
    marginals = coincidences.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta = distances(marginals)
    expected = marginals[..., :, None] * marginals[..., None, :] * delta
    with np.errstate(all="ignore"):
        disagreement = (coincidences * delta).sum(axis=(-2, -1))
        chance = expected.sum(axis=(-2, -1)) / (total - 1)
        return np.where(chance > 1e-12, 1 - disagreement / chance, np.nan)


def _nominal_distances(marginals: np.ndarray) -> np.ndarray:
    size = marginals.shape[-1]
    return 1 - np.eye(size)


def ordinal_distances(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k) / 2)², per resample."""
    after = np.cumsum(marginals, axis=-1)
    before = after - marginals
    half = (marginals[..., :, None] + marginals[..., None, :]) / 2
    upper = (after[..., None, :] - before[..., :, None] - half) ** 2  # right for c ≤ k
    return np.where(_AT_OR_ABOVE_DIAGONAL, upper, np.swapaxes(upper, -1, -2))


# --- the human envelope --------------------------------------------------------------------------


def _envelope(scores: Scores, margin: float, options: _Options) -> Envelope:
    rows = [
        _envelope_counts(jury, [s for _, s in sorted(scores.clinicians[item].items())])
        for item, jury in sorted(scores.jury.items())
        if len(scores.clinicians.get(item, {})) >= 2
    ]
    if not rows:
        none = Estimate(None, reason="no item has a jury score and 2 or more clinicians")
        return Envelope(0, none, none, none, margin, NOT_COMPUTABLE)
    per_item = np.array(rows, dtype=float)
    points = envelope_rates(per_item.sum(axis=0))
    intervals = _intervals(per_item, envelope_rates, list(points), options)
    jury, clinicians, difference = (
        _estimate((float(p), None), i, len(rows)) for p, i in zip(points, intervals, strict=True)
    )
    return Envelope(len(rows), jury, clinicians, difference, margin, verdict(difference, margin))


def _envelope_counts(jury: int, clinicians: list[int]) -> tuple[int, int, int, int]:
    """Adjacent jury–clinician pairs, such pairs, adjacent clinician pairs, such pairs."""
    jury_adjacent = sum(abs(jury - s) <= 1 for s in clinicians)
    clinician_adjacent = sum(abs(a - b) <= 1 for a, b in combinations(clinicians, 2))
    pairs = len(clinicians) * (len(clinicians) - 1) // 2
    return jury_adjacent, len(clinicians), clinician_adjacent, pairs


def envelope_rates(sums: np.ndarray) -> np.ndarray:
    jury = sums[..., 0] / sums[..., 1]
    clinicians = sums[..., 2] / sums[..., 3]
    return np.stack([jury, clinicians, jury - clinicians], axis=-1)


# --- the bootstrap -------------------------------------------------------------------------------


def _intervals(
    per_item: np.ndarray,
    reduce: Callable[[np.ndarray], np.ndarray],
    points: Sequence[float | None],
    options: _Options,
) -> list[tuple[float | None, float | None, str | None]]:
    """Bootstrap intervals resampling items, one per output of `reduce`, which maps the sum of
    `per_item` rows over the items drawn to the figures. One draw serves every figure, so the
    intervals of a comparison are consistent with each other."""
    n = len(per_item)
    if options.n_resamples <= 0:
        return [(None, None, _NOT_ASKED)] * len(points)
    if n < 2:
        return [(None, None, None)] * len(points)

    def statistic(drawn: np.ndarray, axis: int = -1) -> np.ndarray:
        # einsum, not @: see _simulated_widths.
        sums = np.einsum("...n,nk->...k", draw_counts(drawn, n), per_item)
        return np.moveaxis(reduce(sums), -1, 0)

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (np.arange(n, dtype=float),),
            statistic,
            n_resamples=options.n_resamples,
            confidence_level=options.level,
            method="BCa",
            rng=np.random.default_rng(options.seed),
            batch=500,
        )
    lows = np.atleast_1d(result.confidence_interval.low)
    highs = np.atleast_1d(result.confidence_interval.high)
    distribution = np.atleast_2d(result.bootstrap_distribution)
    return [
        _interval(lows[i], highs[i], distribution[i], points[i], options.level)
        for i in range(len(points))
    ]


def draw_counts(drawn: np.ndarray, n: int) -> np.ndarray:
    """How many times each item was drawn, for draws of item indices (…, m) → (…, n)."""
    indices = np.asarray(drawn).astype(np.intp)
    flat = indices.reshape(-1, indices.shape[-1])
    offsets = (np.arange(len(flat)) * n)[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=len(flat) * n)
    return counts.reshape(*indices.shape[:-1], n).astype(float)


def _interval(
    low: float, high: float, distribution: np.ndarray, point: float | None, level: float
) -> tuple[float | None, float | None, str | None]:
    if point is None:
        return None, None, None
    if np.isfinite(low) and np.isfinite(high):
        return float(low), float(high), "BCa"
    defined = distribution[np.isfinite(distribution)]
    # Resamples can be degenerate (every drawn item scored alike) when the full data is not;
    # those are left out of the percentile interval, unless they are most of them.
    if len(defined) < len(distribution) / 2:
        return None, None, None
    tail = (1 - level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high), "percentile"


def _estimate(
    point: tuple[float | None, str | None] | float | None,
    interval: tuple[float | None, float | None, str | None],
    n: int,
) -> Estimate:
    value, reason = point if isinstance(point, tuple) else (point, None)
    low, high, method = interval
    if method == _NOT_ASKED:
        return Estimate(value, None, None, n, reason, None)
    if value is not None and low is None and reason is None:
        reason = "no interval: too few items, or too few resamples with a defined value"
    return Estimate(value, low, high, n, reason, method)
