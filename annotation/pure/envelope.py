"""Is the jury inside the human envelope? The verdict a researcher quotes (DESIGN §7).

On the items with a jury score and two or more clinicians, two figures are computed the same
way for the jury and for the clinicians, and compared:

- **adjacent agreement** (within 1 point), per item — the jury with each of the item's
  clinicians, the clinicians with each other — then averaged over items with equal weights on
  both sides, so a jury exchangeable with a clinician has an expected difference of 0 however
  many clinicians each item has;
- **quadratic-weighted Cohen's kappa**, per pair of raters on the items they share — the jury
  with each clinician, each pair of clinicians — then averaged over the pairs: one estimator
  (separate marginals, Cohen-type) on both sides, so clinicians who differ in leniency are not
  handicapped against the jury. Adjacent agreement alone is not chance-corrected: a jury that
  always answers 3 agrees "adjacently" with most scores while carrying no information.

Uncertainty: one paired percentile bootstrap resamples items (every figure of a draw comes
from the same resample, so the differences are paired), and the clinicians are a sample of
clinicians too: each interval is widened about its point by a delete-one-clinician jackknife
of the same figure, so that the variances of items and of clinicians add ("these clinicians
only", `raters="fixed"`, skips that, labelled as such; so do fewer than 3 clinicians, which
say so). Verdicts use 10,000 resamples; the Monte-Carlo error of each interval endpoint is
the spread of the order statistics that could have been that endpoint (a binomial band around
its rank), and a verdict whose deciding endpoint lies within that error of its threshold is
flagged `at the margin`. benchmarks/agreement_coverage.py checks the coverage.
Adjacent agreement at 0 or 1 has no bootstrap spread; it gets a Wilson score interval, and the
difference Newcombe's hybrid score interval, never [1, 1].

The verdict (TOST: a 95% interval is two one-sided tests at 2.5% each):
- `not enough evidence`: fewer items than the minimum (default 30), or the clinicians' scores
  do not vary (kappa undefined), or no interval could be found;
- `below the human envelope` / `above the human envelope`: an interval of a difference lies
  wholly below −margin / above +margin (and none the other way);
- `inside the human envelope`: both intervals lie within ±margin and the jury's own kappa
  interval lies above 0;
- `inconclusive`: anything else (more items narrow the intervals).

Pure: plain data in, plain data out.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from jury.pure.aggregate import wilson
from ratings.scale import SCORES
from ratings.ties import DEFAULT_TIE_RULE, score_shares

INSIDE = "inside the human envelope"
BELOW = "below the human envelope"
ABOVE = "above the human envelope"
INCONCLUSIVE = "inconclusive"
NOT_ENOUGH = "not enough evidence"
VERDICTS = (INSIDE, BELOW, ABOVE, INCONCLUSIVE, NOT_ENOUGH)

RESAMPLED, FIXED = "resampled", "fixed"  # clinicians resampled too, or these clinicians only
RATER_MODES = (RESAMPLED, FIXED)
VERDICT_RESAMPLES = 10_000
MIN_ITEMS = 30
# A bootstrap over items needs items to draw: on 2 clinicians' ordinal alpha, a nominal 95%
# interval covered the truth 41% of the time from 2 items, 66% from 3, 83% from 4 and 90% from
# 6 (benchmarks/alpha_small_n.py, 400 studies per size). Below this a figure has no interval,
# and no verdict is given whatever `min_items` says.
MIN_INTERVAL_ITEMS = 6
MARGIN = 0.1
LEVEL = 0.95
_BATCH = 500  # resamples per block: bounds memory at (block × items × raters)
# Where each of the six figures can lie (adjacent rates, their difference, kappas, theirs).
_RANGES = ((0, 1), (0, 1), (-1, 1), (-1, 1), (-1, 1), (-2, 2))
_VALUES = np.array(SCORES, dtype=float)
_NEAR = (np.abs(_VALUES[:, None] - _VALUES[None, :]) <= 1).astype(float)


@dataclass(frozen=True)
class Figure:
    """One figure with its interval: value, [low, high], the items it stands on, how the
    interval was found, and the Monte-Carlo error of the endpoints (None when exact)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n_items: int = 0
    method: str | None = None
    mc_error: float | None = None
    reason: str | None = None

    @property
    def ci(self) -> list[float] | None:
        return None if self.low is None or self.high is None else [self.low, self.high]

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "ci": self.ci,
            "n_items": self.n_items,
            "method": self.method,
            "mc_error": self.mc_error,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Envelope:
    n_items: int
    n_clinicians: int
    jury_adjacent: Figure
    clinician_adjacent: Figure
    adjacent_difference: Figure
    jury_kappa: Figure
    clinician_kappa: Figure
    kappa_difference: Figure
    margin: float
    min_items: int
    verdict: str
    reason: str  # one sentence: why this verdict
    at_the_margin: bool
    raters: str  # RESAMPLED or FIXED
    n_resamples: int
    tie_rule: str

    def as_dict(self) -> dict[str, Any]:
        figures = (
            "jury_adjacent",
            "clinician_adjacent",
            "adjacent_difference",
            "jury_kappa",
            "clinician_kappa",
            "kappa_difference",
        )
        return {
            "n_items": self.n_items,
            "n_clinicians": self.n_clinicians,
            **{name: getattr(self, name).as_dict() for name in figures},
            "margin": self.margin,
            "min_items": self.min_items,
            "verdict": self.verdict,
            "reason": self.reason,
            "at_the_margin": self.at_the_margin,
            "raters": self.raters,
            "n_resamples": self.n_resamples,
            "tie_rule": self.tie_rule,
        }


@dataclass(frozen=True)
class _Data:
    """The envelope's items as arrays. Each item has only a few of the clinicians, so the
    adjacency sums run over the ratings and the within-item pairs actually present (gathered,
    then summed per item), never over items × every clinician."""

    scores: np.ndarray  # (N, R) whole scores, NaN where a clinician did not score the item
    present: np.ndarray  # (N, R) bool
    jury: np.ndarray | None  # (N, 5) shares of each whole score (ties.score_shares)
    rater: np.ndarray  # (M,) the clinician of each rating, ratings grouped by item
    rating_starts: np.ndarray  # (N,) where each item's ratings start
    jury_near: np.ndarray  # (M,) the jury's share adjacent to each rating
    pair_first: np.ndarray  # (P,) ordered pairs of an item's distinct clinicians, by item
    pair_second: np.ndarray
    pair_near: np.ndarray  # (P,) 1 where the two scores are adjacent
    pair_starts: np.ndarray  # (N,) where each item's pairs start
    pair_items: np.ndarray  # (N, rater pairs × 6): `_pair_items`


def envelope(
    clinicians: dict[str, dict[str, int]],
    jury: dict[str, float],
    *,
    margin: float = MARGIN,
    min_items: int = MIN_ITEMS,
    n_resamples: int = VERDICT_RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
    raters: str = RESAMPLED,
    tie_rule: str = DEFAULT_TIE_RULE,
) -> Envelope:
    """The verdict from clinicians (item → clinician → score) and the jury (item → score, a
    panel's mean may be fractional: it meets whole scores by `tie_rule`)."""
    if raters not in RATER_MODES:
        raise ValueError(f"raters must be one of {', '.join(RATER_MODES)}, got {raters!r}")
    items = sorted(i for i in jury if len(clinicians.get(i, {})) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    if not items:
        return _no_items(margin, min_items, raters, n_resamples, tie_rule)
    data = _data(items, names, clinicians, [jury[i] for i in items], tie_rule)
    point = _figures(data, np.ones((1, len(items))), np.ones((1, len(names))))[:, 0]
    resampled = len(items) >= 2 and n_resamples > 0
    draws = _bootstrap(data, n_resamples, seed) if resampled else None
    spread = _clinician_spread(data, raters, lambda m, w: _figures(data, m, w))
    method = _method(raters, n_resamples, len(names), spread is not None)
    figures = [
        _figure(point[k], draws, k, len(items), level, method, _at(spread, k)) for k in range(6)
    ]
    figures = _score_bounds_at_the_edges(figures, len(items), level)
    # A verdict stands on intervals, and an interval on fewer items than this is not one.
    needed = max(min_items, MIN_INTERVAL_ITEMS)
    verdict, reason, at_margin = _verdict(figures, data, margin, needed, level)
    if len(items) < MIN_INTERVAL_ITEMS:
        figures = [_without_bootstrap_interval(figure) for figure in figures]
    return Envelope(
        len(items), len(names), *figures, margin, min_items, verdict, reason, at_margin,
        raters, n_resamples, tie_rule,
    )  # fmt: skip


def clinician_kappa(
    clinicians: dict[str, dict[str, int]],
    *,
    n_resamples: int = VERDICT_RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
    raters: str = RESAMPLED,
) -> Figure:
    """The clinicians' mean pairwise Cohen QWK over every item two or more scored: the figure
    the jury's kappa is set beside (the same estimator)."""
    items = sorted(i for i, s in clinicians.items() if len(s) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    if not items:
        return Figure(None, reason="no item was scored by 2 or more clinicians")
    data = _data(items, names, clinicians, None, DEFAULT_TIE_RULE)
    point = _kappas(data, np.ones((1, len(items))), np.ones((1, len(names))))[1]
    draws = None
    if len(items) >= 2 and n_resamples > 0:
        draws = _blocks(data, n_resamples, seed, lambda m, w: _kappas(data, m, w)[1:2])
    spread = _clinician_spread(data, raters, lambda m, w: _kappas(data, m, w)[1:2])
    method = _method(raters, n_resamples, len(names), spread is not None)
    figure = _figure(point[0], draws, 0, len(items), level, method, _at(spread, 0))
    if figure.ci is not None and zero_width(figure.low, figure.high):
        return Figure(figure.value, n_items=figure.n_items, reason=no_width(figure.n_items))
    if figure.n_items < MIN_INTERVAL_ITEMS:
        return _without_bootstrap_interval(figure)
    return figure


def _without_bootstrap_interval(figure: Figure) -> Figure:
    """The figure alone when its interval is a bootstrap's on too few items; an analytic
    interval (Wilson's, Newcombe's: a share at 0 or 1) holds at any size."""
    if figure.ci is None or (figure.method or "").startswith(("Wilson", "Newcombe")):
        return figure
    return Figure(figure.value, n_items=figure.n_items, reason=too_few_for_interval(figure.n_items))


def zero_width(low: float, high: float) -> bool:
    """Every bootstrap resample gave one value ("1.00 [1.00, 1.00]" from four items that
    agree): shown on its own, such an interval reads as a certainty no sample gives, so a figure
    shown alone drops it (`no_width` says why). Inside the verdict a constant is kept: a jury
    that always answers 3 has a kappa of exactly 0 however the items are drawn."""
    return high - low <= 1e-12


def too_few_for_interval(n_items: int) -> str:
    return (
        f"{NOT_ENOUGH} for an interval: {n_items} item{'s' if n_items != 1 else ''}; a bootstrap "
        f"over fewer than {MIN_INTERVAL_ITEMS} items covers far less often than it claims"
    )


def no_width(n_items: int) -> str:
    """Why a figure has no interval when its interval had zero width."""
    said = f"every bootstrap resample of the {n_items} items gave the same value"
    if n_items < MIN_ITEMS:
        return f"{NOT_ENOUGH} for an interval: {said}"
    return f"no interval: {said}"


def _no_items(margin, min_items, raters, n_resamples, tie_rule) -> Envelope:
    none = Figure(None, reason="no item has a jury score and 2 or more clinicians")
    return Envelope(
        0, 0, *[none] * 6, margin, min_items, NOT_ENOUGH,
        f"no item has a jury score and 2 or more clinicians; {min_items} needed",
        False, raters, n_resamples, tie_rule,
    )  # fmt: skip


# --- the data ------------------------------------------------------------------------------------


def _data(items, names, clinicians, jury_values, tie_rule) -> _Data:
    scores = np.full((len(items), len(names)), np.nan)
    column = {name: c for c, name in enumerate(names)}
    for row, item in enumerate(items):
        for name, score in clinicians[item].items():
            scores[row, column[name]] = score
    present = ~np.isnan(scores)
    jury = None if jury_values is None else score_shares(np.array(jury_values), tie_rule)
    item, rater = np.nonzero(present)  # row-major: grouped by item
    given = scores[item, rater].astype(int) - SCORES[0]
    jury_near = np.zeros(len(item)) if jury is None else (jury @ _NEAR)[item, given]
    jury_near = jury_near.astype(np.float32)
    first, second = [], []
    for row in range(len(items)):
        raters = np.flatnonzero(present[row])
        first += [(row, a) for a in raters for b in raters if a != b]
        second += [b for a in raters for b in raters if a != b]
    pair_item = np.array([r for r, _ in first], dtype=np.intp)
    pair_first = np.array([a for _, a in first], dtype=np.intp)
    pair_second = np.array(second, dtype=np.intp)
    near = np.abs(scores[pair_item, pair_first] - scores[pair_item, pair_second]) <= 1
    return _Data(
        scores=scores,
        present=present,
        jury=jury,
        rater=rater,
        rating_starts=_starts(item, len(items)),
        jury_near=jury_near,
        pair_first=pair_first,
        pair_second=pair_second,
        pair_near=near.astype(np.float32),
        pair_starts=_starts(pair_item, len(items)),
        pair_items=_pair_items(scores, present, jury),
    )


def _starts(groups: np.ndarray, n: int) -> np.ndarray:
    """Where each of n groups starts in a sorted array of group numbers (np.add.reduceat)."""
    return np.searchsorted(groups, np.arange(n))


def _per_item(values: np.ndarray, starts: np.ndarray, n_rows: int) -> np.ndarray:
    """Sums of (B, M) values per item. Items with no entries (none in the envelope: every item
    has 2 or more clinicians) would take the next item's first value in reduceat; they get 0."""
    if values.shape[1] == 0:
        return np.zeros((len(values), len(starts)))
    sums = np.add.reduceat(values, np.minimum(starts, values.shape[1] - 1), axis=1)
    empty = np.append(starts[1:], n_rows) == starts
    sums[:, empty] = 0
    return sums


# --- the figures, for many resamples at once -----------------------------------------------------
#
# m: (B, N) how often each item is drawn; w: (B, R) how often each clinician is drawn.
# Each function returns figures × B.


def _figures(data: _Data, m: np.ndarray, w: np.ndarray) -> np.ndarray:
    jury_adj, clinician_adj = _adjacent(data, m, w)
    jury_kappa, clinician_kappa = _kappas(data, m, w)
    return np.stack(
        [
            jury_adj,
            clinician_adj,
            jury_adj - clinician_adj,
            jury_kappa,
            clinician_kappa,
            jury_kappa - clinician_kappa,
        ]
    )


def _adjacent(data: _Data, m: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the share of the jury's pairs with the item's clinicians that are adjacent,
    and the same over ordered pairs of distinct clinicians (clinician r weighted w_r, pairs
    w_a · w_b); then the item mean over the drawn items on which both are defined (the same
    items on both sides)."""
    # In the items' bootstrap every clinician counts once in every draw, so the per-item
    # rates are one row shared by all draws; the clinicians' jackknife has a row per draw.
    rows = w[:1] if np.all(w == 1) else w
    jury_rate, clinician_rate = _item_rates(data, rows)  # (1 or B, N)
    defined = np.isfinite(jury_rate) & np.isfinite(clinician_rate)
    weight = m * defined
    total = weight.sum(axis=1)
    with np.errstate(all="ignore"):
        jury = (np.where(defined, jury_rate, 0) * weight).sum(axis=1) / total
        clinicians = (np.where(defined, clinician_rate, 0) * weight).sum(axis=1) / total
    return jury, clinicians


def _item_rates(data: _Data, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(len(w), N) jury and clinician adjacency rates per item under clinician weights w."""
    w = w.astype(np.float32)  # weights: small whole numbers, exact in float32
    weights = w[:, data.rater]  # (B, M): each rating as often as its clinician counts
    ratings = len(data.rater)
    drawn = _per_item(weights, data.rating_starts, ratings)
    jury_near = _per_item(weights * data.jury_near, data.rating_starts, ratings)
    raters = w.shape[1]
    # w_a · w_b for every pair of clinicians once, then gathered for the pairs items hold.
    products = (w[:, :, None] * w[:, None, :]).reshape(len(w), raters * raters)
    pair_weights = products[:, data.pair_first * raters + data.pair_second]  # (B, P)
    n_pairs = len(data.pair_first)
    pairs = _per_item(pair_weights, data.pair_starts, n_pairs)
    near_pairs = _per_item(pair_weights * data.pair_near, data.pair_starts, n_pairs)
    with np.errstate(all="ignore"):
        jury_rate = jury_near / np.where(drawn > 0, drawn, np.nan)
        clinician_rate = near_pairs / np.where(pairs > 0, pairs, np.nan)
    return jury_rate, clinician_rate


def _pair_sums(data: _Data, m: np.ndarray) -> np.ndarray:
    """Sufficient sums of each rater pair over the drawn items, (B, pairs, 6): count, Σx, Σy,
    Σx², Σy², Σxy. Jury pairs first (jury with clinician r), then clinician pairs (a < b)."""
    # float64: kappa is 1 − observed / expected, a difference of sums that float32 would blur.
    # A plain matmul: here (items × hundreds of pair columns) BLAS beats einsum's loop 3×.
    return (m @ data.pair_items).reshape(len(m), -1, 6)


def _pair_items(scores: np.ndarray, present: np.ndarray, jury: np.ndarray | None) -> np.ndarray:
    """(N, pairs × 6): each item's contribution to every rater pair's sums."""
    filled = np.where(present, scores, 0.0)
    columns = []
    if jury is not None:
        jx, jx2 = jury @ _VALUES, jury @ _VALUES**2
        both = present
        columns.append(
            np.stack(
                [
                    both,
                    jx[:, None] * both,
                    filled,
                    jx2[:, None] * both,
                    filled**2,
                    jx[:, None] * filled,
                ],
                axis=-1,
            )  # fmt: skip
        )
    first, second = _clinician_pairs(scores.shape[1])
    both = present[:, first] & present[:, second]
    x, y = filled[:, first] * both, filled[:, second] * both
    columns.append(np.stack([both, x, y, x**2, y**2, x * y], axis=-1))
    per_item = np.concatenate([c.astype(float) for c in columns], axis=1)  # (N, pairs, 6)
    return per_item.reshape(len(scores), -1)


def _clinician_pairs(raters: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(combinations(range(raters), 2))
    first = np.array([a for a, _ in pairs], dtype=np.intp)
    second = np.array([b for _, b in pairs], dtype=np.intp)
    return first, second


def _cohen_qwk(sums: np.ndarray) -> np.ndarray:
    """statsmodels' `cohens_kappa(wt="quadratic")` from a pair's sums: 1 − observed / expected
    squared differences, expected from the two raters' own marginals."""
    n, sx, sy, sx2, sy2, sxy = np.moveaxis(sums, -1, 0)
    with np.errstate(all="ignore"):
        observed = sx2 + sy2 - 2 * sxy
        expected = sx2 + sy2 - 2 * sx * sy / n
        return np.where((n >= 2) & (expected > 1e-9), 1 - observed / expected, np.nan)


def _kappas(data: _Data, m: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The jury's mean pairwise kappa with the drawn clinicians (each weighted by how often it
    was drawn) and the mean over pairs of distinct drawn clinicians (weighted w_a · w_b)."""
    kappa = _cohen_qwk(_pair_sums(data, m))  # (B, pairs)
    raters = w.shape[1]
    first, second = _clinician_pairs(raters)
    jury = np.full(len(m), np.nan)
    if data.jury is not None:
        jury = _weighted_mean(kappa[:, :raters], w)
        kappa = kappa[:, raters:]
    clinicians = _weighted_mean(kappa, w[:, first] * w[:, second])
    return jury, clinicians


def _weighted_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    defined = np.isfinite(values)
    weights = weights * defined
    with np.errstate(all="ignore"):
        total = weights.sum(axis=1)
        return np.where(total > 0, (np.where(defined, values, 0) * weights).sum(axis=1) / total,
                        np.nan)  # fmt: skip


# --- the bootstrap -------------------------------------------------------------------------------


def _method(raters: str, n_resamples: int, clinicians: int, spread: bool) -> str:
    items = f"percentile bootstrap over items, {n_resamples:,} resamples"
    if raters == FIXED:
        return f"{items}; these clinicians only"
    if not spread:
        return f"{items}; these clinicians only ({clinicians} are too few to estimate how clinicians vary)"
    return (
        f"{items}, widened for the sampling of clinicians by a delete-one-clinician jackknife "
        f"({clinicians} clinicians)"
    )


def _blocks(data: _Data, n_resamples: int, seed: int, compute) -> np.ndarray:
    """`compute(m, w)` over `n_resamples` draws of items, a block at a time."""
    rng = np.random.default_rng(seed)
    n, r = data.scores.shape
    out = []
    for start in range(0, n_resamples, _BATCH):
        size = min(_BATCH, n_resamples - start)
        out.append(compute(_draw(rng, size, n), np.ones((size, r))))
    return np.concatenate(out, axis=1)


def _bootstrap(data: _Data, n_resamples: int, seed: int) -> np.ndarray:
    return _blocks(data, n_resamples, seed, lambda m, w: _figures(data, m, w))


def _clinician_spread(data: _Data, raters: str, compute) -> np.ndarray | None:
    """Per figure, the delete-one-clinician jackknife variance: how much the figure would move
    with other clinicians. None with clinicians fixed, or fewer than 3 of them (leaving one
    of 2 out leaves no pair).

    Why a jackknife and not clinicians resampled with replacement: each item has only a few
    of the clinicians, so a bootstrap draw that misses some of them strips items of their
    pairs; with 5 clinicians that doubled the variance and intervals covered ~100% (the
    interaction of item and clinician counted several times, as Owen 2007 shows for the
    two-way bootstrap). The jackknife counts it once more than it should, so it stays on
    the safe side without swamping the items' own spread."""
    r = data.scores.shape[1]
    if raters == FIXED or r < 3:
        return None
    n = data.scores.shape[0]
    left_out = compute(np.ones((r, n)), np.ones((r, r)) - np.eye(r))  # (figures, r)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        centred = left_out - np.nanmean(left_out, axis=1, keepdims=True)
        return (r - 1) / r * np.nansum(centred**2, axis=1)


def _at(spread: np.ndarray | None, k: int) -> float | None:
    return None if spread is None or not np.isfinite(spread[k]) else float(spread[k])


def _draw(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    """(size, n): how often each of n units is drawn in each of `size` resamples of n."""
    drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    return np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(float)


def _figure(point, draws, k, n_items, level, method, clinician_var=None) -> Figure:
    value = None if not np.isfinite(point) else float(point)
    if value is None:
        return Figure(None, n_items=n_items, reason="undefined: no pair of raters varies")
    if draws is None:
        reason = "no interval: fewer than 2 items" if n_items < 2 else "no resamples asked for"
        return Figure(value, n_items=n_items, reason=reason)
    resampled = draws[k][np.isfinite(draws[k])]
    # A resample that draws only alike items can be undefined when the data is not; those are
    # left out, unless they are many (then the interval would describe other data).
    if len(resampled) < 0.9 * draws.shape[1]:
        return Figure(value, n_items=n_items, reason="no interval: most resamples undefined")
    low, high, error = _percentile(resampled, level)
    item_var = float(np.var(resampled))
    if clinician_var and item_var > 0:
        # Widen about the point, keeping the percentile interval's shape: the variance of
        # items and that of clinicians add.
        factor = math.sqrt(1 + clinician_var / item_var)
        floor, ceiling = _RANGES[k]
        low = max(floor, value + factor * (low - value))
        high = min(ceiling, value + factor * (high - value))
        error *= factor
    return Figure(value, low, high, n_items, method, error)


def _percentile(values: np.ndarray, level: float) -> tuple[float, float, float]:
    """The percentile interval and the Monte-Carlo error of its endpoints: half the spread of
    the order statistics within ±1.96 binomial standard errors of each endpoint's rank."""
    ordered = np.sort(values)
    b = len(ordered)
    tail = (1 - level) / 2
    errors = []
    ends = []
    for q in (tail, 1 - tail):
        rank = q * (b - 1)
        spread = 1.96 * math.sqrt(b * q * (1 - q))
        lo = ordered[max(0, int(math.floor(rank - spread)))]
        hi = ordered[min(b - 1, int(math.ceil(rank + spread)))]
        ends.append(float(np.quantile(ordered, q)))
        errors.append((hi - lo) / 2)
    return ends[0], ends[1], float(max(errors))


# --- edges: proportions at 0 or 1 ----------------------------------------------------------------


def wilson_interval(p: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval for a proportion p of n (never [1, 1] at p = 1)."""
    return wilson(p * n, n, level)


def _score_bounds_at_the_edges(figures: list[Figure], n: int, level: float) -> list[Figure]:
    """Adjacent agreement at exactly 0 or 1 resamples to itself; give it a Wilson score
    interval on the items and the difference Newcombe's hybrid score interval (method 10)."""
    jury, clinicians, difference = figures[:3]
    if jury.value is None or clinicians.value is None or n < 1:
        return figures
    if not any(f.value in (0.0, 1.0) for f in (jury, clinicians)):
        return figures
    wilson = f"Wilson score interval on {n} items (the proportion is at 0 or 1)"
    (l1, u1), (l2, u2) = (
        wilson_interval(jury.value, n, level),
        wilson_interval(clinicians.value, n, level),
    )
    d = jury.value - clinicians.value
    low = d - math.sqrt((jury.value - l1) ** 2 + (u2 - clinicians.value) ** 2)
    high = d + math.sqrt((u1 - jury.value) ** 2 + (clinicians.value - l2) ** 2)
    newcombe = f"Newcombe hybrid score interval on {n} items (a proportion is at 0 or 1)"
    if difference.low is not None:  # never narrower than the bootstrap's
        low, high = min(low, difference.low), max(high, difference.high)
    return [
        _replace(jury, *wilson_interval(jury.value, n, level), wilson)
        if jury.value in (0, 1)
        else jury,
        _replace(clinicians, l2, u2, wilson) if clinicians.value in (0, 1) else clinicians,
        _replace(difference, low, high, newcombe),
        *figures[3:],
    ]


def _replace(figure: Figure, low: float, high: float, method: str) -> Figure:
    return Figure(figure.value, low, high, figure.n_items, method, None, None)


# --- the verdict ---------------------------------------------------------------------------------


def _verdict(figures, data: _Data, margin, min_items, level) -> tuple[str, str, bool]:
    n = data.scores.shape[0]
    _, _, adjacent, jury_kappa, clinician_kappa, kappa = figures
    if n < min_items:
        return NOT_ENOUGH, f"{n} items; {min_items} needed", False
    clinician_values = data.scores[data.present]
    if len(np.unique(clinician_values)) < 2:
        return NOT_ENOUGH, "the clinicians' scores do not vary: kappa is undefined", False
    if clinician_kappa.value is None or jury_kappa.value is None:
        return NOT_ENOUGH, "kappa is undefined: no pair of raters varies on shared items", False
    if adjacent.ci is None or kappa.ci is None or jury_kappa.ci is None:
        return NOT_ENOUGH, "no interval could be found", False
    sides = {"adjacent agreement": _side(adjacent, margin), "kappa": _side(kappa, margin)}
    below = [name for name, side in sides.items() if side == "below"]
    above = [name for name, side in sides.items() if side == "above"]
    edges = [(adjacent, margin), (kappa, margin), (jury_kappa, None)]
    at_margin = any(_near_threshold(f, m) for f, m in edges)
    if below and not above:
        return (
            BELOW,
            f"the jury's {' and '.join(below)} is lower by more than the margin",
            at_margin,
        )
    if above and not below:
        return (
            ABOVE,
            f"the jury's {' and '.join(above)} is higher by more than the margin",
            at_margin,
        )
    if below and above:
        return INCONCLUSIVE, "the two measures point in opposite directions", at_margin
    within = all(side == "within" for side in sides.values())
    if within and jury_kappa.low > 0:
        return INSIDE, f"both differences within ±{margin:g}; the jury's kappa above 0", at_margin
    if within:
        return (
            INCONCLUSIVE,
            "within the margin, but the jury's kappa is not clearly above 0",
            at_margin,
        )
    return INCONCLUSIVE, "an interval crosses the margin: more items would narrow it", at_margin


def _side(figure: Figure, margin: float) -> str:
    if figure.high < -margin:
        return "below"
    if figure.low > margin:
        return "above"
    if -margin <= figure.low and figure.high <= margin:
        return "within"
    return "across"


def _near_threshold(figure: Figure, margin: float | None) -> bool:
    """An endpoint within its Monte-Carlo error of a threshold the verdict turns on."""
    if figure.mc_error is None or figure.ci is None:
        return False
    thresholds = [0.0] if margin is None else [-margin, margin]
    return any(abs(end - t) <= figure.mc_error for end in figure.ci for t in thresholds)


# --- who may be offered the verdict ---------------------------------------------------------------

WITHHELD = "withheld: jury not qualified"
OVERRIDDEN = "shown by the researcher's override: the jury is not qualified"
WITHHELD_INVERTS = "withheld: jury inverts"
OVERRIDDEN_INVERTS = "shown by the researcher's override: the jury's scores invert"
WITHHELD_VERDICTS = (WITHHELD, WITHHELD_INVERTS)


def offered(
    verdict: str, qualified: bool, override: bool, inverts: bool = False
) -> tuple[str, str]:
    """The verdict a page may offer, and what it must say beside it. A jury earns the verdict
    as a clinician earns a place in a study, by passing a calibration round on the dimension's
    track, and keeps it only while its scores do not invert there (jury.pure.validity): for an
    unqualified or inverting jury it is withheld unless the researcher overrides that, and
    then the override is said wherever the verdict is shown."""
    if qualified and not inverts:
        return verdict, ""
    if override:
        return verdict, OVERRIDDEN if not qualified else OVERRIDDEN_INVERTS
    if not qualified:
        return WITHHELD, (
            "the jury has not passed a calibration round on this dimension's track; the "
            "researcher may show the verdict anyway (“show verdicts for an unqualified jury”)"
        )
    return WITHHELD_INVERTS, (
        "the jury's scores invert on this dimension: conversations that failed their automatic "
        "outcome checks score higher than those that passed; the researcher may show the "
        "verdict anyway (“show verdicts for an unqualified jury”)"
    )
