"""Judge validity: does a judge's score separate the conversations that passed their automatic
outcome checks from those that failed? Consistency is not correctness (the seed paper's own
warning): a judge can repeat itself perfectly and still rank failing conversations higher.

Per judge × dimension (and for the panel's own verdict):

- one score per conversation: the mean of the judge's scored (`ok`) readings of it, so a
  conversation read K times still counts once (readings of one conversation are not
  independent);
- AUC = P(a passing conversation scores higher than a failing one), ties counted half (the
  Mann–Whitney U over n_pass × n_fail);
- its 95% interval: the hull of two. Newcombe's (2006, method 5) score interval uses
  Hanley–McNeil's variance, which assumes smooth, unimodal scores; where a judge's scores
  are polarised (the passing conversations scored 1 or 5, the failing ones not) the AUC
  varies far more than that and Newcombe's interval covered only 0.59 (issue 35). So the
  interval also takes Clopper–Pearson's exact binomial interval at the AUC's effective size,
  AUC(1 − AUC) / DeLong's variance (the data's own spread, rank-based; when DeLong's variance
  is 0 — an AUC of 0 or 1 — the smaller group's size, the most the Birnbaum–Klose bound on
  the variance allows). Clopper–Pearson, not Wilson: at 5–10 a group Wilson's interval dips
  to 0.90–0.92 on polarised scores. `benchmarks/auc_coverage.py` measures coverage of the
  true AUC on 1–5 scores with ties, smooth and polarised, at 5–50 a group (1,000 studies a
  cell): 0.951–0.996 smooth, 0.933–1.000 polarised, false `separates`/`inverts` at a true AUC
  of 0.5 in at most 4.9% of studies (Newcombe's alone: 0.60–0.99 and up to 40%). The price: with 5 in a group even a perfect split (AUC 1) stays `not enough evidence`
  (the exact interval at 5 reaches down to 0.48), which is what 5 conversations can show;
- each group's size and mean score;
- a verdict: `separates` only when the interval lies wholly above 0.5, `inverts` when it lies
  wholly below, `not enough evidence` otherwise, and always when a group has fewer than
  MIN_GROUP conversations or the scores do not vary;
- for `not enough evidence`, how many conversations per group would decide it if the AUC
  stayed where it is (`per_group_to_decide`: the smallest equal groups whose Newcombe interval
  at that AUC excludes 0.5);
- a jury's standing on validity (`standing`): `inverts` when any dimension inverts,
  `separates` when every dimension separates, `not enough evidence` otherwise, with each
  dimension's figures, so every page that shows a jury's calibration shows this beside it.

Agreement with reference scores is a calibration round's result, computed by the clinician's
own calibration functions and stored as a `JudgeQualification` (annotation.judge_calibration).

Pure: plain data in, plain data out.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import fmean
from typing import Any

import numpy as np
from scipy import optimize, stats

SEPARATES = "separates"
INVERTS = "inverts"
NOT_ENOUGH = "not enough evidence"
MIN_GROUP = 5
LEVEL = 0.95
PANEL = "panel"  # the judge name of the panel's own verdict
# "Consistent" for the warning: test–retest exact agreement at or above this.
CONSISTENT_EXACT = 0.8
DELONG_LOGIT = "DeLong (logit)"
# The search for conversations per group that would decide a verdict stops here.
MOST_PER_GROUP = 100_000
NEWCOMBE = "Newcombe score (method 5)"
# The interval reported: Newcombe's, widened where the scores are spread more than it assumes.
REPORTED = "Newcombe score (method 5) joined with Clopper–Pearson at DeLong's effective size"


@dataclass(frozen=True)
class Separation:
    judge: str
    dimension: str
    n_pass: int
    n_fail: int
    mean_pass: float | None
    mean_fail: float | None
    auc: float | None
    low: float | None
    high: float | None
    method: str
    verdict: str
    reason: str  # one sentence: why this verdict
    # AUC(1 − AUC) / DeLong's variance over the smaller group's size: 1 when the scores are
    # spread as a binomial's would be; what `per_group_to_decide` scales by
    effective_share: float | None = None

    @property
    def inverted_point(self) -> bool:
        """Failing conversations scored higher on average (the point estimate, not a test)."""
        return self.auc is not None and self.auc < 0.5


# --- the statistic -------------------------------------------------------------------------


def auc(passing: Iterable[float], failing: Iterable[float]) -> float | None:
    """P(passing > failing) + ½ P(tie); None when a group is empty."""
    x, y = np.asarray(list(passing), float), np.asarray(list(failing), float)
    if not len(x) or not len(y):
        return None
    return float(_placements(x, y).mean())


def _placements(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """psi[i, j] = 1 if x_i > y_j, ½ on a tie, 0 otherwise."""
    diff = x[:, None] - y[None, :]
    return (diff > 0) + 0.5 * (diff == 0)


def delong_variance(x: np.ndarray, y: np.ndarray) -> float:
    """DeLong, DeLong & Clarke-Pearson (1988): the variance of the AUC from the structural
    components (ties counted half), S10/m + S01/n."""
    psi = _placements(x, y)
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    m, n = len(x), len(y)
    s10 = v10.var(ddof=1) if m > 1 else 0.0
    s01 = v01.var(ddof=1) if n > 1 else 0.0
    return float(s10 / m + s01 / n)


def delong_logit_interval(x, y, level: float = LEVEL) -> tuple[float, float] | None:
    """DeLong's variance carried to logit(AUC) by the delta method; None when the AUC is 0 or
    1 or its variance is 0 (the logit is then undefined). Not reported: it under-covers at
    small n (benchmarks/auc_coverage.py compares it)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    a = float(_placements(x, y).mean())
    var = delong_variance(x, y)
    if a <= 0 or a >= 1 or var <= 0:
        return None
    z = stats.norm.ppf(0.5 + level / 2)
    centre, half = math.log(a / (1 - a)), z * math.sqrt(var) / (a * (1 - a))
    return _expit(centre - half), _expit(centre + half)


def newcombe_interval(a: float, m: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Newcombe (2006), method 5: the θ with |a − θ| = z·sd(θ), Hanley–McNeil's variance with
    N* = (m + n)/2 − 1 (a score interval: defined at a = 0 or 1, inside [0, 1])."""
    z = stats.norm.ppf(0.5 + level / 2)
    star = (m + n) / 2 - 1

    def sd(theta: float) -> float:
        extra = 1 + star * (1 - theta) / (2 - theta) + star * theta / (1 + theta)
        return math.sqrt(max(theta * (1 - theta) * extra / (m * n), 0.0))

    def gap(theta: float) -> float:
        return abs(a - theta) - z * sd(theta)

    # At a = 0 or 1 the sd vanishes there too, so θ = a is a trivial root: bracket just inside.
    inner_low, inner_high = min(a, 1 - 1e-12), max(a, 1e-12)
    low = 0.0 if gap(0.0) <= 0 else optimize.brentq(gap, 0.0, inner_low)
    high = 1.0 if gap(1.0) <= 0 else optimize.brentq(gap, inner_high, 1.0)
    return float(low), float(high)


def effective_size(x, y) -> float:
    """AUC(1 − AUC) / DeLong's variance: how many independent 0/1 comparisons the AUC is
    worth; the smaller group's size where that variance is 0 (Birnbaum & Klose 1957: the
    AUC's variance is at most AUC(1 − AUC) / min(m, n))."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    a = float(_placements(x, y).mean())
    variance = delong_variance(x, y)
    smaller = float(min(len(x), len(y)))
    if variance <= 0 or a <= 0 or a >= 1:
        return smaller
    return max(a * (1 - a) / variance, 1.0)


def clopper_pearson(a: float, size: float, level: float = LEVEL) -> tuple[float, float]:
    """The exact binomial interval for a share `a` of `size` trials (fractional sizes by the
    beta quantiles)."""
    k, tail = a * size, (1 - level) / 2
    low = 0.0 if k <= 0 else float(stats.beta.ppf(tail, k, size - k + 1))
    high = 1.0 if k >= size else float(stats.beta.ppf(1 - tail, k + 1, size - k))
    return low, high


def hull_interval(
    a: float, m: int, n: int, size: float, level: float = LEVEL
) -> tuple[float, float]:
    """Newcombe's interval joined with Clopper–Pearson's at `size`: the wider of each end."""
    low, high = newcombe_interval(a, m, n, level)
    exact_low, exact_high = clopper_pearson(a, size, level)
    return min(low, exact_low), max(high, exact_high)


def auc_interval(x, y, level: float = LEVEL) -> tuple[float, float, str]:
    """The interval this module reports, and which method gave it."""
    a = auc(x, y)
    if a is None:
        raise ValueError("an AUC interval needs both groups")
    return (*hull_interval(a, len(x), len(y), effective_size(x, y), level), REPORTED)


def _expit(v: float) -> float:
    return 1 / (1 + math.exp(-v))


# --- per judge × dimension ----------------------------------------------------------------------


def separation(judge: str, dimension: str, passing: list[float], failing: list[float]):
    """One judge's scores on one dimension, split by the outcome checks."""
    mean_pass = fmean(passing) if passing else None
    mean_fail = fmean(failing) if failing else None
    a = auc(passing, failing)

    share = None
    if passing and failing:
        share = effective_size(passing, failing) / min(len(passing), len(failing))

    def result(verdict, reason, low=None, high=None, method=""):
        return Separation(
            judge, dimension, len(passing), len(failing), mean_pass, mean_fail,
            a, low, high, method, verdict, reason, share,
        )  # fmt: skip

    if len(passing) < MIN_GROUP or len(failing) < MIN_GROUP:
        return result(
            NOT_ENOUGH,
            f"fewer than {MIN_GROUP} conversations passed or failed their checks "
            f"({len(passing)} passed, {len(failing)} failed)",
        )
    if len(set(passing) | set(failing)) < 2:
        return result(NOT_ENOUGH, f"no variation: every score was {passing[0]:g}")
    low, high, method = auc_interval(passing, failing)
    if low > 0.5:
        return result(SEPARATES, "the interval lies above 0.5", low, high, method)
    if high < 0.5:
        return result(
            INVERTS,
            "the interval lies below 0.5: failing conversations score higher",
            low,
            high,
            method,
        )
    return result(NOT_ENOUGH, "the interval includes 0.5", low, high, method)


def separations(records: Iterable[Any], outcomes: Mapping[Any, bool | None]) -> list[Separation]:
    """Per judge × dimension from records with judge, conversation, dimension, status and
    score (repetitions averaged per conversation); `outcomes`: conversation → passed its
    outcome checks (None or missing: not checked, left out)."""
    scores: dict[tuple[str, str], dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if _get(record, "status") != "ok" or _get(record, "score") is None:
            continue
        key = (str(_get(record, "judge")), str(_get(record, "dimension")))
        scores[key][_get(record, "conversation")].append(float(_get(record, "score")))
    rows = []
    for (judge, dimension), per_conversation in sorted(scores.items()):
        means = {c: fmean(v) for c, v in per_conversation.items()}
        passing = [s for c, s in means.items() if outcomes.get(c) is True]
        failing = [s for c, s in means.items() if outcomes.get(c) is False]
        rows.append(separation(judge, dimension, passing, failing))
    return rows


def figures(row: Separation) -> str:
    """The AUC with its interval (level, method, n per group), or why there is no interval:
    a constant judge says its constant, not an interval it never had."""
    groups = f"{row.n_pass} passed, {row.n_fail} failed"
    if row.low is not None:
        return (
            f"AUC {row.auc:.2f}, {LEVEL:.0%} interval {row.low:.2f}–{row.high:.2f} "
            f"by {row.method}, {groups}"
        )
    if row.auc is None or row.reason.startswith("fewer than"):
        return f"AUC {_fmt(row.auc)}, no interval: {row.reason}"
    return f"{row.reason}, {groups}"


def per_group_to_decide(
    a: float, level: float = LEVEL, most: int = MOST_PER_GROUP, share: float | None = None
) -> int | None:
    """The fewest conversations per group (equal groups, at least MIN_GROUP) whose interval
    at this AUC would exclude 0.5; None at 0.5 itself or beyond `most`. `share`: the row's
    effective size over its smaller group, kept as the groups grow (None: Newcombe's interval
    alone, scores spread as Hanley–McNeil assume). The interval narrows as the groups grow,
    so the first size that decides is found by bisection."""

    def decides(n: int) -> bool:
        if share is None:
            low, high = newcombe_interval(a, n, n, level)
        else:
            low, high = hull_interval(a, n, n, max(share * n, 1.0), level)
        return low > 0.5 or high < 0.5

    if a == 0.5 or not decides(most):
        return None
    low, high = MIN_GROUP, most
    if decides(low):
        return low
    while high - low > 1:  # invariant: low does not decide, high does
        middle = (low + high) // 2
        low, high = (low, middle) if decides(middle) else (middle, high)
    return high


def to_decide(row: Separation) -> str:
    """For a row without a verdict: how many conversations would give it one, at its AUC."""
    if row.verdict != NOT_ENOUGH or row.auc is None:
        return ""
    if row.reason.startswith("no variation"):
        return "more conversations cannot decide it while every score is the same"
    n = per_group_to_decide(row.auc, share=row.effective_share)
    if n is None:
        return f"no number of conversations decides it at AUC {row.auc:.2f}"
    return (
        f"about {n} conversations per group would decide it at AUC {row.auc:.2f} "
        f"(it has {row.n_pass} + {row.n_fail})"
    )


def warning(row: Separation, exact: float | None) -> str:
    """The red warning for every row that does not separate, or '' when it does. Consistency
    changes the words, never whether there is a warning: a judge that repeats itself and does
    not separate is the case to say loudest, but one that repeats itself less is no better."""
    if row.verdict == SEPARATES:
        return ""
    consistent = exact is not None and exact >= CONSISTENT_EXACT
    share = f"test–retest exact {exact:.0%}" if exact is not None else ""
    closing = " Consistency is not correctness." if consistent else ""
    if row.verdict == INVERTS:
        lead = f"Consistent ({share}) but inverted" if consistent else "Inverted"
        return (
            f"{lead}: it scores conversations that failed their outcome checks higher than "
            f"those that passed — {figures(row)}.{closing}"
        )
    lead = f"Consistent ({share}) but does not separate" if consistent else "Not shown to separate"
    return f"{lead} passing from failing conversations — {figures(row)}; {to_decide(row)}.{closing}"


@dataclass(frozen=True)
class Standing:
    """A jury's (a panel verdict's or one judge's) validity over the rubric's dimensions."""

    verdict: str  # SEPARATES, INVERTS or NOT_ENOUGH
    rows: tuple[Separation, ...]

    @property
    def inverts(self) -> list[str]:
        return [row.dimension for row in self.rows if row.verdict == INVERTS]

    @property
    def separating(self) -> list[str]:
        return [row.dimension for row in self.rows if row.verdict == SEPARATES]

    @property
    def warnings(self) -> list[tuple[Separation, str]]:
        """Each dimension that does not separate, with its warning (consistency unknown)."""
        return [(row, text) for row in self.rows if (text := warning(row, None))]

    @property
    def described(self) -> list[tuple[Separation, str, str]]:
        """Each dimension with its figures and, without a verdict, what would decide it."""
        return [(row, figures(row), to_decide(row)) for row in self.rows]

    def of(self, dimension: str) -> tuple[Separation | None, str]:
        """One dimension's row and its warning ('' when it separates); (None, '') unscored."""
        row = next((r for r in self.rows if r.dimension == dimension), None)
        return row, warning(row, None) if row is not None else ""


def standing(rows: Iterable[Separation]) -> Standing:
    """Inverts if any dimension inverts; separates only if every dimension separates."""
    rows = tuple(rows)
    verdicts = {row.verdict for row in rows}
    if INVERTS in verdicts:
        verdict = INVERTS
    elif rows and verdicts == {SEPARATES}:
        verdict = SEPARATES
    else:
        verdict = NOT_ENOUGH
    return Standing(verdict, rows)


def summary(rows: Iterable[Separation]) -> dict[str, dict[str, int]]:
    """judge → how many dimensions it separates, inverts, or scores failing higher (point)."""
    out: dict[str, dict[str, int]] = defaultdict(
        lambda: {"dimensions": 0, SEPARATES: 0, INVERTS: 0, "failing_higher": 0}
    )
    for row in rows:
        counts = out[row.judge]
        counts["dimensions"] += 1
        counts[SEPARATES] += row.verdict == SEPARATES
        counts[INVERTS] += row.verdict == INVERTS
        counts["failing_higher"] += row.inverted_point
    return dict(out)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _get(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)
