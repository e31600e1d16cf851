"""Is the jury inside the human envelope? The verdict a researcher quotes (DESIGN §7).

On the items with a jury score and two or more clinicians, two figures are computed the same
way for the jury and for the clinicians, and compared:

- **adjacent agreement** (within 1 point), per item — the jury with each of the item's
  clinicians, the clinicians with each other — then averaged over items with equal weights on
  both sides, so a jury exchangeable with a clinician has an expected difference of 0 however
  many clinicians each item has;
- **quadratic-weighted Cohen's kappa**, per pair of raters: the jury with each clinician on
  that clinician's items (each item weighted 1/k, k its clinicians) is the jury's kappa; each
  pair of clinicians on the items both scored (each item weighted 2/(k(k−1)), so it counts
  once over its pairs) is the clinicians'; pairs are averaged weighted by their items. The
  **difference is on matched items and pairs**: for each pair of clinicians, the jury's kappa
  with each of the two on that pair's items minus theirs, so an exchangeable jury shows 0
  however overlap tracks difficulty and however few items a pair shares (issue 35, findings
  2–3). One estimator (separate marginals, Cohen-type) on both sides, so clinicians who differ
  in leniency are not handicapped against the jury. Adjacent agreement alone is not
  chance-corrected: a jury that always answers 3 agrees "adjacently" with most scores while
  carrying no information.

Uncertainty: one paired percentile bootstrap resamples items (every figure of a draw comes
from the same resample, so the differences are paired) and gives each interval its shape and
Monte-Carlo error. The clinicians are a sample of clinicians too: each figure's variance over
items *and* clinicians comes from two-way random-effects variance components
(annotation.pure.crossed: items, clinicians, their interaction counted once), and the interval
is widened about its point to that variance on Student's t with Satterthwaite's degrees of
freedom (with 3 clinicians and a clinician term that dominates, about 2). "These clinicians
only" (`raters="fixed"`) leaves the clinician term out, labelled as such; so do fewer than 3
clinicians, which say so. Verdicts use 10,000 resamples; the Monte-Carlo error of each endpoint
is the spread of the order statistics that could have been that endpoint (a binomial band
around its rank), and a verdict that moving one of its endpoints by that error would change is
flagged `at the margin` (an exact endpoint, a constant jury's kappa of 0, never is).
benchmarks/agreement_coverage.py checks the coverage.
Adjacent agreement at 0 or 1 has no bootstrap spread; it gets a Wilson score interval, and the
difference Newcombe's hybrid score interval, never [1, 1].

The verdict (TOST: a 95% interval is two one-sided tests at 2.5% each):
- `not enough evidence`: fewer items than the minimum (default 30), or the clinicians' scores
  do not vary (kappa undefined), or no interval could be found;
- `below the human envelope` / `above the human envelope`: an interval of a difference lies
  wholly below −margin / above +margin (and none the other way);
- `inside the human envelope`: both intervals lie within ±margin and the jury's own kappa
  interval lies above 0;
- `inconclusive`: anything else; the reason says, from the variance components, what would
  narrow the deciding interval ("3 clinicians: more clinicians would narrow this; more items
  would not").

Pure: plain data in, plain data out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats

from annotation.pure import crossed
from annotation.pure.crossed import Components
from jury.pure.aggregate import wilson
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE, adjacent_weights, score_values
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
    # Where the interval's width comes from (items, clinicians, their interaction) and what
    # would narrow it; None for a figure outside the verdict or without an interval.
    spread: Components | None = field(default=None, compare=False, repr=False)
    level: float = LEVEL

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
            "variance": self._variance(),
        }

    def _variance(self) -> dict[str, Any] | None:
        """The spread's shares and df; none where the spread is rounding error or undefined."""
        spread = self.spread
        if spread is None or self.ci is None or not spread.variance > _EXACT**2:
            return None
        found = spread.as_dict(self.level)
        return found if math.isfinite(found["df"]) else None


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
        return {
            "n_items": self.n_items,
            "n_clinicians": self.n_clinicians,
            **{name: getattr(self, name).as_dict() for name in FIGURE_NAMES},
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
class _Units:
    """The rater pairs a kappa figure averages over, as each item's contribution to every
    pair's sufficient sums (item weights applied), and which clinicians each pair holds."""

    items: np.ndarray  # (N, P, columns)
    members: np.ndarray  # (P, R) 1 where the clinician is one of the pair's raters


@dataclass(frozen=True)
class _Data:
    """The envelope's items as arrays. Adjacency is a mean over items of per-item rates (with
    their derivatives in each clinician's weight); kappa a weighted mean over rater pairs of
    Cohen QWKs on weighted sums."""

    scores: np.ndarray  # (N, R) whole scores, NaN where a clinician did not score the item
    present: np.ndarray  # (N, R) bool
    jury: np.ndarray | None  # (N, points) shares of each whole score (ties.score_shares)
    rates: np.ndarray  # (2, N) the jury's and the clinicians' adjacency rate per item
    rate_slopes: np.ndarray  # (2, N, R) ∂rate/∂(clinician r's weight)
    jury_units: _Units | None  # the jury with each clinician, on that clinician's items
    pair_units: _Units  # each pair of clinicians, with the jury, on their shared items


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
    scale: Scale = DEFAULT_SCALE,
) -> Envelope:
    """The verdict from clinicians (item → clinician → score) and the jury (item → score, a
    panel's mean may be fractional: it meets whole scores of `scale` by `tie_rule`)."""
    if raters not in RATER_MODES:
        raise ValueError(f"raters must be one of {', '.join(RATER_MODES)}, got {raters!r}")
    items = sorted(i for i in jury if len(clinicians.get(i, {})) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    if not items:
        return _no_items(margin, min_items, raters, n_resamples, tie_rule)
    data = _data(items, names, clinicians, [jury[i] for i in items], tie_rule, scale)
    point = _figures(data, np.ones((1, len(items))))[:, 0]
    resampled = len(items) >= 2 and n_resamples > 0
    draws = _bootstrap(data, n_resamples, seed) if resampled else None
    sampled = raters == RESAMPLED and len(names) >= 3
    spreads = _components(data, sampled)
    method = _method(raters, n_resamples, len(names), sampled)
    figures = [_figure(point[k], draws, k, len(items), level, method, spreads[k]) for k in range(6)]
    figures = _score_bounds_at_the_edges(figures, len(items), level)
    # A verdict stands on intervals, and an interval on fewer items than this is not one.
    needed = max(min_items, MIN_INTERVAL_ITEMS)
    if not scale.shows_adjacent:  # the verdict rests on kappa alone
        refused = Figure(None, n_items=len(items), reason=scale.adjacent_refusal)
        figures[:3] = [refused] * 3
    verdict, reason, at_margin = _verdict(figures, data, margin, needed, level)
    if len(items) < MIN_INTERVAL_ITEMS:
        figures = [_without_bootstrap_interval(figure) for figure in figures]
    return Envelope(
        len(items), len(names), *figures, margin, min_items, verdict, reason, at_margin,
        raters, n_resamples, tie_rule,
    )  # fmt: skip


FIGURE_NAMES = (
    "jury_adjacent",
    "clinician_adjacent",
    "adjacent_difference",
    "jury_kappa",
    "clinician_kappa",
    "kappa_difference",
)


def variance_components(
    clinicians: dict[str, dict[str, int]],
    jury: dict[str, float],
    *,
    tie_rule: str = DEFAULT_TIE_RULE,
    scale: Scale = DEFAULT_SCALE,
) -> dict[str, Components | None]:
    """Each figure's variance components over items and clinicians, as `envelope` widens its
    intervals by them, without the bootstrap: what the study planner (annotation.pure.planning)
    projects to other designs. Empty with fewer than 3 clinicians (no clinician term)."""
    items = sorted(i for i in jury if len(clinicians.get(i, {})) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    if len(items) < 2 or len(names) < 3:
        return {}
    data = _data(items, names, clinicians, [jury[i] for i in items], tie_rule, scale)
    return dict(zip(FIGURE_NAMES, _components(data, sampled=True), strict=True))


def clinician_kappa(
    clinicians: dict[str, dict[str, int]],
    *,
    n_resamples: int = VERDICT_RESAMPLES,
    level: float = LEVEL,
    seed: int = 0,
    raters: str = RESAMPLED,
) -> Figure:
    """The clinicians' mean pairwise Cohen QWK over every item two or more scored: the figure
    the jury's kappa is set beside (the same estimator, the same item weights)."""
    items = sorted(i for i, s in clinicians.items() if len(s) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    if not items:
        return Figure(None, reason="no item was scored by 2 or more clinicians")
    data = _data(items, names, clinicians, None, DEFAULT_TIE_RULE)
    point = _kappas(data, np.ones((1, len(items))))[1]
    draws = None
    if len(items) >= 2 and n_resamples > 0:
        draws = _blocks(data, n_resamples, seed, lambda m: _kappas(data, m)[1:2])
    sampled = raters == RESAMPLED and len(names) >= 3
    spread = _pair_components(data, "clinicians", sampled)
    method = _method(raters, n_resamples, len(names), sampled)
    figure = _figure(point[0], draws, 0, len(items), level, method, spread)
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


def _data(items, names, clinicians, jury_values, tie_rule, scale=DEFAULT_SCALE) -> _Data:
    scores = np.full((len(items), len(names)), np.nan)
    column = {name: c for c, name in enumerate(names)}
    for row, item in enumerate(items):
        for name, score in clinicians[item].items():
            scores[row, column[name]] = score
    present = ~np.isnan(scores)
    jury = None if jury_values is None else score_shares(np.array(jury_values), tie_rule, scale)
    rates, slopes = _adjacency_rates(scores, present, jury, scale)
    values = score_values(scale)
    return _Data(
        scores=scores,
        present=present,
        jury=jury,
        rates=rates,
        rate_slopes=slopes,
        jury_units=None if jury is None else _jury_units(scores, present, jury, values),
        pair_units=_pair_units(scores, present, jury, values),
    )


def _adjacency_rates(scores, present, jury, scale) -> tuple[np.ndarray, np.ndarray]:
    """Per item, the share of the jury's pairs with the item's clinicians that are adjacent and
    the same over ordered pairs of distinct clinicians, and each rate's slope in clinician r's
    weight (rater r counted w_r times, a pair w_a · w_b times), at equal weights."""
    n, r = scores.shape
    k = present.sum(axis=1).astype(float)
    given = np.where(present, scores, scale.low).astype(int) - scale.low
    near = adjacent_weights(scale)
    jury_near = np.zeros((n, r)) if jury is None else np.take_along_axis(jury @ near, given, 1)
    jury_near = jury_near * present
    jury_rate = jury_near.sum(axis=1) / k
    jury_slope = present * (jury_near - jury_rate[:, None]) / k[:, None]
    # Each clinician's adjacent partners on the item: a row of the item's near-pair counts.
    partners = np.zeros((n, r))
    for a in range(r):
        near = np.abs(scores[:, [a]] - scores) <= 1
        both = present[:, [a]] & present
        both[:, a] = False
        partners[:, a] = (near & both).sum(axis=1)
    pairs = k * (k - 1)
    clinician_rate = partners.sum(axis=1) / pairs
    clinician_slope = present * 2 * (partners - (k[:, None] - 1) * clinician_rate[:, None])
    clinician_slope = clinician_slope / pairs[:, None]
    return np.stack([jury_rate, clinician_rate]), np.stack([jury_slope, clinician_slope])


def _jury_units(scores, present, jury, values) -> _Units:
    """The jury with each clinician, on the clinician's items, each item weighted 1/k (k its
    clinicians): over a clinician's items, harder items with more clinicians then count as
    often as in the items as a whole. Sums: n, Σj, Σx, Σj², Σx², Σjx."""
    weight = (present / present.sum(axis=1, keepdims=True))[..., None]
    x = np.where(present, scores, 0.0)
    jx, jx2 = (jury @ values)[:, None], (jury @ values**2)[:, None]
    ones = np.ones_like(x)
    columns = np.stack([ones, jx * ones, x, jx2 * ones, x**2, jx * x], axis=-1)
    return _Units(columns * weight, np.eye(scores.shape[1]))


# Column layout of a clinician pair's sums, and which six make each of its three kappas.
_PAIR_COLUMNS = ("n", "j", "j2", "a", "a2", "b", "b2", "ja", "jb", "ab")
_JURY_A = [0, 1, 3, 2, 4, 7]  # n, Σj, Σa, Σj², Σa², Σja
_JURY_B = [0, 1, 5, 2, 6, 8]
_A_B = [0, 3, 5, 4, 6, 9]


def _pair_units(scores, present, jury, values) -> _Units:
    """Each pair of clinicians on the items both scored, with the jury on the same items (the
    jury meets the same items, the same pairs and the same weights as the clinicians it is set
    beside), each item weighted 2/(k(k−1)) so it counts once over all its pairs."""
    n, r = scores.shape
    first, second = _clinician_pairs(r)
    k = present.sum(axis=1).astype(float)
    both = present[:, first] & present[:, second]
    weight = both * (2 / np.maximum(k * (k - 1), 1))[:, None]
    x = np.where(present, scores, 0.0)
    a, b = x[:, first], x[:, second]
    if jury is None:
        j = j2 = np.zeros((n, 1))
    else:
        j, j2 = (jury @ values)[:, None], (jury @ values**2)[:, None]
    ones = np.ones_like(a)
    columns = np.stack(
        [ones, j * ones, j2 * ones, a, a**2, b, b**2, j * a, j * b, a * b], axis=-1
    )  # fmt: skip
    members = np.zeros((len(first), r))
    members[np.arange(len(first)), first] = 1
    members[np.arange(len(first)), second] = 1
    return _Units(columns * weight[..., None], members)


def _clinician_pairs(raters: int) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(combinations(range(raters), 2))
    first = np.array([a for a, _ in pairs], dtype=np.intp)
    second = np.array([b for _, b in pairs], dtype=np.intp)
    return first, second


# --- the figures, for many resamples at once -----------------------------------------------------
#
# m: (B, N) how often each item is drawn. Each function returns figures × B.


def _figures(data: _Data, m: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        jury_adj, clinician_adj = (m @ data.rates.T / m.sum(axis=1, keepdims=True)).T
    jury_kappa, clinician_kappa, kappa_difference = _kappas(data, m)
    return np.stack(
        [
            jury_adj,
            clinician_adj,
            jury_adj - clinician_adj,
            jury_kappa,
            clinician_kappa,
            kappa_difference,
        ]
    )


def _sums(units: _Units, m: np.ndarray) -> np.ndarray:
    """(B, P, columns): each pair's sums over the drawn items."""
    # float64: kappa is 1 − observed / expected, a difference of sums that float32 would blur.
    n, p, c = units.items.shape
    return (m @ units.items.reshape(n, p * c)).reshape(len(m), p, c)


def _cohen_qwk(sums: np.ndarray) -> np.ndarray:
    """statsmodels' `cohens_kappa(wt="quadratic")` from a pair's (weighted) sums: 1 − observed
    / expected squared differences, expected from the two raters' own marginals."""
    n, sx, sy, sx2, sy2, sxy = np.moveaxis(sums, -1, 0)
    with np.errstate(all="ignore"):
        observed = sx2 + sy2 - 2 * sxy
        expected = sx2 + sy2 - 2 * sx * sy / n
        return np.where((n > 0) & (expected > 1e-9), 1 - observed / expected, np.nan)


def _qwk_gradient(sums: np.ndarray) -> np.ndarray:
    """∂kappa/∂(n, Σx, Σy, Σx², Σy², Σxy) of `_cohen_qwk`, (..., 6)."""
    n, sx, sy, sx2, sy2, sxy = np.moveaxis(sums, -1, 0)
    with np.errstate(all="ignore"):
        observed = sx2 + sy2 - 2 * sxy
        expected = sx2 + sy2 - 2 * sx * sy / n
        ratio = observed / expected**2
        moments = -(expected - observed) / expected**2
        return np.stack(
            [ratio * 2 * sx * sy / n**2, -ratio * 2 * sy / n, -ratio * 2 * sx / n,
             moments, moments, 2 / expected],
            axis=-1,
        )  # fmt: skip


def _pair_values(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Per clinician pair: the clinicians' kappa, and the jury's (its kappa with each of the
    two on the same items, averaged) minus theirs."""
    jury = (_cohen_qwk(sums[..., _JURY_A]) + _cohen_qwk(sums[..., _JURY_B])) / 2
    clinicians = _cohen_qwk(sums[..., _A_B])
    return {"clinicians": clinicians, "difference": jury - clinicians}


def _kappas(data: _Data, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The jury's kappa (with each clinician, weighted by the clinician's items), the
    clinicians' (each pair weighted by its items) and the jury-minus-clinician difference on
    matched pairs, per draw."""
    jury = np.full(len(m), np.nan)
    if data.jury_units is not None:
        sums = _sums(data.jury_units, m)
        jury = _weighted_mean(_cohen_qwk(sums), sums[..., 0])
    sums = _sums(data.pair_units, m)
    values = _pair_values(sums)
    clinicians = _weighted_mean(values["clinicians"], sums[..., 0])
    difference = _weighted_mean(values["difference"], sums[..., 0])
    return jury, clinicians, difference


def _weighted_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    defined = np.isfinite(values)
    weights = weights * defined
    with np.errstate(all="ignore"):
        total = weights.sum(axis=1)
        return np.where(total > 0, (np.where(defined, values, 0) * weights).sum(axis=1) / total,
                        np.nan)  # fmt: skip


# --- the variance components --------------------------------------------------------------------


def _components(data: _Data, sampled: bool) -> list[Components | None]:
    """Each figure's variance components over items and clinicians (annotation.pure.crossed)."""
    jury_adj, clinician_adj = (
        crossed.mean_influences(data.rates[k], data.rate_slopes[k]) for k in (0, 1)
    )
    difference = crossed.mean_influences(
        data.rates[0] - data.rates[1], data.rate_slopes[0] - data.rate_slopes[1]
    )
    influences = [jury_adj, clinician_adj, difference]
    parts = [crossed.from_influences(*f[1:], data.present, sampled) for f in influences]
    parts.append(_jury_components(data, sampled))
    parts.append(_pair_components(data, "clinicians", sampled))
    parts.append(_pair_components(data, "difference", sampled))
    return parts


def _jury_components(data: _Data, sampled: bool) -> Components | None:
    if data.jury_units is None:
        return None
    units = data.jury_units
    sums = units.items.sum(axis=0)
    slope = np.einsum("ips,ps->ip", units.items, _qwk_gradient(sums))
    found = crossed.weighted_unit_influences(
        _cohen_qwk(sums), sums[:, 0], slope, units.items[..., 0], units.members
    )
    return None if found is None else crossed.from_influences(*found[1:], data.present, sampled)


def _pair_components(data: _Data, figure: str, sampled: bool) -> Components | None:
    units = data.pair_units
    sums = units.items.sum(axis=0)
    slopes = {
        name: np.einsum("ips,ps->ip", units.items[..., cols], _qwk_gradient(sums[:, cols]))
        for name, cols in (("ja", _JURY_A), ("jb", _JURY_B), ("ab", _A_B))
    }
    slope = (
        slopes["ab"] if figure == "clinicians" else (slopes["ja"] + slopes["jb"]) / 2 - slopes["ab"]
    )
    value = _pair_values(sums)[figure]
    found = crossed.weighted_unit_influences(
        value, sums[:, 0], slope, units.items[..., 0], units.members
    )
    return None if found is None else crossed.from_influences(*found[1:], data.present, sampled)


# --- the bootstrap -------------------------------------------------------------------------------


def _method(raters: str, n_resamples: int, clinicians: int, sampled: bool) -> str:
    items = f"percentile bootstrap over items, {n_resamples:,} resamples"
    if raters == FIXED:
        return f"{items}, Student's t on the items' df; these clinicians only"
    if not sampled:
        return f"{items}; these clinicians only ({clinicians} are too few to estimate how clinicians vary)"
    return (
        f"{items}, widened for the sampling of clinicians by two-way random-effects variance "
        f"components (items × {clinicians} clinicians), Student's t on Satterthwaite's df"
    )


def _blocks(data: _Data, n_resamples: int, seed: int, compute) -> np.ndarray:
    """`compute(m)` over `n_resamples` draws of items, a block at a time."""
    rng = np.random.default_rng(seed)
    n = data.scores.shape[0]
    out = []
    for start in range(0, n_resamples, _BATCH):
        size = min(_BATCH, n_resamples - start)
        out.append(compute(_draw(rng, size, n)))
    return np.concatenate(out, axis=1)


def _bootstrap(data: _Data, n_resamples: int, seed: int) -> np.ndarray:
    return _blocks(data, n_resamples, seed, lambda m: _figures(data, m))


def _draw(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    """(size, n): how often each of n units is drawn in each of `size` resamples of n."""
    drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    return np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(float)


def _figure(point, draws, k, n_items, level, method, spread: Components | None) -> Figure:
    value = None if not np.isfinite(point) else float(point)
    if value is None:
        return Figure(None, n_items=n_items, reason="undefined: no pair of raters varies")
    value = 0.0 if abs(value) < _EXACT else value  # a constant jury's kappa, not −7e-16
    if draws is None:
        reason = "no interval: fewer than 2 items" if n_items < 2 else "no resamples asked for"
        return Figure(value, n_items=n_items, reason=reason, spread=spread)
    resampled = draws[k][np.isfinite(draws[k])]
    # A resample that draws only alike items can be undefined when the data is not; those are
    # left out, unless they are many (then the interval would describe other data).
    if len(resampled) < 0.9 * draws.shape[1]:
        return Figure(value, n_items=n_items, reason="no interval: most resamples undefined")
    low, high, error = _percentile(resampled, level)
    if spread is not None and spread.variance > _EXACT**2:
        low, high, error = _widened(value, low, high, error, spread, level, _RANGES[k])
    return Figure(value, low, high, n_items, method, error, spread=spread, level=level)


def _widened(value, low, high, error, spread: Components, level, bounds):
    """The percentile interval (the items' spread, these clinicians) widened about the point
    to the variance over items and clinicians, and from the normal quantile to Student's t on
    the components' df; its shape is kept. Without an items' spread, value ± t·√variance."""
    floor, ceiling = bounds
    normal = float(stats.norm.ppf(0.5 + level / 2))
    if spread.item_part > 1e-15 and high > low:
        factor = math.sqrt(spread.variance / spread.item_part) * spread.quantile(level) / normal
        low, high = value + factor * (low - value), value + factor * (high - value)
        error *= factor
    else:
        half = spread.half_width(level)
        low, high = value - half, value + half
    return max(floor, low), min(ceiling, high), error


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
    return Figure(figure.value, low, high, figure.n_items, method, None, None, figure.spread,
                  figure.level)  # fmt: skip


# --- the verdict ---------------------------------------------------------------------------------


def _verdict(figures, data: _Data, margin, min_items, level) -> tuple[str, str, bool]:
    n = data.scores.shape[0]
    _, _, adjacent, jury_kappa, clinician_kappa, kappa = figures
    if n < min_items:
        return NOT_ENOUGH, f"{n} items; {min_items} needed", False
    clinician_values = data.scores[data.present]
    if len(np.unique(clinician_values)) < 2:
        return NOT_ENOUGH, "the clinicians' scores do not vary: kappa is undefined", False
    if clinician_kappa.value is None or jury_kappa.value is None or kappa.value is None:
        return NOT_ENOUGH, "kappa is undefined: no pair of raters varies on shared items", False
    on_kappa_alone = adjacent.value is None and adjacent.reason is not None
    if (adjacent.ci is None and not on_kappa_alone) or kappa.ci is None or jury_kappa.ci is None:
        return NOT_ENOUGH, "no interval could be found", False
    if on_kappa_alone:  # no adjacency on this scale: its difference counts as within
        adjacent = Figure(0.0, 0.0, 0.0, adjacent.n_items)
    ends = [adjacent.low, adjacent.high, kappa.low, kappa.high, jury_kappa.low]
    verdict, reason = _decide(ends, margin)
    if on_kappa_alone:
        reason = f"{reason} (κ alone: adjacency does not apply on this scale)"
    if reason == _CROSSES:
        crossing = [f for f in (adjacent, kappa) if _side(f.low, f.high, margin) == "across"]
        reason = f"{reason}: {_what_would_narrow(max(crossing, key=_width), level)}"
    elif reason == _KAPPA_NOT_CLEAR:
        reason = f"{reason}: {_what_would_narrow(jury_kappa, level)}"
    errors = [adjacent.mc_error] * 2 + [kappa.mc_error] * 2 + [jury_kappa.mc_error]
    return verdict, reason, _at_the_margin(ends, errors, margin, verdict)


_CROSSES = "an interval crosses the margin"
_KAPPA_NOT_CLEAR = "within the margin, but the jury's kappa is not clearly above 0"


def _decide(ends: list[float], margin: float) -> tuple[str, str]:
    """The verdict from the endpoints alone: the adjacency difference's, the kappa
    difference's, and the low end of the jury's kappa."""
    adjacent_low, adjacent_high, kappa_low, kappa_high, jury_low = ends
    sides = {
        "adjacent agreement": _side(adjacent_low, adjacent_high, margin),
        "kappa": _side(kappa_low, kappa_high, margin),
    }
    below = [name for name, side in sides.items() if side == "below"]
    above = [name for name, side in sides.items() if side == "above"]
    if below and not above:
        return BELOW, f"the jury's {' and '.join(below)} is lower by more than the margin"
    if above and not below:
        return ABOVE, f"the jury's {' and '.join(above)} is higher by more than the margin"
    if below and above:
        return INCONCLUSIVE, "the two measures point in opposite directions"
    within = all(side == "within" for side in sides.values())
    if within and jury_low > 0:
        return INSIDE, f"both differences within ±{margin:g}; the jury's kappa above 0"
    if within:
        return INCONCLUSIVE, _KAPPA_NOT_CLEAR
    return INCONCLUSIVE, _CROSSES


def _side(low: float, high: float, margin: float) -> str:
    if high < -margin:
        return "below"
    if low > margin:
        return "above"
    if -margin <= low and high <= margin:
        return "within"
    return "across"


def _at_the_margin(ends, errors, margin, verdict) -> bool:
    """Whether moving one endpoint by its Monte-Carlo error could change the verdict: only the
    endpoints the verdict turns on count, and an exact endpoint (a constant jury's kappa of 0
    in every resample: no error) never does."""
    for k, error in enumerate(errors):
        if not error or error < _EXACT:
            continue
        for step in (-error, error):
            moved = list(ends)
            moved[k] += step
            if _decide(moved, margin)[0] != verdict:
                return True
    return False


def _width(figure: Figure) -> float:
    return figure.high - figure.low


def _what_would_narrow(figure: Figure, level: float) -> str:
    """From the figure's variance components: which term dominates and what would narrow it."""
    spread = figure.spread
    if spread is None:
        return "more items would narrow it"
    ratios = spread.narrowing(level)
    items, clinicians = ratios[crossed.ITEMS], ratios[crossed.CLINICIANS]
    if items is None:
        return "more items would narrow it"
    said_items = f"twice the items: {items:.0%} of the width"
    if clinicians is None:
        return f"more items would narrow it ({said_items}; clinicians held fixed)"
    r = spread.n_clinicians
    said = f"{said_items}, twice the clinicians ({2 * r}): {clinicians:.0%}"
    helps_items, helps_clinicians = items < _HELPS, clinicians < _HELPS
    if helps_clinicians and not helps_items:
        return f"{r} clinicians: more clinicians would narrow this; more items would not ({said})"
    if helps_items and not helps_clinicians:
        return f"more items would narrow this; more clinicians would not ({said})"
    if helps_items and helps_clinicians:
        first = "items" if items <= clinicians else "clinicians"
        second = "clinicians" if first == "items" else "items"
        return f"more {first}, then more {second}, would narrow this ({said})"
    return f"neither twice the items nor twice the clinicians would narrow this much ({said})"


_EXACT = 1e-9  # a spread below this is rounding error: a constant jury's kappa is exactly 0
_HELPS = 0.9  # a width this share of now or less is a narrowing worth naming
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
