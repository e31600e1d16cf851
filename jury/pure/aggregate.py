"""From judges' answers to a panel's verdict, a conversation's weighted aggregate and the
leaderboard PatientAgentBench publishes (aggregate, then per dimension `mean [pass%]`).

Only `ok` answers are numbers. Not applicable, unparseable and error answers are left out
and counted, at every level, so a figure always says how many answers it stands on and how
many it left out (DESIGN §5: neither is ever turned into a number). A panel with no usable
judge has no score and no verdict, not a zero and not a fail.

Intervals: Wilson (statsmodels) on pass rates, because a pass rate near 0 or 1 on a few
dozen conversations is where the normal approximation fails; a seeded bootstrap over
conversations on means (`analysis.statistics.bootstrap_ci`), because conversations, not
judge calls, are the independent units.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from patientagentbench.analysis.headline import Minimum, interval_withheld
from patientagentbench.analysis.statistics import bootstrap_ci
from ratings.rating import NO_SCORE_STATUSES as EXCLUDED_STATUSES
from ratings.rating import OK as OK
from ratings.rating import STATUSES as STATUSES
from ratings.rubric import Scale, cached_rubric
from ratings.scale import DEFAULT_SCALE

METHODS = ("mean", "median", "majority")
LEVEL = 0.95
RESAMPLES = 2000
NO_VALUE = "(none)"


# --- one panel on one dimension of one conversation --------------------------------------------


@dataclass(frozen=True)
class PanelScore:
    score: float | None  # mean (mean, majority) or median of the usable judges
    passed: bool | None
    spread: int | None  # max − min of the usable judges' scores
    agree_share: float | None  # share of usable judges whose own pass equals the verdict
    n_used: int
    n_excluded: dict[str, int] = field(default_factory=dict)  # status -> judges left out


def panel_score(
    judge_results: Iterable[Any], method: str = "mean", scale: Scale = DEFAULT_SCALE
) -> PanelScore:
    """Combine one dimension's judge answers (objects or dicts with `status` and `score`) on
    the panel rubric's scale.

    mean / median: the verdict passes when that statistic is at or above the pass mark.
    majority: it passes when more than half of the usable judges pass; the score shown is
    the mean. A tie is not a majority, so it fails.
    """
    if method not in METHODS:
        raise ValueError(f"unknown aggregation {method!r}; one of {', '.join(METHODS)}")
    scores, excluded = usable_scores(judge_results, scale)
    if not scores:
        return PanelScore(None, None, None, None, 0, excluded)
    threshold = scale.pass_mark
    passes = [s >= threshold for s in scores]
    if method == "majority":
        score, passed = statistics.fmean(scores), sum(passes) * 2 > len(scores)
    else:
        score = statistics.fmean(scores) if method == "mean" else statistics.median(scores)
        passed = score >= threshold
    agree = sum(p == passed for p in passes) / len(scores)
    return PanelScore(float(score), passed, max(scores) - min(scores), agree, len(scores), excluded)


# --- repetitions of a panel verdict: combined once, for every page ----------------------------


@dataclass(frozen=True)
class RepeatedScore:
    """A panel's verdict on one conversation and dimension over the judge's repetitions."""

    score: float | None  # mean of the repetitions that have a score
    passed: bool | None  # a majority of the repetitions pass (a tie fails)
    status: str  # OK, or why no repetition has a score


def repetition_mean(scores: Sequence[float]) -> float | None:
    return statistics.fmean(scores) if scores else None


def repetition_majority(passes: Sequence[bool]) -> bool | None:
    return sum(passes) * 2 > len(passes) if passes else None


def combine_repetitions(panels: Iterable[PanelScore]) -> RepeatedScore:
    """The one way repetitions combine: the leaderboard, version comparisons and the
    agreement dashboards all read a conversation's panel verdict through this."""
    panels = list(panels)
    numbers = [p.score for p in panels if p.score is not None]
    passes = [p.passed for p in panels if p.passed is not None]
    excluded: Counter[str] = Counter()
    for panel in panels:
        excluded.update(panel.n_excluded)
    return RepeatedScore(
        score=repetition_mean(numbers),
        passed=repetition_majority(passes),
        status=OK if numbers else no_score_status(excluded),
    )


def no_score_status(excluded: Mapping[str, int]) -> str:
    """A verdict without a usable judge: not applicable only when every judge said so;
    otherwise the worst failure (a provider error first, then a forbidden N/A, a cut answer,
    an unparseable one)."""
    worst_first = ("error", "na_not_allowed", "truncated", "unparseable")
    return next((status for status in worst_first if excluded.get(status)), "not_applicable")


def usable_scores(
    judge_results: Iterable[Any], scale: Scale = DEFAULT_SCALE
) -> tuple[list[int], dict[str, int]]:
    """The `ok` scores, and per excluded status how many answers were left out."""
    scores: list[int] = []
    excluded: Counter[str] = Counter({status: 0 for status in EXCLUDED_STATUSES})
    for result in judge_results:
        status, score = _field(result, "status"), _field(result, "score")
        if status not in STATUSES:
            raise ValueError(f"unknown verdict status {status!r}; one of {', '.join(STATUSES)}")
        if status == OK:
            scores.append(_checked_score(score, scale))
        else:
            excluded[status] += 1
    return scores, dict(excluded)


def _checked_score(score: Any, scale: Scale) -> int:
    # An "ok" answer without a valid score is a bug upstream, never something to average.
    if not isinstance(score, int) or score not in scale:
        raise ValueError(f"an ok verdict needs an integer score from {scale.span}, got {score!r}")
    return score


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


# --- one conversation: the weighted aggregate ----------------------------------------------------


@dataclass(frozen=True)
class WeightedScore:
    score: float | None
    used: tuple[str, ...]
    left_out: tuple[str, ...]  # weighted dimensions with no score


def weighted_detail(
    dim_scores: Mapping[str, float | None], weights: Mapping[str, float]
) -> WeightedScore:
    """The weighted mean over the dimensions that have a score, weights renormalised over
    them; dimensions without a weight (realism) take no part."""
    used = tuple(d for d in weights if _number(dim_scores.get(d)))
    left_out = tuple(d for d in weights if d not in used)
    total = sum(weights[d] for d in used)
    if not used or total <= 0:
        return WeightedScore(None, used, left_out)
    return WeightedScore(sum(weights[d] * dim_scores[d] for d in used) / total, used, left_out)


def weighted_aggregate(
    dim_scores: Mapping[str, float | None], weights: Mapping[str, float]
) -> float | None:
    """`weighted_detail(...).score`; use `weighted_detail` to say how many were left out."""
    return weighted_detail(dim_scores, weights).score


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# --- per model: the leaderboard ------------------------------------------------------------------


@dataclass(frozen=True)
class MeanCI:
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int  # conversations with a value
    n_missing: int  # conversations without one (every judge left out, or no dimension)
    # Why there is no interval where one was drawn: every resample gave the same mean, and
    # "4.00–4.00" would read as a certainty no sample gives.
    withheld: str = ""


@dataclass(frozen=True)
class DimensionCell:
    mean: MeanCI
    passed: int
    n_verdicts: int  # conversations with a pass/fail verdict on this dimension
    pass_rate: float | None
    pass_ci_low: float | None
    pass_ci_high: float | None

    @property
    def label(self) -> str:
        """PatientAgentBench's `mean [pass%]`."""
        if self.mean.mean is None:
            return "–"
        rate = "–" if self.pass_rate is None else f"{100 * self.pass_rate:.0f}%"
        return f"{self.mean.mean:.2f} [{rate}]"


@dataclass(frozen=True)
class ModelRow:
    model: str
    n: int  # conversations
    aggregate: MeanCI
    dimensions: dict[str, DimensionCell]


def leaderboard(
    rows: Iterable[Mapping[str, Any]],
    weights: Mapping[str, float],
    seed: int = 0,
    *,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> list[ModelRow]:
    """Per model, best aggregate first. `rows`: dicts with model, conversation, dimension,
    score (panel score or None) and passed (bool or None); one per conversation and
    dimension (repetitions are averaged within a conversation before anything else)."""
    by_model: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_model[str(row["model"])].append(row)
    table = [
        _model_row(model, model_rows, weights, seed, n_resamples, level)
        for model, model_rows in by_model.items()
    ]
    return sorted(
        table, key=lambda r: (r.aggregate.mean is None, -(r.aggregate.mean or 0), r.model)
    )


def breakdown(
    rows: Iterable[Mapping[str, Any]],
    attribute: str,
    weights: Mapping[str, float] | None = None,
    seed: int = 0,
    **options: Any,
) -> dict[str, list[ModelRow]]:
    """The leaderboard per value of a case attribute, read from the row itself or from its
    `attributes` dict; a list value (conditions) counts the conversation under each.
    Weights default to the current rubric's."""
    weights = cached_rubric().weights if weights is None else weights
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        for value in _attribute_values(row, attribute):
            groups[value].append(row)
    return {value: leaderboard(groups[value], weights, seed, **options) for value in sorted(groups)}


def _attribute_values(row: Mapping[str, Any], attribute: str) -> list[str]:
    attributes = row.get("attributes") if isinstance(row.get("attributes"), Mapping) else {}
    value = row[attribute] if attribute in row else attributes.get(attribute)
    if isinstance(value, list | tuple):
        return [str(v) for v in value] or [NO_VALUE]
    return [NO_VALUE if value is None or value == "" else str(value)]


def _model_row(model, rows, weights, seed, n_resamples, level) -> ModelRow:
    cells = _per_conversation(rows)  # conversation -> dimension -> (scores, passes)
    dimensions = sorted({d for per_dim in cells.values() for d in per_dim}, key=_order(weights))
    aggregates = [
        weighted_aggregate({d: repetition_mean(s) for d, (s, _) in per_dim.items()}, weights)
        for per_dim in cells.values()
    ]
    return ModelRow(
        model=model,
        n=len(cells),
        aggregate=_mean_ci(aggregates, seed, n_resamples, level),
        dimensions={d: _dimension_cell(cells, d, seed, n_resamples, level) for d in dimensions},
    )


def _per_conversation(rows) -> dict[str, dict[str, tuple[list[float], list[bool]]]]:
    cells: dict[str, dict[str, tuple[list[float], list[bool]]]] = defaultdict(dict)
    for row in rows:
        scores, passes = cells[str(row["conversation"])].setdefault(row["dimension"], ([], []))
        if _number(row.get("score")):
            scores.append(float(row["score"]))
        if isinstance(row.get("passed"), bool):
            passes.append(row["passed"])
    return cells


def _dimension_cell(cells, dimension: str, seed, n_resamples, level) -> DimensionCell:
    present = [per_dim[dimension] for per_dim in cells.values() if dimension in per_dim]
    means = [repetition_mean(scores) for scores, _ in present]
    verdicts = [repetition_majority(p) for _, p in present if p]
    passed = sum(verdicts)
    low, high = wilson(passed, len(verdicts), level)
    return DimensionCell(
        mean=_mean_ci(means, seed, n_resamples, level),
        passed=passed,
        n_verdicts=len(verdicts),
        pass_rate=passed / len(verdicts) if verdicts else None,
        pass_ci_low=low,
        pass_ci_high=high,
    )


def wilson(successes: int, trials: int, level: float = LEVEL) -> tuple[float | None, float | None]:
    """Wilson score interval of a pass rate; (None, None) without trials."""
    if trials <= 0:
        return None, None
    low, high = proportion_confint(successes, trials, alpha=1 - level, method="wilson")
    return float(low), float(high)


# Only a zero width withholds a leaderboard interval here (the bootstrap's own n rules stand).
ANY_N = Minimum(0, "")


def _mean_ci(values: list[float | None], seed, n_resamples, level) -> MeanCI:
    present = [v for v in values if v is not None]
    missing = len(values) - len(present)
    if not present:
        return MeanCI(None, None, None, 0, missing)
    interval = bootstrap_ci(present, n=n_resamples, seed=seed, level=level)
    low, high = interval["ci_low"], interval["ci_high"]
    withheld = "" if low is None else interval_withheld(low, high, len(present), ANY_N)
    if withheld:
        low = high = None
    return MeanCI(
        mean=statistics.fmean(present),
        ci_low=None if low is None else float(low),
        ci_high=None if high is None else float(high),
        n=len(present),
        n_missing=missing,
        withheld=withheld,
    )


def _order(weights: Mapping[str, float]):
    """Weighted dimensions in the rubric's order, anything else after, by name."""
    keys = list(weights)
    return lambda d: (keys.index(d) if d in keys else len(keys), d)
