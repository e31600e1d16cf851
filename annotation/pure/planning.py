"""The study planner: from a pilot study's scores, how wide the agreement intervals would be
for other designs (items, clinicians per item), by simulating studies drawn from the pilot.
Pure: plain data in, plain data out (DESIGN §7).

What is planned on, stated once:

- the figures are ordinal Krippendorff's alpha among the clinicians and the jury-minus-clinician
  adjacent-agreement difference, each with a 95% percentile bootstrap over items
  (`bootstrap_widths`: the interval method modelled, and the one `benchmarks/planner_check.py`
  validates against fresh studies);
- a simulated study draws its items with replacement from the pilot and keeps `overlap` of
  each item's clinicians (never duplicating one);
- a design *reaches* the target when the `quantile` (80% by default; 50% or 90% on request)
  of its simulated widths is at or below it on every figure, so that about that share of
  real studies of that design would be narrow enough (on the median, half of them miss);
- the pilot is itself a sample: `pilot_resamples` bootstrap copies of its items are planned
  again (fewer, smaller simulations each), giving each design's range of planned widths, the
  share of copies in which it reaches the target, and how often the recommendation changes;
- the correction (`correct=True`, the default): a pilot under-predicts. From 30-item pilots
  the plain planner's median width of the difference came out 8–11% below the widths of fresh
  studies (`benchmarks/planner_check.py`), because a small pilot's items spread less than the
  population's: its bootstrap spread is the plug-in one, (n − 1)/n of the unbiased variance,
  and a small pilot mostly misses the rare items on which raters disagree widely (the spread
  of agreement per item is skewed), which resampling it can never bring back. Duplicated
  items inside a simulated study are not the main cause: on a moderately agreeing population
  the plain median was on target (1.00 over 20 pilots of 30), on a closely agreeing one, where
  per-item agreement is most skewed, 12% low in the typical pilot. So widths are scaled by
  √(n / (n − 1)) (`variance_inflation`), and the widths planned on are those of studies drawn
  from the pilot's copies (each copy's widths relative to theirs), folding the pilot's own
  uncertainty into the quantile: the same benchmark then finds 0.94–1.10 and fresh studies
  of the recommended design reaching the target 81–100% of the time;
- every width that cannot be given carries its reason, and a pilot below `MIN_PILOT_ITEMS`
  items carries a warning.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.pure.agreement import (
    LEVEL,
    Rating,
    Scores,
    alpha_from,
    coincidences_of_counts,
    ordinal_distances,
    split_by_dimension,
)
from annotation.pure.envelope import MIN_INTERVAL_ITEMS
from ratings.scale import SCORES

QUANTILES = (0.5, 0.8, 0.9)
DEFAULT_QUANTILE = 0.8
MIN_PILOT_ITEMS = 50
PILOT_RESAMPLES = 20
RANGE = (0.1, 0.9)  # the spread of a design's predicted width over the pilot's resamples
FIGURES = ("alpha", "difference")

# The work a plan may do, in item draws (`plan_work`): one request must finish well inside a
# web worker's timeout. At the form's own bounds (8 item counts up to 5,000, 8 overlaps) a
# plan took over 120 s and got its worker killed; benchmarks/planner_budget.py times the
# largest plan within this budget.
DRAWS_PER_DESIGN_PER_ITEM = 1
# Drawing a study size's resamples (and holding them: ~1 MB per item) costs about six designs.
DRAWS_PER_SIZE_PER_ITEM = 6
# Each design (size × overlap × dimension) also costs a fixed part whatever its items: its
# pilot copies are planned again (0.15 s each, as much as 80 items of a pass).
WORK_PER_DESIGN = 80
MAX_PLAN_WORK = 14_000  # the page's default on six dimensions is 12,960


class TooMuchWork(ValueError):
    """A plan past `MAX_PLAN_WORK`; its message says what to ask for instead."""


def plan_work(items_options: Iterable[int], overlap_options: Iterable[int], dimensions: int) -> int:
    """The work of a plan: per study size, its draws, then one pass per dimension and overlap,
    each over every item of the size's simulated studies plus a fixed part."""
    sizes = set(items_options)
    designs = len(set(overlap_options)) * max(1, dimensions)
    per_item = DRAWS_PER_SIZE_PER_ITEM + DRAWS_PER_DESIGN_PER_ITEM * designs
    return sum(sizes) * per_item + len(sizes) * designs * WORK_PER_DESIGN


def work_refusal(items_options, overlap_options, dimensions: int) -> str | None:
    """Why a plan is too big for one request, in words; None when it fits the budget."""
    work = plan_work(items_options, overlap_options, dimensions)
    if work <= MAX_PLAN_WORK:
        return None
    overlaps = len(set(overlap_options))
    return (
        f"This plan is too big for one request: {len(set(items_options))} study sizes adding up "
        f"to {sum(set(items_options)):,} items, × {overlaps} clinician count"
        f"{'s' if overlaps != 1 else ''} per item × {dimensions} dimension"
        f"{'s' if dimensions != 1 else ''} is {work:,} units of work, and one request may do "
        f"{MAX_PLAN_WORK:,}. Try fewer or smaller item counts, or fewer clinician counts."
    )


NO_JURY = "no jury scores in the pilot"
NO_JURY_HERE = "no pilot item with this many clinicians has a jury score"
NOT_EVIDENCE = "scores do not vary in the pilot: the width is 0 by construction, not evidence"
NO_SPREAD = (
    "every simulated study gives the same value (the pilot's scores do not vary enough): "
    "the width is 0 by construction, not evidence"
)
UNDEFINED = "alpha is undefined in most simulated studies: the pilot's scores barely vary"


@dataclass(frozen=True)
class PlanRow:
    dimension: str
    items: int
    overlap: int  # clinicians per item
    ratings: int  # clinician scores to collect: items × overlap
    # At the planned quantile over simulated studies: that share of them are at most this wide.
    alpha_width: float | None  # ordinal alpha's 95% CI width
    difference_width: float | None  # jury − clinician adjacent agreement's
    alpha_width_median: float | None
    difference_width_median: float | None
    # The planned width's 10th–90th percentile over resamples of the pilot itself.
    alpha_width_range: tuple[float, float] | None
    difference_width_range: tuple[float, float] | None
    reaches_target: bool  # the planned widths (alpha, and the difference with a jury) ≤ target
    reach_share: float | None  # share of pilot resamples in which this row reaches the target
    alpha_reason: str | None = None  # why alpha_width is None
    difference_reason: str | None = None  # why difference_width is None

    @property
    def note(self) -> str | None:
        reasons = dict.fromkeys(r for r in (self.alpha_reason, self.difference_reason) if r)
        return "; ".join(reasons) or None


@dataclass(frozen=True)
class Stability:
    """The recommendation again on each resample of the pilot."""

    resamples: int
    same: float  # share of pilot resamples recommending the same design
    designs: list[tuple[tuple[int, int] | None, float]]  # each design recommended, and how often


@dataclass(frozen=True)
class PlanResult:
    target_width: float
    quantile: float
    n_sim: int
    n_boot: int
    rows: list[PlanRow]
    recommended: tuple[int, int] | None  # (items, overlap) reaching the target everywhere
    recommended_by_dimension: dict[str, tuple[int, int] | None]
    pilot_items: dict[str, int]  # per dimension, pilot items with 2 or more clinicians
    warning: str | None  # a pilot too small to trust the plan
    stability: Stability

    def as_rows(self) -> list[dict[str, Any]]:
        return [row.__dict__ | {"note": row.note} for row in self.rows]


@dataclass(frozen=True)
class _Pilot:
    items: list[str]
    scores: np.ndarray  # (items, most clinicians on an item), NaN padded
    raters: np.ndarray  # clinicians per item
    jury: np.ndarray  # jury score per item, NaN when none


@dataclass(frozen=True)
class _Settings:
    target: float
    quantile: float
    level: float
    n_sim: int
    n_boot: int
    pilot_resamples: int
    correct: bool  # widen for the pilot's own uncertainty (`plan_study`)


def plan_study(
    pilot_ratings: Iterable[Rating],
    items_options: Sequence[int],
    overlap_options: Sequence[int],
    target_width: float,
    seed: int = 0,
    n_sim: int = 200,
    *,
    n_boot: int = 200,
    level: float = LEVEL,
    quantile: float = DEFAULT_QUANTILE,
    pilot_resamples: int = PILOT_RESAMPLES,
    correct: bool = True,
) -> PlanResult:
    """How wide the 95% intervals of ordinal alpha (clinicians) and of the jury-minus-clinician
    adjacent-agreement difference would be for each design (items, clinicians per item).

    Each of `n_sim` simulated studies draws `items` pilot items with replacement and keeps
    `overlap` of each item's clinicians at random (a clinician is never duplicated: items with
    fewer clinicians than the overlap are not drawn); its interval is a percentile bootstrap of
    `n_boot` resamples of its items, its width scaled by `variance_inflation`. A row gives the
    `quantile` of the widths over the simulated studies (what is planned on) and their median.
    The recommended design is the one with fewest clinician scores (items × overlap, then
    fewest items) whose planned widths reach the target on every dimension.

    The pilot's own uncertainty: `pilot_resamples` bootstrap copies of the pilot's items are
    planned again (fewer, smaller simulations each), giving each row's range of planned widths
    and share of copies reaching the target, and how often the recommendation changes. With
    `correct` (the default) the planned widths fold that uncertainty in and are scaled by
    `variance_inflation` (see the module's docstring: a small pilot under-predicts)."""
    _check_design(items_options, overlap_options, quantile)
    split = split_by_dimension(pilot_ratings)
    refusal = work_refusal(items_options, overlap_options, len(split))
    if refusal:
        raise TooMuchWork(refusal)
    pilots = {d: _pilot(split[d]) for d in sorted(split)}  # input order never matters
    settings = _Settings(target_width, quantile, level, n_sim, n_boot, pilot_resamples, correct)
    rng = np.random.default_rng([seed, 1])
    copies = _pilot_copies(rng, pilots, pilot_resamples)
    rows, per_copy = [], []
    for items in sorted(set(items_options)):
        # One set of bootstrap draws per study size serves every dimension and overlap:
        # drawing them is the costly part, and shared draws make the designs comparable.
        draws = _Draws.of(settings, items, np.random.default_rng([seed, items]))
        for k, (dimension, pilot) in enumerate(pilots.items()):
            for overlap in sorted(set(overlap_options)):
                design_rng = np.random.default_rng([seed, items, overlap, k])
                design = _Design(dimension, pilot, items, overlap, copies[dimension])
                row, reached = _row(settings, design, draws, design_rng)
                rows.append(row)
                per_copy.append(reached)
    recommended = _smallest_everywhere(rows, list(pilots), [r.reaches_target for r in rows])
    by_dimension = {d: _smallest([r for r in rows if r.dimension == d]) for d in pilots}
    sizes = {d: len(p.items) for d, p in pilots.items()}
    stability = _stability(rows, list(pilots), np.array(per_copy), recommended)
    return PlanResult(
        target_width, quantile, n_sim, n_boot, rows, recommended, by_dimension, sizes,
        _warning(sizes), stability,
    )  # fmt: skip


def variance_inflation(pilot_items: int) -> float:
    """√(n / (n − 1)): a bootstrap from n items spreads like a population whose variance is the
    plug-in one, (n − 1)/n of the unbiased estimate; widths scale by the square root."""
    return float(np.sqrt(pilot_items / (pilot_items - 1))) if pilot_items > 1 else 1.0


def _check_design(items_options, overlap_options, quantile: float) -> None:
    if not items_options or min(items_options) < MIN_INTERVAL_ITEMS:
        # The dashboards give no interval on fewer items (envelope.MIN_INTERVAL_ITEMS).
        raise ValueError(f"every items option must be {MIN_INTERVAL_ITEMS} or more")
    if not overlap_options or min(overlap_options) < 2:
        raise ValueError("every overlap must be 2 or more: agreement needs two clinicians")
    if not 0 < quantile < 1:
        raise ValueError("the quantile planned on must lie between 0 and 1")


def _pilot(scores: Scores) -> _Pilot:
    items = [item for item in sorted(scores.clinicians) if len(scores.clinicians[item]) >= 2]
    width = max((len(scores.clinicians[i]) for i in items), default=0)
    matrix = np.full((len(items), width), np.nan)
    for row, item in enumerate(items):
        values = [s for _, s in sorted(scores.clinicians[item].items())]
        matrix[row, : len(values)] = values
    jury = np.array([scores.jury.get(item, np.nan) for item in items], dtype=float)
    return _Pilot(items, matrix, (~np.isnan(matrix)).sum(axis=1), jury)


def _warning(sizes: dict[str, int]) -> str | None:
    smallest = min(sizes.values(), default=0)
    if smallest >= MIN_PILOT_ITEMS:
        return None
    return (
        f"The pilot has only {smallest} item{'s' if smallest != 1 else ''} scored by two or "
        f"more clinicians (on its thinnest dimension); below {MIN_PILOT_ITEMS} the predicted "
        "widths are themselves uncertain: read the ranges over pilot resamples, not the "
        "single figures."
    )


def _pilot_copies(rng, pilots: dict[str, _Pilot], copies: int) -> dict[str, np.ndarray]:
    """Per dimension, (copies, pilot items): how often each item is drawn in each bootstrap
    copy of the pilot; one draw of item names serves every dimension, so a copy is one pilot."""
    names = sorted({item for p in pilots.values() for item in p.items})
    index = {name: i for i, name in enumerate(names)}
    drawn = rng.integers(0, max(len(names), 1), size=(copies, len(names)))
    offsets = (np.arange(copies) * len(names))[:, None]
    counts = np.bincount((drawn + offsets).ravel(), minlength=copies * len(names))
    counts = counts.reshape(copies, len(names))
    return {d: counts[:, [index[i] for i in p.items]] for d, p in pilots.items()}


@dataclass(frozen=True)
class _Design:
    dimension: str
    pilot: _Pilot
    items: int
    overlap: int
    copies: np.ndarray  # (pilot copies, pilot items): draws of each item per copy


@dataclass(frozen=True)
class _Draws:
    """Bootstrap resample counts for one study size: the main plan's and the pilot copies'."""

    items: int
    n_boot: int
    main: np.ndarray  # (n_sim, n_boot, items)
    copy_sims: int  # simulated studies per pilot copy
    copy_boot: int
    copies: np.ndarray | None  # (copies × copy_sims, copy_boot, items)

    @classmethod
    def of(cls, settings: _Settings, items: int, rng) -> _Draws:
        copy_sims, copy_boot = max(10, settings.n_sim // 10), max(50, settings.n_boot // 2)
        main = resample_counts(rng, settings.n_sim, settings.n_boot, items)
        copies = None
        if settings.pilot_resamples:
            n = settings.pilot_resamples * copy_sims
            copies = resample_counts(rng, n, copy_boot, items)
        return cls(items, settings.n_boot, main, copy_sims, copy_boot, copies)


def _row(settings: _Settings, design: _Design, draws: _Draws, rng) -> tuple[PlanRow, np.ndarray]:
    """One design on one dimension, and whether it reaches the target on each pilot copy."""
    pilot, overlap = design.pilot, design.overlap
    eligible = np.flatnonzero(pilot.raters >= overlap)
    base = {
        "dimension": design.dimension,
        "items": design.items,
        "overlap": overlap,
        "ratings": design.items * overlap,
    }
    unreached = np.zeros(settings.pilot_resamples, dtype=bool)
    if not len(eligible):
        reason = f"no pilot item has {overlap} clinicians"
        return _blank_row(base, reason, reason), unreached
    has_jury = bool(np.isfinite(pilot.jury[eligible]).any())
    inflation = variance_inflation(len(eligible)) if settings.correct else 1.0
    studies = rng.choice(eligible, size=(settings.n_sim, design.items))
    widths = _widths_of(pilot, studies, overlap, draws.main, settings.level, rng)
    widths = {f: w * inflation for f, w in widths.items()}
    planned = {f: _at(widths[f], settings.quantile) for f in FIGURES}
    reasons = _reasons(pilot, eligible, planned, has_jury)
    needed = [f for f in FIGURES if f == "alpha" or has_jury]
    if any(reasons[f] for f in needed):
        return _blank_row(base, reasons["alpha"], reasons["difference"], planned), unreached
    copy_widths = _copy_widths(settings, design, eligible, draws, rng)
    # The copies give the pilot's relative spread; the level is the main plan's (more studies,
    # more resamples): each copy's widths are the main ones times its ratio to theirs.
    relative = {f: _relative(_at_rows(copy_widths[f], settings.quantile)) for f in needed}
    if settings.correct:
        widths = {f: _predictive(widths[f], relative[f]) for f in needed}
        planned = {f: _at(widths[f], settings.quantile) for f in needed}
    scaled = {f: planned[f] * relative[f] for f in needed}  # type: ignore[operator]
    reached = np.logical_and.reduce([scaled[f] <= settings.target for f in needed])
    figures: dict[str, Any] = {}
    for f in FIGURES:
        shown = f in needed
        figures[f"{f}_width"] = planned[f] if shown else None
        figures[f"{f}_width_median"] = _at(widths[f], 0.5) if shown else None
        figures[f"{f}_width_range"] = _range(scaled[f]) if shown else None
    row = PlanRow(
        **base,
        **figures,
        reaches_target=all(planned[f] <= settings.target for f in needed),  # type: ignore[operator]
        reach_share=float(reached.mean()) if len(reached) else None,
        alpha_reason=reasons["alpha"],
        difference_reason=reasons["difference"],
    )
    return row, reached


def _blank_row(base, alpha_reason, difference_reason, planned=None) -> PlanRow:
    """A row whose missing figures each say why; a figure that could be given still is."""
    figures: dict[str, Any] = {}
    for f, reason in zip(FIGURES, (alpha_reason, difference_reason), strict=True):
        value = None if reason or planned is None else planned[f]
        figures |= {f"{f}_width": value, f"{f}_width_median": None, f"{f}_width_range": None}
    return PlanRow(
        **base, **figures, reaches_target=False, reach_share=None,
        alpha_reason=alpha_reason, difference_reason=difference_reason,
    )  # fmt: skip


def _reasons(pilot: _Pilot, eligible, planned, has_jury: bool) -> dict[str, str | None]:
    """Why a figure has no width: no jury, scores that do not vary, alpha undefined."""
    scores = pilot.scores[eligible]
    reasons: dict[str, str | None] = {}
    for f in FIGURES:
        if f == "difference" and not has_jury:
            reasons[f] = NO_JURY if not np.isfinite(pilot.jury).any() else NO_JURY_HERE
        elif f == "alpha" and np.unique(scores[np.isfinite(scores)]).size <= 1:
            reasons[f] = NOT_EVIDENCE
        elif planned[f] is None:
            reasons[f] = UNDEFINED if f == "alpha" else NO_SPREAD
        elif planned[f] <= 1e-12:
            reasons[f] = NO_SPREAD
        else:
            reasons[f] = None
    return reasons


def _copy_widths(settings, design: _Design, eligible, draws: _Draws, rng) -> dict:
    """(copies, studies per copy) widths of simulated studies drawn from each bootstrap copy of
    the pilot; fewer studies and resamples than the main plan: they only give its spread."""
    if draws.copies is None:
        return {f: np.zeros((0, 1)) for f in FIGURES}
    weights = design.copies[:, eligible].astype(float)
    studies = np.empty((len(weights), draws.copy_sims, design.items), dtype=np.intp)
    for c, w in enumerate(weights):
        # A copy that drew none of these items has nothing to say: it stands for the pilot.
        p = w / w.sum() if w.sum() > 0 else None
        studies[c] = rng.choice(eligible, size=(draws.copy_sims, design.items), p=p)
    flat = studies.reshape(-1, design.items)
    widths = _widths_of(design.pilot, flat, design.overlap, draws.copies, settings.level, rng)
    return {f: w.reshape(len(weights), draws.copy_sims) for f, w in widths.items()}


def _widths_of(pilot, studies, overlap, resamples, level, rng) -> dict[str, np.ndarray]:
    """Percentile-bootstrap widths of simulated studies (rows of pilot item indices)."""
    kept = _kept_clinicians(pilot.scores[studies], overlap, rng)
    return bootstrap_widths(item_sums(kept, pilot.jury[studies]), resamples, level)


def _kept_clinicians(scores: np.ndarray, overlap: int, rng) -> np.ndarray:
    """`overlap` of each item's clinicians at random, never one twice (NaN pads sort last)."""
    keys = np.where(np.isnan(scores), np.inf, rng.random(scores.shape))
    return np.take_along_axis(scores, np.argsort(keys, axis=-1)[..., :overlap], axis=-1)


# --- the interval method modelled ----------------------------------------------------------------

_UPPER = np.triu_indices(len(SCORES))  # a coincidence matrix is symmetric: keep 15 of 25


def item_sums(kept: np.ndarray, jury: np.ndarray) -> np.ndarray:
    """Per item: its 15 distinct coincidences, then adjacent jury–clinician pairs, such pairs,
    adjacent clinician pairs, such pairs (0 where no jury score). kept: (…, overlap) clinician
    scores, jury: (…) its score or NaN → (…, 19); both figures are functions of their sums."""
    overlap = kept.shape[-1]
    counts = np.stack([(kept == s).sum(axis=-1) for s in SCORES], axis=-1).astype(float)
    coincidences = coincidences_of_counts(counts)[..., _UPPER[0], _UPPER[1]]
    has_jury = np.isfinite(jury)
    jury_adjacent = (np.abs(kept - jury[..., None]) <= 1).sum(axis=-1)
    same = (counts * (counts - 1) / 2).sum(axis=-1)
    neighbours = same + (counts[..., 1:] * counts[..., :-1]).sum(axis=-1)
    pairs = np.full(jury.shape, overlap * (overlap - 1) / 2)
    envelope = np.stack([jury_adjacent, np.full(jury.shape, overlap), neighbours, pairs])
    envelope = np.moveaxis(envelope * has_jury, 0, -1)
    return np.concatenate([coincidences, envelope], axis=-1).astype(np.float32)


def resample_counts(rng: np.random.Generator, n_sim: int, n_boot: int, items: int) -> np.ndarray:
    """(n_sim, n_boot, items): how often each item of a study is drawn in each resample."""
    drawn = rng.integers(0, items, size=(n_sim * n_boot, items))
    offsets = (np.arange(len(drawn)) * items)[:, None]
    counts = np.bincount((drawn + offsets).ravel(), minlength=len(drawn) * items)
    return counts.reshape(n_sim, n_boot, items).astype(np.float32)


def bootstrap_widths(per_item: np.ndarray, resamples: np.ndarray, level: float = LEVEL):
    """The percentile-bootstrap interval widths of each study, per figure: (studies,) each.
    per_item: (studies, items, 19) from `item_sums`; resamples: (studies, n_boot, items)."""
    # einsum rather than a batched matmul: BLAS spends more on threads than on the sums at
    # this size, badly so on a busy machine; einsum's plain loop takes the same time always.
    sums = np.einsum("sbn,snk->sbk", resamples, per_item).astype(float)
    coincidences = np.zeros((*sums.shape[:-1], len(SCORES), len(SCORES)))
    coincidences[..., _UPPER[0], _UPPER[1]] = sums[..., :15]
    coincidences[..., _UPPER[1], _UPPER[0]] = sums[..., :15]
    alpha = alpha_from(coincidences, ordinal_distances)
    with np.errstate(all="ignore"):
        difference = sums[..., 15] / sums[..., 16] - sums[..., 17] / sums[..., 18]
    return {"alpha": _widths(alpha, level), "difference": _widths(difference, level)}


def _widths(resampled: np.ndarray, level: float) -> np.ndarray:
    tail = (1 - level) / 2
    if np.isfinite(resampled).all():
        low, high = np.quantile(resampled, [tail, 1 - tail], axis=-1)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(resampled, [tail, 1 - tail], axis=-1)
        # A study whose figure is undefined in most of its resamples has no interval.
        defined = np.isfinite(resampled).mean(axis=-1) >= 0.5
        low, high = np.where(defined, low, np.nan), np.where(defined, high, np.nan)
    return high - low


# --- summaries -----------------------------------------------------------------------------------


def _at(widths: np.ndarray, quantile: float) -> float | None:
    """The quantile of the simulated widths; None when most studies have no interval."""
    values = widths[np.isfinite(widths)]
    if not len(values) or len(values) < len(widths) / 2:
        return None
    return float(np.quantile(values, quantile))


def _at_rows(widths: np.ndarray, quantile: float) -> np.ndarray:
    """`_at` per pilot copy (rows); NaN where a copy cannot say."""
    return np.array([np.nan if (v := _at(row, quantile)) is None else v for row in widths])


def _predictive(widths: np.ndarray, relative: np.ndarray) -> np.ndarray:
    """The simulated widths as they would be from each pilot copy: pilot uncertainty added."""
    ratios = relative[np.isfinite(relative)]
    return (widths[None, :] * ratios[:, None]).ravel() if len(ratios) else widths


def _relative(planned: np.ndarray) -> np.ndarray:
    """Each copy's planned width relative to the copies' median (NaN where it cannot say)."""
    # A copy whose widths are all 0 (every drawn item alike) is no evidence, as in the plan.
    planned = np.where(planned > 1e-12, planned, np.nan)
    finite = planned[np.isfinite(planned)]
    if not len(finite):
        return np.full(planned.shape, np.nan)
    return planned / np.median(finite)


def _range(planned: np.ndarray) -> tuple[float, float] | None:
    values = planned[np.isfinite(planned)]
    if not len(values):
        return None
    low, high = np.quantile(values, RANGE)
    return float(low), float(high)


def _smallest(rows: Sequence[PlanRow]) -> tuple[int, int] | None:
    reaching = [r for r in rows if r.reaches_target]
    best = min(reaching, key=lambda r: (r.ratings, r.items), default=None)
    return None if best is None else (best.items, best.overlap)


def _smallest_everywhere(
    rows: Sequence[PlanRow], dimensions: list[str], reached: Sequence[bool]
) -> tuple[int, int] | None:
    """The design with fewest clinician scores (then items) reaching on every dimension."""
    designs = sorted({(r.items, r.overlap) for r in rows}, key=lambda d: (d[0] * d[1], d[0]))
    for design in designs:
        wanted = [ok for r, ok in zip(rows, reached, strict=True) if (r.items, r.overlap) == design]
        if len(wanted) == len(dimensions) and all(wanted):
            return design
    return None


def _stability(rows, dimensions, reached: np.ndarray, recommended) -> Stability:
    """The recommendation on each pilot copy: reached is (rows, copies)."""
    if not reached.size:
        return Stability(0, 1.0 if recommended else 0.0, [])
    found = Counter(
        _smallest_everywhere(rows, dimensions, reached[:, c]) for c in range(reached.shape[1])
    )
    copies = reached.shape[1]
    designs = sorted(
        ((d, n / copies) for d, n in found.items()),
        key=lambda x: (-x[1], (x[0][0] * x[0][1], x[0][0]) if x[0] else (np.inf, np.inf)),
    )
    return Stability(copies, found.get(recommended, 0) / copies, designs)
