"""The study planner: from a pilot study's scores, which design — how many items, how many
clinicians, how many clinicians on each item — would let the verdicts the pages print earn an
answer. Pure: plain data in, plain data out (DESIGN §7).

What is planned on, stated once:

- **the envelope's own intervals** (annotation.pure.envelope) of the two differences its verdict
  turns on, jury − clinician adjacent agreement and kappa: their width over items *and*
  clinicians is 2 · t · √(σ²_α/N + σ²_β/R + σ²_ε/cells), from the two-way random-effects
  components (annotation.pure.crossed) the envelope itself widens by, on Student's t with
  Satterthwaite's df. The items and interaction parts are measured on studies of the design
  made from the pilot (`synthetic_components`: its items drawn with replacement, each given
  the design's clinicians with the scores of distinct pilot clinicians), through the envelope's
  own `variance_components`, so sparse clinician pairs cost what they cost the verdict; the
  clinician term is the pilot's (measured on the pilot cut down to `per_item` clinicians an
  item, `SUBSAMPLES` cuts averaged, times its effective number of clinicians, (Σ loads)² /
  Σ loads²) over the design's R;
- **the alt-test's power** (annotation.pure.alt_test, ordinal scores, ε and BY as the page's):
  the share of studies in which it finds "the jury can stand in for a clinician". Per pilot
  clinician j the mean of W_h − W_f on the cut pilot; a study's clinician j has a mean drawn
  around the pilot's mean with the clinicians' spread (their random effect), shifts shared by
  every clinician (the items they share; the sample of clinicians each is compared with, from
  a delete-one-clinician jackknife) and its own noise for N · per_item / R items,
  then the per-clinician t-test, BY and ω ≥ 0.5 as the real code does;
- **a study's variation**: a simulated study's variance parts are drawn on their degrees of
  freedom (χ²/df), so its t quantile and width vary as a real study's do; a design *reaches*
  the target when the `quantile` (80% by default) of its studies' widths is at or below the
  target on both differences, and when that share of its studies have the alt-test find the
  jury can stand in;
- **the pilot's own uncertainty**: each pilot part is itself an estimate on its degrees of
  freedom (a clinician term from 3 clinicians stands on 2), so `PILOT_DRAWS` values of each are
  drawn from its scaled inverse-χ² (and the alt-test's mean difference from its items'
  resamples and the clinicians' spread), and the studies planned on are drawn from all of them:
  the planned figure is a predictive one. Per pilot draw the planned figure again gives each
  design's range, the share of draws in which it reaches the target, and how often the
  recommendation changes;
- **the limits**: the width with unlimited items (only the clinician term left) and the
  alt-test's power with unlimited items (each clinician decided by its true mean) say when more
  items would not help, and how many clinicians would be needed at least.

`benchmarks/planner_check.py` runs fresh studies of the recommended design through the real
`envelope` and `alt_test` and prints how often they reach the target.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from annotation.pure import alt_test as alt
from annotation.pure import envelope as env
from annotation.pure.agreement import LEVEL, Rating, Scores, split_by_dimension
from annotation.pure.envelope import MIN_INTERVAL_ITEMS
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE
from ratings.ties import DEFAULT_TIE_RULE

FIGURES = ("adjacent_difference", "kappa_difference")  # the envelope's deciding intervals
FIGURE_LABELS = {
    "adjacent_difference": "jury − clinician adjacent agreement",
    "kappa_difference": "jury − clinician kappa",
}
ALT_TEST = "alt_test"
QUANTILES = (0.5, 0.8, 0.9)
DEFAULT_QUANTILE = 0.8
MIN_PILOT_ITEMS = 50
MIN_CLINICIANS = 3  # the envelope's clinician term and the alt-test both need 3
PILOT_DRAWS = 40  # draws of the pilot's uncertain parts
STUDIES = 50  # simulated studies per pilot draw
SYNTHETIC = 2  # studies of each design made from the pilot, their components averaged
SUBSAMPLES = 3  # cuts of the pilot to `per_item` clinicians an item, averaged
ITEM_RESAMPLES = 200  # resamples of the pilot's items for the alt-test mean's uncertainty
RANGE = (0.1, 0.9)  # the spread of a design's planned figure over the pilot's draws
MOST_CLINICIANS = 200  # the search for how many clinicians would do stops here

# The work a plan may do (`plan_work`, in units of about a millisecond): one request must
# finish well inside a web worker's timeout. A design's studies made from the pilot cost most:
# the envelope's variance components hold every item × clinician pair (1.5 µs each, twice);
# then its widths and powers (~20 ms), and cutting the pilot to a number of clinicians per item.
# One study made from the pilot may hold at most MAX_ITEM_PAIRS (its arrays: ~80 bytes each).
# benchmarks/planner_budget.py times the largest plans within the budget.
ITEM_PAIRS_PER_UNIT = 300
WORK_PER_DESIGN = 12
WORK_PER_CUT = 20
MAX_PLAN_WORK = 12_000
MAX_ITEM_PAIRS = 600_000


class TooMuchWork(ValueError):
    """A plan past `MAX_PLAN_WORK`; its message says what to ask for instead."""


NO_JURY = "no jury scores in the pilot"
NO_JURY_HERE = "no pilot item with this many clinicians has a jury score"
FEW_PILOT_CLINICIANS = (
    "the pilot has fewer than 3 clinicians on such items: how much clinicians differ cannot be "
    "estimated, so the verdict's interval over clinicians cannot be planned"
)
NOT_EVIDENCE = "scores do not vary in the pilot: the width is 0 by construction, not evidence"
UNDEFINED = "undefined in the pilot: no pair of raters varies on shared items"
UNDEFINED_HERE = "undefined in studies of this design made from the pilot: no pair of raters varies"


@dataclass(frozen=True)
class Design:
    items: int
    clinicians: int  # in the study
    per_item: int  # clinicians on each item

    @property
    def ratings(self) -> int:
        return self.items * self.per_item

    @property
    def items_per_clinician(self) -> float:
        return self.ratings / self.clinicians

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.items, self.clinicians, self.per_item)

    def cost(self) -> tuple[int, int, int]:
        """Fewest clinician scores first, then fewest clinicians to recruit, then items."""
        return (self.ratings, self.clinicians, self.items)


@dataclass(frozen=True)
class Planned:
    """One verdict's planned figure for a design: a width (the envelope's differences) or a
    power (the alt-test), or why there is none."""

    value: float | None  # at the quantile planned on (widths) / the predictive power
    median: float | None = None  # the median width (powers: None)
    range: tuple[float, float] | None = None  # 10th–90th percentile over the pilot's draws
    reaches: bool = False
    reason: str | None = None
    unlimited: float | None = None  # the same figure with unlimited items

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "median": self.median,
            "range": list(self.range) if self.range else None,
            "reaches": self.reaches,
            "reason": self.reason,
            "unlimited": self.unlimited,
        }


@dataclass(frozen=True)
class PlanRow:
    dimension: str
    design: Design
    figures: dict[str, Planned]  # FIGURES and ALT_TEST
    envelope_share: float | None  # share of pilot draws in which both widths reach the target
    alt_test_share: float | None  # … in which the power reaches the quantile

    @property
    def items(self) -> int:
        return self.design.items

    @property
    def clinicians(self) -> int:
        return self.design.clinicians

    @property
    def per_item(self) -> int:
        return self.design.per_item

    @property
    def envelope_reaches(self) -> bool:
        return all(self.figures[f].reaches for f in FIGURES)

    @property
    def alt_test_reaches(self) -> bool:
        return self.figures[ALT_TEST].reaches

    @property
    def reaches_target(self) -> bool:
        return self.envelope_reaches and self.alt_test_reaches

    @property
    def note(self) -> str | None:
        reasons = dict.fromkeys(p.reason for p in self.figures.values() if p.reason)
        return "; ".join(reasons) or None

    def as_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "items": self.items,
            "clinicians": self.clinicians,
            "per_item": self.per_item,
            "ratings": self.design.ratings,
            "items_per_clinician": self.design.items_per_clinician,
            **{name: planned.as_dict() for name, planned in self.figures.items()},
            "envelope_reaches": self.envelope_reaches,
            "alt_test_reaches": self.alt_test_reaches,
            "reaches_target": self.reaches_target,
            "envelope_share": self.envelope_share,
            "alt_test_share": self.alt_test_share,
            "note": self.note,
        }


@dataclass(frozen=True)
class Advice:
    """One verdict on one dimension at one number of clinicians per item: how many clinicians
    it needs at least (with unlimited items), and the numbers tried with which more items would
    not help."""

    dimension: str
    verdict: str  # a figure of FIGURES, or ALT_TEST
    per_item: int
    clinicians_needed: int | None  # None: no number up to MOST_CLINICIANS would do
    items_would_not_help: tuple[int, ...]  # clinician numbers tried that no items rescue
    text: str

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__ | {"items_would_not_help": list(self.items_would_not_help)}


@dataclass(frozen=True)
class Stability:
    """The recommendation again on each draw of the pilot's uncertain parts."""

    draws: int
    same: float  # share of draws recommending the same design
    designs: list[tuple[tuple[int, int, int] | None, float]]  # each design, and how often


@dataclass(frozen=True)
class PlanResult:
    target_width: float
    quantile: float
    epsilon: float
    level: float
    pilot_draws: int
    studies: int
    rows: list[PlanRow]
    recommended: Design | None  # both verdicts reach on every planned dimension
    recommended_envelope: Design | None
    recommended_alt_test: Design | None
    recommended_by_dimension: dict[str, Design | None]
    pilot_items: dict[str, int]  # per dimension, pilot items with 2 or more clinicians
    pilot_clinicians: dict[str, int]
    advice: list[Advice]
    warning: str | None
    stability: Stability
    planned_dimensions: list[str] = field(default_factory=list)  # those with a jury

    @property
    def assumptions(self) -> list[str]:
        return assumptions(self)

    def as_dict(self) -> dict[str, Any]:
        def design(d: Design | None):
            return None if d is None else list(d.as_tuple())

        return {
            "target_width": self.target_width,
            "quantile": self.quantile,
            "epsilon": self.epsilon,
            "recommended": design(self.recommended),
            "recommended_envelope": design(self.recommended_envelope),
            "recommended_alt_test": design(self.recommended_alt_test),
            "recommended_by_dimension": {
                d: design(x) for d, x in self.recommended_by_dimension.items()
            },
            "pilot_items": self.pilot_items,
            "pilot_clinicians": self.pilot_clinicians,
            "warning": self.warning,
            "advice": [a.as_dict() for a in self.advice],
            "assumptions": self.assumptions,
            "rows": [r.as_dict() for r in self.rows],
        }


@dataclass(frozen=True)
class _Settings:
    target: float
    quantile: float
    level: float
    epsilon: float
    pilot_draws: int
    studies: int


# --- the work budget -----------------------------------------------------------------------------


def designs_of(
    items_options: Iterable[int], clinician_options: Iterable[int], per_item_options: Iterable[int]
) -> list[Design]:
    """Every design asked for: each number of clinicians with each number on an item that fits."""
    return [
        Design(n, r, k)
        for n in sorted(set(items_options))
        for r in sorted(set(clinician_options))
        for k in sorted(set(per_item_options))
        if k <= r
    ]


def item_pairs(design: Design) -> int:
    """What a study made from the pilot holds: items × (pairs of clinicians + clinicians)."""
    return design.items * (design.clinicians * (design.clinicians + 1) // 2)


def plan_work(items_options, clinician_options, per_item_options, dimensions: int) -> int:
    designs = designs_of(items_options, clinician_options, per_item_options)
    pairs = sum(item_pairs(d) for d in designs)
    per_dimension = pairs // ITEM_PAIRS_PER_UNIT + WORK_PER_DESIGN * len(designs)
    cuts = len(set(per_item_options)) * WORK_PER_CUT
    return max(1, dimensions) * (per_dimension + cuts)


def work_refusal(items_options, clinician_options, per_item_options, dimensions: int) -> str | None:
    """Why a plan is too big for one request, in words; None when it fits the budget."""
    designs = designs_of(items_options, clinician_options, per_item_options)
    largest = max(designs, key=item_pairs, default=None)
    if largest is not None and item_pairs(largest) > MAX_ITEM_PAIRS:
        return (
            f"This plan is too big for one request: a study of {largest.items:,} items and "
            f"{largest.clinicians} clinicians holds {item_pairs(largest):,} item × clinician "
            f"pairs, and one may hold {MAX_ITEM_PAIRS:,}. Try fewer items with that many "
            "clinicians, or fewer clinicians."
        )
    work = plan_work(items_options, clinician_options, per_item_options, dimensions)
    if work <= MAX_PLAN_WORK:
        return None
    return (
        f"This plan is too big for one request: {len(designs)} designs (items × clinicians × "
        f"clinicians per item) on {dimensions} dimension{'s' if dimensions != 1 else ''} is "
        f"{work:,} units of work, and one request may do {MAX_PLAN_WORK:,}. Try fewer item "
        "counts, or fewer or smaller clinician counts."
    )


# --- the plan ------------------------------------------------------------------------------------


def plan_study(
    pilot_ratings: Iterable[Rating],
    items_options: Sequence[int],
    clinician_options: Sequence[int],
    per_item_options: Sequence[int],
    target_width: float,
    seed: int = 0,
    *,
    quantile: float = DEFAULT_QUANTILE,
    level: float = LEVEL,
    epsilon: float = alt.EPSILON,
    pilot_draws: int = PILOT_DRAWS,
    studies: int = STUDIES,
    tie_rule: str = DEFAULT_TIE_RULE,
    scale: Scale = DEFAULT_SCALE,
) -> PlanResult:
    """For each design (items, clinicians, clinicians per item) and dimension: the planned
    widths of the envelope's two deciding intervals, the alt-test's power, and whether each
    reaches its target (see the module's docstring for the model). The recommended design is
    the one with fewest clinician scores (then fewest clinicians, then items) reaching both
    targets on every dimension with a jury; each verdict's own recommendation beside it."""
    _check_design(items_options, clinician_options, per_item_options, quantile)
    split = split_by_dimension(pilot_ratings, scale)
    refusal = work_refusal(items_options, clinician_options, per_item_options, len(split))
    if refusal:
        raise TooMuchWork(refusal)
    settings = _Settings(target_width, quantile, level, epsilon, pilot_draws, studies)
    designs = designs_of(items_options, clinician_options, per_item_options)
    rows, advice, per_draw = [], [], {}
    sizes, clinicians = {}, {}
    for d, dimension in enumerate(sorted(split)):  # input order never matters
        scores = split[dimension]
        sizes[dimension], clinicians[dimension] = _pilot_size(scores)
        for k in sorted(set(per_item_options)):
            rng = np.random.default_rng([seed, d, k])
            cut = _cut(scores, k, rng, tie_rule, epsilon, scale)
            draws = _draw_pilot(cut, settings, rng)
            mine = [x for x in designs if x.per_item == k]
            pilot = _Pilot(scores, cut, tie_rule, scale)
            for design in mine:
                row, reached = _row(dimension, design, pilot, draws, settings, rng)
                rows.append(row)
                per_draw[id(row)] = np.logical_and(*reached)
            advice += _advice(dimension, k, cut, draws, settings, rng, [x.clinicians for x in mine])
    rows.sort(key=lambda r: (r.dimension, r.design.cost()))
    planned = [d for d in sorted(split) if split[d].jury]  # no jury, no verdict to plan
    by_dimension = {
        d: _cheapest([r for r in rows if r.dimension == d], lambda r: r.reaches_target)
        for d in sorted(split)
    }
    recommended = _everywhere(rows, planned, lambda r: r.reaches_target)
    stability = _stability(rows, planned, per_draw, recommended)
    return PlanResult(
        target_width, quantile, epsilon, level, pilot_draws, studies, rows, recommended,
        _everywhere(rows, planned, lambda r: r.envelope_reaches),
        _everywhere(rows, planned, lambda r: r.alt_test_reaches),
        by_dimension, sizes, clinicians, advice, _warning(sizes), stability, planned,
    )  # fmt: skip


def _check_design(items_options, clinician_options, per_item_options, quantile: float) -> None:
    if not items_options or min(items_options) < MIN_INTERVAL_ITEMS:
        # The dashboards give no interval on fewer items (envelope.MIN_INTERVAL_ITEMS).
        raise ValueError(f"every items option must be {MIN_INTERVAL_ITEMS} or more")
    if not clinician_options or min(clinician_options) < MIN_CLINICIANS:
        raise ValueError(
            f"every number of clinicians must be {MIN_CLINICIANS} or more: the verdicts need "
            "them to say how clinicians vary"
        )
    if not per_item_options or min(per_item_options) < 2:
        raise ValueError("every overlap must be 2 or more: agreement needs two clinicians")
    if not designs_of(items_options, clinician_options, per_item_options):
        raise ValueError("no design: every overlap is larger than every number of clinicians")
    if not 0 < quantile < 1:
        raise ValueError("the quantile planned on must lie between 0 and 1")


def _pilot_size(scores: Scores) -> tuple[int, int]:
    items = [i for i, by in scores.clinicians.items() if len(by) >= 2]
    names = {c for i in items for c in scores.clinicians[i]}
    return len(items), len(names)


def _warning(sizes: dict[str, int]) -> str | None:
    smallest = min(sizes.values(), default=0)
    if smallest >= MIN_PILOT_ITEMS:
        return None
    return (
        f"The pilot has only {smallest} item{'s' if smallest != 1 else ''} scored by two or "
        f"more clinicians (on its thinnest dimension); below {MIN_PILOT_ITEMS} the planned "
        "figures are themselves uncertain: read the ranges over the pilot's draws, not the "
        "single figures."
    )


# --- the pilot, cut to a number of clinicians per item -------------------------------------------


@dataclass(frozen=True)
class _Parts:
    """A figure's variance parts on the cut pilot (crossed.Components' item, clinician and
    interaction parts), averaged over the cuts, with the pilot's sizes."""

    item: float
    clinician: float
    interaction: float
    items: int
    clinicians: float  # effective: (Σ loads)² / Σ loads²
    cells: int


@dataclass(frozen=True)
class _AltPilot:
    """The alt-test's ingredients on the cut pilot: per clinician j the mean of W_h − W_f."""

    mean: float  # μ: the clinicians' mean of their means
    within: float  # the pooled per-item variance of W_h − W_f within a clinician
    between: float  # the variance of the clinicians' means (ddof 1)
    per_clinician: float  # harmonic mean of the clinicians' items
    clinicians: int
    items: int
    items_variance: float  # the variance of μ over resamples of the pilot's items
    clinicians_variance: float  # its delete-one-clinician jackknife variance
    varies: bool  # False: the jury gives every item the same score


@dataclass(frozen=True)
class _Pilot:
    scores: Scores
    cut: _Cut
    tie_rule: str
    scale: Scale = DEFAULT_SCALE


@dataclass(frozen=True)
class _Cut:
    per_item: int
    items: int
    figures: dict[str, _Parts | None]
    reasons: dict[str, str | None]  # why a figure (or the alt-test) cannot be planned
    alt: _AltPilot | None


def _cut(scores: Scores, k: int, rng, tie_rule: str, epsilon: float, scale: Scale) -> _Cut:
    eligible = sorted(i for i, by in scores.clinicians.items() if len(by) >= k)
    with_jury = [i for i in eligible if i in scores.jury]
    if not scores.jury or not with_jury:
        reason = NO_JURY if not scores.jury else NO_JURY_HERE
        if not eligible:
            reason = f"no pilot item has {k} clinicians"
        return _Cut(k, len(eligible), dict.fromkeys(FIGURES), _all(reason), None)
    found: dict[str, list[tuple[Any, float]]] = {f: [] for f in FIGURES}
    alts = []
    many = any(len(scores.clinicians[i]) > k for i in with_jury)
    for _ in range(SUBSAMPLES if many else 1):
        kept = {i: _keep(scores.clinicians[i], k, rng) for i in with_jury}
        loads = Counter(c for by in kept.values() for c in by)
        if len(loads) < MIN_CLINICIANS:
            return _Cut(k, len(with_jury), dict.fromkeys(FIGURES), _all(FEW_PILOT_CLINICIANS), None)
        effective = sum(loads.values()) ** 2 / sum(n * n for n in loads.values())
        jury = {i: scores.jury[i] for i in with_jury}
        parts = env.variance_components(kept, jury, tie_rule=tie_rule, scale=scale)
        for f in FIGURES:
            found[f].append((parts.get(f), effective))
        alts.append(_alt_pilot(kept, jury, rng, tie_rule))
    figures, reasons = {}, {}
    flat = len({s for by in scores.clinicians.values() for s in by.values()}) <= 1
    for f in FIGURES:
        usable = [(p, e) for p, e in found[f] if p is not None and np.isfinite(p.variance)]
        if flat:
            figures[f], reasons[f] = None, NOT_EVIDENCE
        elif not usable:
            figures[f], reasons[f] = None, UNDEFINED
        else:
            figures[f], reasons[f] = _averaged(usable), None
    alt_pilot = _averaged_alt(alts)
    reasons[ALT_TEST] = _alt_reason(alt_pilot)
    return _Cut(k, len(with_jury), figures, reasons, alt_pilot)


def _all(reason: str) -> dict[str, str | None]:
    return dict.fromkeys((*FIGURES, ALT_TEST), reason)


def _keep(by_rater: dict[str, int], k: int, rng) -> dict[str, int]:
    names = sorted(by_rater)
    if len(names) > k:
        names = sorted(rng.choice(names, size=k, replace=False).tolist())
    return {n: by_rater[n] for n in names}


def _averaged(found) -> _Parts:
    parts = [p for p, _ in found]
    return _Parts(
        item=float(np.mean([p.item_part for p in parts])),
        clinician=float(np.mean([p.clinician_part for p in parts])),
        interaction=float(np.mean([p.interaction_part for p in parts])),
        items=parts[0].n_items,
        clinicians=float(np.mean([e for _, e in found])),
        cells=parts[0].n_cells,
    )


def _alt_pilot(kept, jury, rng, tie_rule) -> _AltPilot | None:
    items = sorted(kept)
    names = sorted({c for by in kept.values() for c in by})
    scores = np.full((len(items), len(names)), np.nan)
    column = {n: j for j, n in enumerate(names)}
    for row, item in enumerate(items):
        for name, score in kept[item].items():
            scores[row, column[name]] = score
    values = np.array([float(jury[i]) for i in items])
    per = _differences(scores, values, tie_rule)
    if len(per) < 2:
        return None
    means = np.array([d.mean() for d, _ in per])
    sizes = np.array([len(d) for d, _ in per], dtype=float)
    within = float(sum(((d - d.mean()) ** 2).sum() for d, _ in per) / (sizes - 1).sum())
    # μ over resamples of the pilot's items, these clinicians: the items they share move
    # every clinician's mean together.
    counts = env._draw(rng, ITEM_RESAMPLES, len(items))
    resampled = []
    for d, r in per:
        weights = counts[:, r]
        with np.errstate(all="ignore"):
            resampled.append((weights @ d) / weights.sum(axis=1))
    mu = np.nanmean(np.array(resampled), axis=0)
    return _AltPilot(
        mean=float(means.mean()),
        within=within,
        between=float(means.var(ddof=1)),
        per_clinician=float(len(sizes) / (1 / sizes).sum()),
        clinicians=len(per),
        items=len(items),
        items_variance=float(np.nanvar(mu, ddof=1)),
        clinicians_variance=_jackknife(scores, values, tie_rule),
        varies=float(np.ptp(values)) > 1e-9,
    )


def _differences(scores, values, tie_rule) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per clinician with 2 or more items: W_h − W_f per item, and which rows they are."""
    # On the ordinal scale the pass mark plays no part: the indicators compare whole scores.
    pairs = alt.indicator_differences(
        scores, values, alt.ORDINAL, DEFAULT_SCALE.pass_mark, tie_rule
    )
    rows = [~np.isnan(scores[:, j]) for j in range(scores.shape[1])]
    per = [(h - f, r) for (f, h), r in zip(pairs, rows, strict=True)]
    return [(d, r) for d, r in per if len(d) >= 2]


def _jackknife(scores, values, tie_rule) -> float:
    """The variance of μ over the clinicians, by deleting one at a time: it holds what the
    clinicians' spread alone misses, that the rest each is compared with is a sample too."""
    found = []
    for j in range(scores.shape[1]):
        rest = np.delete(scores, j, axis=1)
        per = _differences(rest, values, tie_rule)
        if per:
            found.append(np.mean([d.mean() for d, _ in per]))
    r = len(found)
    return float((r - 1) / r * np.sum((np.array(found) - np.mean(found)) ** 2)) if r > 1 else 0.0


def _averaged_alt(found: list[_AltPilot | None]) -> _AltPilot | None:
    usable = [a for a in found if a is not None]
    if not usable:
        return None
    first = usable[0]

    def mean(name):
        return float(np.mean([getattr(a, name) for a in usable]))

    return _AltPilot(
        mean("mean"), mean("within"), mean("between"), mean("per_clinician"),
        first.clinicians, first.items, mean("items_variance"), mean("clinicians_variance"),
        all(a.varies for a in usable),
    )  # fmt: skip


def _alt_reason(pilot: _AltPilot | None) -> str | None:
    if pilot is None:
        return "no pilot clinician shares 2 or more items with another and the jury"
    if not pilot.varies:
        return alt.CONSTANT_JURY
    return None


# --- the pilot's uncertainty ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Draws:
    """PILOT_DRAWS values of each uncertain pilot quantity, and the uniforms every design's
    simulated studies are drawn from (common to all designs: they compare alike)."""

    figures: dict[str, _Uncertain | None]
    alt: dict[str, np.ndarray] | None  # mean, between (τ²), common (per item)
    uniforms: np.ndarray  # (3, draws, studies)
    normals: (
        np.ndarray
    )  # (2, draws, studies): the alt-test's shifts from a study's items, clinicians


def _draw_pilot(cut: _Cut, settings: _Settings, rng) -> _Draws:
    draws = max(1, settings.pilot_draws)
    shape = (draws, settings.studies)
    figures = {f: _component_draws(cut.figures[f], draws, rng) for f in FIGURES}
    return _Draws(
        figures,
        _alt_draws(cut.alt, draws, rng),
        rng.random((3, *shape)),
        rng.standard_normal((2, *shape)),
    )


def _posterior(value: float, df: float, u: np.ndarray) -> np.ndarray:
    """A variance part estimated on `df` degrees of freedom: value · df / χ²_df at uniforms u
    (the scaled inverse-χ², the estimate's own uncertainty)."""
    return value * df / stats.chi2.ppf(u, df)


def _component_draws(parts: _Parts | None, draws: int, rng):
    """Per pilot draw: the item and interaction parts relative to the pilot's own, and σ²_β
    per clinician (the clinician component times the pilot's effective clinicians)."""
    if parts is None:
        return None
    u = rng.uniform(0.0005, 0.9995, (3, draws))
    if draws == 1:
        u[:] = 0.5
    dfs = (
        max(1, parts.items - 1),
        max(1.0, parts.clinicians - 1),
        max(1, parts.cells - parts.items - round(parts.clinicians) + 1),
    )
    ones = np.ones(draws)
    item = _posterior(parts.item, dfs[0], u[0]) if parts.item > 0 else ones * 0
    clinician = _posterior(parts.clinician, dfs[1], u[1]) if parts.clinician > 0 else ones * 0
    interaction = _posterior(parts.interaction, dfs[2], u[2]) if parts.interaction > 0 else ones * 0
    return _Uncertain(
        item=item / parts.item if parts.item > 0 else ones,
        interaction=interaction / parts.interaction if parts.interaction > 0 else ones,
        clinician=np.maximum(0, clinician - interaction) * parts.clinicians,
    )


@dataclass(frozen=True)
class _Uncertain:
    """A figure's pilot parts as uncertain: one value per pilot draw."""

    item: float | np.ndarray  # the items' part relative to the pilot's estimate
    interaction: float | np.ndarray  # the interaction's, likewise
    clinician: np.ndarray  # σ²_β: the clinician component per clinician


def _alt_draws(pilot: _AltPilot | None, draws: int, rng) -> dict[str, np.ndarray] | None:
    """Per pilot draw: the jury's mean disadvantage μ, the clinicians' own spread τ², the
    shift a study's sample of clinicians gives them all (per clinician, ×R_pilot) and the
    shift its items give them all (per item)."""
    if pilot is None:
        return None
    df = max(1, pilot.clinicians - 1)
    u = rng.uniform(0.0005, 0.9995, (2, draws))
    z = rng.standard_normal((2, draws))
    if draws == 1:
        u[:], z[:] = 0.5, 0.0
    noise = pilot.within / pilot.per_clinician
    between = _posterior(pilot.between, df, u[0]) if pilot.between > 0 else np.zeros(draws)
    spread = np.maximum(0, between - noise)  # τ²: the clinicians' own differences
    clinicians = (
        _posterior(pilot.clinicians_variance, df, u[1])
        if pilot.clinicians_variance > 0
        else np.zeros(draws)
    )
    independent = noise / pilot.clinicians
    common = max(0.0, pilot.items_variance - independent) * pilot.items  # per item
    mean = pilot.mean + np.sqrt(pilot.items_variance) * z[0] + np.sqrt(clinicians) * z[1]
    return {
        "mean": mean,
        "spread": spread,
        "sample": np.maximum(0, clinicians * pilot.clinicians - spread),
        "common": np.full(draws, common),
    }


# --- one design ----------------------------------------------------------------------------------


def _row(dimension, design: Design, pilot: _Pilot, draws: _Draws, settings: _Settings, rng):
    """One design on one dimension, and per pilot draw whether it reaches each target."""
    figures: dict[str, Planned] = {}
    reached = {}
    cut = pilot.cut
    synthetic = (
        synthetic_components(pilot.scores, design, rng, pilot.tie_rule, pilot.scale)
        if any(draws.figures[f] is not None for f in FIGURES)
        else dict.fromkeys(FIGURES)
    )
    for f in FIGURES:
        figures[f], reached[f] = _planned_width(design, cut, draws, f, settings, synthetic)
    figures[ALT_TEST], reached[ALT_TEST] = _planned_power(design, cut, draws, settings, rng)
    envelope = np.logical_and(reached[FIGURES[0]], reached[FIGURES[1]])
    shares = {
        "envelope": float(envelope.mean()) if all(figures[f].value for f in FIGURES) else None,
        "alt": float(reached[ALT_TEST].mean()) if figures[ALT_TEST].value is not None else None,
    }
    row = PlanRow(dimension, design, figures, shares["envelope"], shares["alt"])
    return row, (envelope, reached[ALT_TEST])


def synthetic_components(
    scores: Scores, design: Design, rng, tie_rule: str, scale: Scale = DEFAULT_SCALE
) -> dict:
    """Each figure's (items, clinicians, interaction) components on studies of the design made
    from the pilot, through the envelope's own `variance_components`: `design.items` pilot
    items drawn with replacement, each given `per_item` of the design's clinicians (at random
    among the least loaded) whose scores are those of as many distinct pilot clinicians on
    that item, drawn afresh per item. So the study has the design's pairs and their sparsity
    (a kappa on few shared items is noisy, and that noise is the verdict's too) but no
    clinician who differs from another: the clinician term is added from the pilot."""
    eligible = sorted(i for i, by in scores.clinicians.items() if len(by) >= design.per_item)
    eligible = [i for i in eligible if i in scores.jury]
    found: dict[str, list] = {f: [] for f in FIGURES}
    for _ in range(SYNTHETIC):
        drawn = rng.choice(len(eligible), size=design.items)
        raters = balanced_raters(rng, design.items, design.clinicians, design.per_item)
        clinicians, jury = {}, {}
        for n, (index, chosen) in enumerate(zip(drawn, raters, strict=True)):
            item = eligible[index]
            pilot = scores.clinicians[item]
            sources = rng.choice(sorted(pilot), size=design.per_item, replace=False)
            clinicians[f"s{n}"] = {f"c{c}": pilot[s] for c, s in zip(chosen, sources, strict=True)}
            jury[f"s{n}"] = scores.jury[item]
        parts = env.variance_components(clinicians, jury, tie_rule=tie_rule, scale=scale)
        for f in FIGURES:
            part = parts.get(f)
            if part is not None and np.isfinite(part.variance):
                found[f].append((part.items, part.clinicians, part.interaction))
    return {f: tuple(np.mean(v, axis=0)) if v else None for f, v in found.items()}


def balanced_raters(rng, items: int, clinicians: int, per_item: int) -> list[np.ndarray]:
    """Each item's clinicians: `per_item` at random among the least loaded so far, so every
    clinician scores about items × per_item / clinicians items and pairs fall at random."""
    loads = np.zeros(clinicians)
    chosen = []
    for _ in range(items):
        raters = np.lexsort((rng.random(clinicians), loads))[:per_item]
        loads[raters] += 1
        chosen.append(raters)
    return chosen


def projected(synthetic, uncertain: _Uncertain, design: Design):
    """A figure's variance parts in a study of the design, per pilot draw: the item, clinician
    and interaction parts as crossed.Components has them."""
    items, artefact, interaction = synthetic
    interaction = interaction * uncertain.interaction
    clinician = artefact * uncertain.interaction + uncertain.clinician / design.clinicians
    return (
        items * uncertain.item + interaction,
        clinician + interaction,
        interaction + 0 * clinician,
    )


def study_widths(parts, design: Design, uniforms: np.ndarray, level: float) -> np.ndarray:
    """Each simulated study's interval width: its parts drawn on their degrees of freedom
    (χ²/df), then the envelope's variance and Satterthwaite df (crossed.Components) and
    2 · t · √variance. parts: three (draws,) arrays; uniforms (3, draws, studies)."""
    dfs = (
        max(1, design.items - 1),
        max(1, design.clinicians - 1),
        max(1, design.ratings - design.items - design.clinicians + 1),
    )
    item, clinician, interaction = (
        part[:, None] * stats.chi2.ppf(u, df) / df
        for part, u, df in zip(parts, uniforms, dfs, strict=True)
    )
    return _widths(item, clinician, interaction, dfs, level)


def _widths(item, clinician, interaction, dfs, level) -> np.ndarray:
    items_left = item > interaction
    clinicians_left = clinician > interaction
    variance = (
        np.maximum(0, item - interaction) + np.maximum(0, clinician - interaction) + interaction
    )
    with np.errstate(all="ignore"):
        both = (item + clinician - interaction) ** 2 / (
            item**2 / dfs[0] + clinician**2 / dfs[1] + interaction**2 / dfs[2]
        )
    df = np.where(
        items_left & clinicians_left,
        both,
        np.where(items_left, dfs[0], np.where(clinicians_left, dfs[1], dfs[2])),
    )
    df = np.maximum(1.0, np.nan_to_num(df, nan=1.0))
    return 2 * stats.t.ppf(0.5 + level / 2, df) * np.sqrt(variance)


def _planned_width(design, cut: _Cut, draws: _Draws, f: str, settings, synthetic):
    none = np.zeros(max(1, settings.pilot_draws), dtype=bool)
    uncertain = draws.figures[f]
    if uncertain is None:
        return Planned(None, reason=cut.reasons[f]), none
    if synthetic[f] is None:
        return Planned(None, reason=UNDEFINED_HERE), none
    parts = projected(synthetic[f], uncertain, design)
    widths = study_widths(parts, design, draws.uniforms, settings.level)
    if not np.nanmax(widths) > 1e-12:
        return Planned(None, reason=NOT_EVIDENCE), none
    value = float(np.quantile(widths, settings.quantile))
    per_draw = np.quantile(widths, settings.quantile, axis=1)
    return (
        Planned(
            value,
            float(np.median(widths)),
            _range(per_draw),
            value <= settings.target,
            unlimited=_unlimited_width(uncertain, design.clinicians, draws, settings),
        ),
        per_draw <= settings.target,
    )


def _unlimited_width(uncertain: _Uncertain, clinicians: int, draws: _Draws, settings) -> float:
    """The planned width with unlimited items: only the clinician term is left."""
    df = max(1, clinicians - 1)
    chi = stats.chi2.ppf(draws.uniforms[1], df) / df
    part = uncertain.clinician[:, None] / clinicians * chi
    widths = 2 * stats.t.ppf(0.5 + settings.level / 2, df) * np.sqrt(part)
    return float(np.quantile(widths, settings.quantile))


def _planned_power(design: Design, cut: _Cut, draws: _Draws, settings: _Settings, rng):
    none = np.zeros(max(1, settings.pilot_draws), dtype=bool)
    if cut.reasons[ALT_TEST] or draws.alt is None:
        return Planned(None, reason=cut.reasons[ALT_TEST]), none
    unlimited = _unlimited_power(draws.alt, design.clinicians, settings, rng)
    n = design.items_per_clinician
    if n < alt.MIN_ITEMS:
        reason = (
            f"each clinician would score {n:.0f} items ({design.items} × {design.per_item} / "
            f"{design.clinicians}); the alt-test needs {alt.MIN_ITEMS} each"
        )
        return Planned(0.0, reaches=False, reason=reason, unlimited=unlimited), none
    stands = _stands_in(draws.alt, cut.alt, design, draws, settings, rng)
    power = float(stands.mean())
    per_draw = stands.mean(axis=1)
    return (
        Planned(
            power,
            None,
            _range(per_draw),
            power >= settings.quantile,
            unlimited=unlimited,
        ),
        per_draw >= settings.quantile,
    )


def _stands_in(params, pilot: _AltPilot, design: Design, draws: _Draws, settings, rng):
    """(draws, studies): whether each simulated study's alt-test finds the jury can stand in,
    through the per-clinician one-sided t-test, BY across clinicians and ω ≥ 0.5."""
    n = design.items_per_clinician
    shape = (*draws.uniforms.shape[1:], design.clinicians)
    own = rng.standard_normal(shape) * np.sqrt(params["spread"])[:, None, None]
    shared = draws.normals[0] * np.sqrt(params["common"] / design.items)[:, None]
    shared = shared + draws.normals[1] * np.sqrt(params["sample"] / design.clinicians)[:, None]
    noise = rng.standard_normal(shape) * np.sqrt(pilot.within / n)
    means = params["mean"][:, None, None] + shared[..., None] + own + noise
    df = max(1, round(n) - 1)
    sd = np.sqrt(pilot.within * rng.chisquare(df, shape) / df)
    with np.errstate(all="ignore"):
        t = (means - settings.epsilon) / (sd / np.sqrt(n))
    p = np.where(sd > 1e-12, stats.t.cdf(t, df), (means >= settings.epsilon).astype(float))
    wins = alt.by_rejection_counts(p, alt.Q)
    return wins / design.clinicians >= alt.WINNING_RATE


def _unlimited_power(params, clinicians: int, settings: _Settings, rng) -> float:
    """The power with unlimited items per clinician: each clinician is won exactly when its
    true mean lies below ε, so the verdict turns on how many clinicians do."""
    draws = len(params["mean"])
    own = rng.standard_normal((draws, 200, clinicians)) * np.sqrt(params["spread"])[:, None, None]
    sample = (
        rng.standard_normal((draws, 200, 1)) * np.sqrt(params["sample"] / clinicians)[:, None, None]
    )
    below = params["mean"][:, None, None] + sample + own < settings.epsilon
    return float((below.mean(axis=-1) >= alt.WINNING_RATE).mean())


def _range(per_draw: np.ndarray) -> tuple[float, float] | None:
    values = per_draw[np.isfinite(per_draw)]
    if len(values) < 2:
        return None
    low, high = np.quantile(values, RANGE)
    return float(low), float(high)


# --- how many clinicians -------------------------------------------------------------------------


def _advice(dimension, k, cut: _Cut, draws: _Draws, settings, rng, tried) -> list[Advice]:
    """Per verdict: the fewest clinicians with which unlimited items would reach the target,
    and the numbers tried with which more items would not help."""
    found = []
    for f in FIGURES:
        if draws.figures[f] is None:
            continue

        def reaches(r, f=f):
            return _unlimited_width(draws.figures[f], r, draws, settings) <= settings.target

        found.append(_advice_for(dimension, f, k, reaches, tried, settings))
    if not cut.reasons[ALT_TEST] and draws.alt is not None:

        def stands(r):
            return _unlimited_power(draws.alt, r, settings, rng) >= settings.quantile

        found.append(_advice_for(dimension, ALT_TEST, k, stands, tried, settings))
    return found


def _advice_for(dimension, verdict, k, reaches, tried, settings) -> Advice:
    needed = _fewest(reaches)
    hopeless = tuple(r for r in sorted(set(tried)) if needed is None or r < needed)
    name = "the alt-test" if verdict == ALT_TEST else f"the {FIGURE_LABELS[verdict]} interval"
    goal = (
        f"a power of {settings.quantile:.0%}"
        if verdict == ALT_TEST
        else f"a width of {settings.target:g}"
    )
    if needed is None:
        text = (
            f"{name} ({k} clinicians per item): no number of clinicians up to "
            f"{MOST_CLINICIANS} reaches {goal}, whatever the items"
        )
        if verdict == ALT_TEST:
            text += ": the pilot's jury looks worse than a clinician by about ε or more"
    else:
        text = f"{name} ({k} clinicians per item) needs at least {needed} clinicians"
        if hopeless:
            listed = ", ".join(map(str, hopeless))
            text += (
                f"; with {listed} no number of items reaches {goal}: more items would not help, "
                "more clinicians would"
            )
    return Advice(dimension, verdict, k, needed, hopeless, text)


def _fewest(reaches) -> int | None:
    """The smallest number of clinicians (from 3) for which `reaches` holds, searching by
    doubling then halving (more clinicians never plan a wider interval)."""
    low, high = MIN_CLINICIANS, MIN_CLINICIANS
    if reaches(low):
        return low
    while not reaches(high):
        if high >= MOST_CLINICIANS:
            return None
        low, high = high, min(MOST_CLINICIANS, high * 2)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    return high


# --- choosing ------------------------------------------------------------------------------------


def _cheapest(rows: Sequence[PlanRow], ok) -> Design | None:
    reaching = [r.design for r in rows if ok(r)]
    return min(reaching, key=Design.cost, default=None)


def _everywhere(rows: Sequence[PlanRow], dimensions: list[str], ok) -> Design | None:
    """The cheapest design reaching on every planned dimension."""
    if not dimensions:
        return None
    designs = sorted({r.design for r in rows}, key=Design.cost)
    for design in designs:
        mine = [r for r in rows if r.design == design and r.dimension in dimensions]
        if len(mine) == len(dimensions) and all(ok(r) for r in mine):
            return design
    return None


def _stability(rows, dimensions, reach, recommended) -> Stability:
    """The recommendation under each pilot draw: reach[id(row)] says, per draw, whether the
    row reaches both targets."""
    if not rows or not dimensions:
        return Stability(0, 0.0, [])
    draws = len(next(iter(reach.values())))
    designs = sorted({r.design for r in rows}, key=Design.cost)
    found: Counter = Counter()
    for c in range(draws):
        chosen = None
        for design in designs:
            mine = [r for r in rows if r.design == design and r.dimension in dimensions]
            if len(mine) == len(dimensions) and all(reach[id(r)][c] for r in mine):
                chosen = design.as_tuple()
                break
        found[chosen] += 1
    shares = sorted(
        ((d, n / draws) for d, n in found.items()),
        key=lambda x: (-x[1], Design(*x[0]).cost() if x[0] else (np.inf,)),
    )
    same = found.get(recommended.as_tuple() if recommended else None, 0) / draws
    return Stability(draws, same, shares)


def assumptions(plan: PlanResult) -> list[str]:
    """What the plan assumes, in words, for the page and the CLI."""
    return [
        f"the envelope's intervals at {plan.level:.0%}, clinicians resampled: width "
        "2·t·√(σ²_items/N + σ²_clinicians/R + σ²_interaction/ratings), the components measured "
        "on the pilot as the envelope measures them, t on Satterthwaite's df",
        f"the alt-test on the scores (−RMSE), ε = {plan.epsilon:g}, Benjamini–Yekutieli at "
        f"q = {alt.Q:g} across one dimension's clinicians, ω ≥ {alt.WINNING_RATE:g}; the "
        "family-wide BY across dimensions asks a little more",
        "each item scored by the design's clinicians per item, drawn at random from its "
        "clinicians, so every clinician scores about items × per item / clinicians items",
        "new items and new clinicians like the pilot's: the pilot's components and its jury's "
        "advantage carry over",
        f"the pilot's own uncertainty folded in: {plan.pilot_draws} draws of each component on "
        f"its degrees of freedom, {plan.studies} simulated studies each; planned on the width "
        f"{plan.quantile:.0%} of studies stay under and on {plan.quantile:.0%} power",
    ]
