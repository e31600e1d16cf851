"""The study planner: from a pilot study's scores, how wide the agreement intervals would be
for other designs (items, clinicians per item), by simulating studies drawn from the pilot.
Pure: plain data in, plain data out (DESIGN §7)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.agreement import (
    LEVEL,
    Rating,
    Scores,
    alpha_from,
    coincidences_of_counts,
    draw_counts,
    envelope_rates,
    ordinal_distances,
    split_by_dimension,
)
from ratings.scale import SCORES

# --- the study planner ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanRow:
    dimension: str
    items: int
    overlap: int  # clinicians per item
    ratings: int  # clinician scores to collect: items × overlap
    alpha_width: float | None  # median over simulated studies of the CI width of ordinal alpha
    alpha_width_p90: float | None  # 90% of simulated studies are at most this wide
    difference_width: float | None  # the same for jury − clinician adjacent agreement
    difference_width_p90: float | None
    reaches_target: bool  # median widths at or below the target
    note: str | None = None


@dataclass(frozen=True)
class PlanResult:
    target_width: float
    n_sim: int
    n_boot: int
    rows: list[PlanRow]
    recommended: tuple[int, int] | None  # (items, overlap) reaching the target everywhere
    recommended_by_dimension: dict[str, tuple[int, int] | None]

    def as_rows(self) -> list[dict[str, Any]]:
        return [row.__dict__.copy() for row in self.rows]


@dataclass(frozen=True)
class _Pilot:
    scores: np.ndarray  # (items, most clinicians on an item), NaN padded
    raters: np.ndarray  # clinicians per item
    jury: np.ndarray  # jury score per item, NaN when none


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
) -> PlanResult:
    """How wide the intervals of ordinal alpha (clinicians) and of the jury-minus-clinician
    adjacent-agreement difference would be for each design (items, clinicians per item).

    Each of `n_sim` simulated studies draws `items` pilot items with replacement and keeps
    `overlap` of each item's clinicians at random (a clinician is never duplicated: items
    with fewer clinicians than the overlap are not drawn); its interval is a percentile
    bootstrap of `n_boot` resamples of its items. A row gives the median width over the
    simulated studies and the width 90% of them stay under. The recommended design is the
    one with fewest clinician scores (items × overlap, then fewest items) whose median widths
    reach the target on every dimension."""
    _check_design(items_options, overlap_options)
    pilots = {d: _pilot(s) for d, s in split_by_dimension(pilot_ratings).items()}
    plan = _Plan(target_width, level, n_sim, n_boot)
    rows = []
    for items in sorted(set(items_options)):
        rng = np.random.default_rng([seed, items])
        # One set of inner resamples per study size serves every dimension and overlap:
        # drawing them is the costly part, and shared draws make the designs comparable.
        resamples = _resample_counts(rng, n_sim, n_boot, items)
        for dimension, pilot in pilots.items():
            for overlap in sorted(set(overlap_options)):
                rows.append(plan.row(dimension, pilot, items, overlap, resamples, rng))
    by_dimension = {d: _smallest([r for r in rows if r.dimension == d]) for d in pilots}
    return PlanResult(
        target_width, n_sim, n_boot, rows, _smallest_everywhere(rows, list(pilots)), by_dimension
    )


def _check_design(items_options: Sequence[int], overlap_options: Sequence[int]) -> None:
    if not items_options or min(items_options) < 2:
        raise ValueError("every items option must be 2 or more")
    if not overlap_options or min(overlap_options) < 2:
        raise ValueError("every overlap must be 2 or more: agreement needs two clinicians")


def _pilot(scores: Scores) -> _Pilot:
    items = [item for item in sorted(scores.clinicians) if len(scores.clinicians[item]) >= 2]
    width = max((len(scores.clinicians[i]) for i in items), default=0)
    matrix = np.full((len(items), width), np.nan)
    for row, item in enumerate(items):
        values = [s for _, s in sorted(scores.clinicians[item].items())]
        matrix[row, : len(values)] = values
    jury = np.array([scores.jury.get(item, np.nan) for item in items], dtype=float)
    return _Pilot(matrix, (~np.isnan(matrix)).sum(axis=1), jury)


def _resample_counts(rng: np.random.Generator, n_sim: int, n_boot: int, items: int) -> np.ndarray:
    """(n_sim, n_boot, items): how often each item of a simulated study is drawn in each of
    its bootstrap resamples; built a few studies at a time to bound memory."""
    counts = np.empty((n_sim, n_boot, items), dtype=np.float32)
    step = max(1, 2_000_000 // (n_boot * items))
    for start in range(0, n_sim, step):
        size = min(step, n_sim - start)
        drawn = rng.integers(0, items, size=(size, n_boot, items), dtype=np.int32)
        counts[start : start + size] = draw_counts(drawn, items)
    return counts


_WIDTHS = ("alpha_width", "alpha_width_p90", "difference_width", "difference_width_p90")
_UPPER = np.triu_indices(len(SCORES))  # a coincidence matrix is symmetric: keep 15 of 25


@dataclass(frozen=True)
class _Plan:
    target: float
    level: float
    n_sim: int
    n_boot: int

    def row(self, dimension, pilot, items, overlap, resamples, rng) -> PlanRow:
        eligible = np.flatnonzero(pilot.raters >= overlap)
        base = {"dimension": dimension, "items": items, "overlap": overlap}
        base["ratings"] = items * overlap
        if not len(eligible):
            note = f"no pilot item has {overlap} clinicians"
            return PlanRow(**base, **dict.fromkeys(_WIDTHS), reaches_target=False, note=note)
        per_item = _simulated_items(pilot, eligible, (self.n_sim, items), overlap, rng)
        widths = _simulated_widths(per_item, resamples, self.level)
        has_jury = bool(np.isfinite(pilot.jury[eligible]).any())
        summary = _width_summary(widths, has_jury)
        needed = [summary["alpha_width"]] + ([summary["difference_width"]] if has_jury else [])
        reaches = all(w is not None and w <= self.target for w in needed)
        note = None if has_jury else "no jury scores: alpha only"
        return PlanRow(**base, **summary, reaches_target=reaches, note=note)


def _simulated_items(
    pilot: _Pilot, eligible: np.ndarray, shape: tuple[int, int], overlap: int, rng
) -> np.ndarray:
    """Per simulated study and drawn item: its 15 distinct coincidences, then the 4 envelope
    counts (`_envelope_counts`)."""
    drawn = rng.choice(eligible, size=shape)
    scores = pilot.scores[drawn]  # (n_sim, items, most clinicians on an item)
    keys = np.where(np.isnan(scores), np.inf, rng.random(scores.shape))
    kept = np.take_along_axis(scores, np.argsort(keys, axis=-1)[..., :overlap], axis=-1)
    counts = np.stack([(kept == s).sum(axis=-1) for s in SCORES], axis=-1).astype(float)
    coincidences = coincidences_of_counts(counts)[..., _UPPER[0], _UPPER[1]]
    jury = pilot.jury[drawn]
    has_jury = np.isfinite(jury)
    jury_adjacent = (np.abs(kept - jury[..., None]) <= 1).sum(axis=-1)
    same = (counts * (counts - 1) / 2).sum(axis=-1)
    neighbours = same + (counts[..., 1:] * counts[..., :-1]).sum(axis=-1)
    pairs = overlap * (overlap - 1) / 2
    envelope = np.stack([jury_adjacent, np.full(shape, overlap), neighbours, np.full(shape, pairs)])
    envelope = np.moveaxis(envelope * has_jury, 0, -1)
    return np.concatenate([coincidences, envelope], axis=-1).astype(np.float32)


def _simulated_widths(
    per_item: np.ndarray, resamples: np.ndarray, level: float
) -> dict[str, np.ndarray]:
    """Percentile-bootstrap interval widths of each simulated study: (n_sim,) per figure."""
    # einsum rather than a batched matmul: BLAS spends more on threads than on the sums at
    # this size, badly so on a busy machine; einsum's plain loop takes the same time always.
    sums = np.einsum("sbn,snk->sbk", resamples, per_item).astype(float)
    coincidences = np.zeros((*sums.shape[:-1], len(SCORES), len(SCORES)))
    coincidences[..., _UPPER[0], _UPPER[1]] = sums[..., :15]
    coincidences[..., _UPPER[1], _UPPER[0]] = sums[..., :15]
    alpha = alpha_from(coincidences, ordinal_distances)
    with np.errstate(all="ignore"):
        difference = envelope_rates(sums[..., 15:])[..., 2]
    return {"alpha": _widths(alpha, level), "difference": _widths(difference, level)}


def _widths(resampled: np.ndarray, level: float) -> np.ndarray:
    tail = (1 - level) / 2
    if np.isfinite(resampled).all():
        low, high = np.quantile(resampled, [tail, 1 - tail], axis=-1)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(resampled, [tail, 1 - tail], axis=-1)
    return high - low


def _width_summary(widths: dict[str, np.ndarray], has_jury: bool) -> dict[str, float | None]:
    summary: dict[str, float | None] = {}
    for figure in ("alpha", "difference"):
        values = widths[figure][np.isfinite(widths[figure])]
        present = len(values) > 0 and (figure == "alpha" or has_jury)
        summary[f"{figure}_width"] = float(np.median(values)) if present else None
        summary[f"{figure}_width_p90"] = float(np.quantile(values, 0.9)) if present else None
    return summary


def _smallest(rows: Sequence[PlanRow]) -> tuple[int, int] | None:
    reaching = [r for r in rows if r.reaches_target]
    best = min(reaching, key=lambda r: (r.ratings, r.items), default=None)
    return None if best is None else (best.items, best.overlap)


def _smallest_everywhere(rows: Sequence[PlanRow], dimensions: list[str]) -> tuple[int, int] | None:
    designs = sorted({(r.items, r.overlap) for r in rows}, key=lambda d: (d[0] * d[1], d[0]))
    for design in designs:
        wanted = [r for r in rows if (r.items, r.overlap) == design]
        if len(wanted) == len(dimensions) and all(r.reaches_target for r in wanted):
            return design
    return None
