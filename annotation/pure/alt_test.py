"""Can the jury stand in for a clinician? The alternative annotator test (alt-test) of Calderon,
Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge", ACL 2025, on plain data.

It answers the replacement question with the few clinicians a real study has, where the
envelope's intervals (annotation.pure.envelope) need many. The procedure, as the paper and its
reference code (github.com/nitaytech/AltTest, `alt_test`) give it:

1. Leave one clinician j out. On each item i that j scored together with at least one other
   clinician and the jury, score how well the jury and how well j align with the remaining
   clinicians: the alignment scoring function is −RMSE for ordinal scores (the jury's panel
   mean is used unrounded) and accuracy (the share of the others agreeing) for pass/fail.
2. W_f = 1 if the jury aligns at least as well as j on the item, W_h = 1 if j aligns at least as
   well as the jury (a tie counts for both). The advantage probabilities are ρ_f,j = mean W_f
   and ρ_h,j = mean W_h over j's items.
3. One-sided paired t-test of H0: ρ_h,j − ρ_f,j ≥ ε against H1: ρ_h,j − ρ_f,j < ε, on the
   per-item differences W_h − W_f (scipy's `ttest_1samp(d, ε, alternative="less")`, as the
   reference code does). Rejecting says the jury is no worse than j by ε or more: it "wins"
   against j. ε is the cost-benefit margin: how much worse than a clinician the jury may be,
   given what it saves.
4. Benjamini–Yekutieli across the clinicians at q = 0.05 (the p-values share items, so they
   are dependent; BY holds under any dependence). The winning rate ω is the share of tested
   clinicians the jury wins against; ω ≥ 0.5 → "the jury can stand in for a clinician".
5. The average advantage probability ρ = mean over clinicians of ρ_f,j ranks judges and panels
   (higher is better); it is a ranking measure, not a test.

ε, from the paper's FAQ: 0.2 for expert annotators (reliable but expensive, sometimes
inaccessible), 0.15 for skilled ones, 0.1 for crowd workers, and smaller when inter-annotator
agreement is low. Clinicians are experts, so the default is 0.2.

Minimums, from the paper: at least 30 items per clinician (below that the t-test's normality
assumption fails; the paper would switch to a Wilcoxon test, we say "not enough evidence"), a
clinician with fewer is left out of the test and listed; and at least 3 clinicians tested
(with two, the test only asks which of the two the jury is closer to, with no consensus).

Where one clinician's differences W_h − W_f are all alike (a jury identical to that
clinician's copy: every item a tie, all 0) the t statistic is undefined; the evidence is then
decided by the mean alone: p = 0 when it lies below ε, 1 otherwise (a test on 30 or more items
that never varied).

One guard that is not the paper's: a jury that gives every item the same score (or the same
pass share) is never said to stand in (`CONSTANT_JURY`): alignment alone would let it through
wherever clinicians disagree often, because it sits at the clinicians' majority.

Several dimensions (the paper's FAQ on several domains): the p-values of every clinician in
every dimension go into one BY procedure, and ω is counted per dimension from those
rejections: `family` — "the jury can stand in for a clinician on k of 6 dimensions" then
holds with the false discovery rate controlled across the whole family.

Pure: plain data in, plain data out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE
from ratings.ties import DEFAULT_TIE_RULE, score_shares

STANDS_IN = "the jury can stand in for a clinician"
NOT_SHOWN = "not shown to stand in for a clinician"
NOT_ENOUGH = "not enough evidence"
VERDICTS = (STANDS_IN, NOT_SHOWN, NOT_ENOUGH)

ORDINAL, PASS_FAIL = "ordinal", "pass_fail"
SCALES = (ORDINAL, PASS_FAIL)
ALIGNMENT = {ORDINAL: "−RMSE", PASS_FAIL: "accuracy"}

EPSILON = 0.2  # the paper's value for expert annotators
EPSILON_GUIDE = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
Q = 0.05
MIN_ITEMS = 30  # per clinician
MIN_CLINICIANS = 3
WINNING_RATE = 0.5
_TIE = 1e-9  # alignments this close are a tie (a panel's mean meets sums of squares)


@dataclass(frozen=True)
class Comparison:
    """The jury against one left-out clinician, on that clinician's items."""

    clinician: str
    n_items: int
    jury_advantage: float  # ρ_f,j: share of items where the jury aligns at least as well
    clinician_advantage: float  # ρ_h,j: share where the clinician does
    t: float | None  # None when the differences did not vary
    p_value: float
    wins: bool = False  # the jury's null rejected by Benjamini–Yekutieli

    def as_dict(self) -> dict[str, Any]:
        return {
            "clinician": self.clinician,
            "n_items": self.n_items,
            "jury_advantage": self.jury_advantage,
            "clinician_advantage": self.clinician_advantage,
            "t": self.t,
            "p_value": self.p_value,
            "jury_wins": self.wins,
        }


@dataclass(frozen=True)
class AltTest:
    scale: str  # ORDINAL or PASS_FAIL
    epsilon: float
    q: float
    min_items: int
    min_clinicians: int
    n_items: int  # items with a jury score and 2 or more clinicians
    comparisons: tuple[Comparison, ...]  # the clinicians tested (min_items or more)
    too_few: tuple[tuple[str, int], ...]  # clinicians left out: (clinician, items)
    winning_rate: float | None  # ω
    advantage: float | None  # ρ, mean of the comparisons' jury_advantage
    verdict: str
    reason: str
    jury_varies: bool = True  # False: one score (one pass share) on every item

    @property
    def n_clinicians(self) -> int:
        return len(self.comparisons)

    @property
    def wins(self) -> int:
        return sum(c.wins for c in self.comparisons)

    @property
    def method(self) -> str:
        return method(self.scale, self.epsilon, self.q)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "alignment": ALIGNMENT[self.scale],
            "epsilon": self.epsilon,
            "q": self.q,
            "min_items": self.min_items,
            "min_clinicians": self.min_clinicians,
            "n_items": self.n_items,
            "n_clinicians": self.n_clinicians,
            "wins": self.wins,
            "winning_rate": self.winning_rate,
            "advantage": self.advantage,
            "verdict": self.verdict,
            "reason": self.reason,
            "jury_varies": self.jury_varies,
            "method": self.method,
            "comparisons": [c.as_dict() for c in self.comparisons],
            "too_few_items": [{"clinician": c, "n_items": n} for c, n in self.too_few],
        }


def method(scale: str, epsilon: float, q: float) -> str:
    return (
        f"alt-test (Calderon, Reichart & Dror 2025): leave one clinician out, {ALIGNMENT[scale]} "
        f"alignment with the rest per item, one-sided paired t-test per clinician with margin "
        f"ε = {epsilon:g}, Benjamini–Yekutieli across clinicians at q = {q:g}"
    )


# --- the test ------------------------------------------------------------------------------------


def alt_test(
    clinicians: Mapping[str, Mapping[str, int]],
    jury: Mapping[str, float],
    *,
    scale: str = ORDINAL,
    epsilon: float = EPSILON,
    q: float = Q,
    min_items: int = MIN_ITEMS,
    min_clinicians: int = MIN_CLINICIANS,
    threshold: int | None = None,
    tie_rule: str = DEFAULT_TIE_RULE,
    rating_scale: Scale = DEFAULT_SCALE,
) -> AltTest:
    """The alt-test from clinicians (item → clinician → score) and the jury (item → score; a
    panel's mean may be fractional). Pass/fail is score ≥ `threshold` (the rating scale's pass
    mark unless told); a jury mean on a half passes by `tie_rule` (half credit: half a pass)."""
    threshold = rating_scale.pass_mark if threshold is None else threshold
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon!r}")
    items = sorted(i for i in jury if len(clinicians.get(i, {})) >= 2)
    names = sorted({c for i in items for c in clinicians[i]})
    scores = np.full((len(items), len(names)), np.nan)
    column = {name: k for k, name in enumerate(names)}
    for row, item in enumerate(items):
        for name, score in clinicians[item].items():
            scores[row, column[name]] = score
    jury_values = np.array([float(jury[i]) for i in items])
    differences = indicator_differences(
        scores, jury_values, scale, threshold, tie_rule, rating_scale
    )
    varies = _varies(jury_values, scale, threshold, tie_rule, rating_scale)
    tested, too_few = [], []
    for name, (jury_wins, clinician_wins) in zip(names, differences, strict=True):
        if len(jury_wins) < min_items:
            too_few.append((name, len(jury_wins)))
            continue
        t, p = paired_test(clinician_wins - jury_wins, epsilon)
        tested.append(
            Comparison(
                name, len(jury_wins), float(jury_wins.mean()), float(clinician_wins.mean()), t, p
            )
        )
    return decide(
        tested, too_few, len(items), scale, epsilon, q, min_items, min_clinicians,
        jury_varies=varies,
    )  # fmt: skip


def _varies(
    jury: np.ndarray, scale: str, threshold: int, tie_rule: str, rating_scale: Scale
) -> bool:
    if scale == PASS_FAIL:
        jury = _pass_share(jury, threshold, tie_rule, rating_scale)
    return len(jury) > 0 and float(np.ptp(jury)) > _TIE


def _pass_share(jury: np.ndarray, threshold: int, tie_rule: str, rating_scale: Scale) -> np.ndarray:
    low, high = rating_scale.low, rating_scale.high
    shares = score_shares(np.clip(jury, low, high), tie_rule, rating_scale)
    return shares[:, threshold - low :].sum(axis=1)


def indicator_differences(
    scores: np.ndarray,
    jury: np.ndarray,
    scale: str,
    threshold: int,
    tie_rule: str,
    rating_scale: Scale = DEFAULT_SCALE,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per clinician (column of `scores`, NaN where absent): the indicators W_f and W_h on the
    items that clinician scored with at least one other."""
    present = ~np.isnan(scores)
    if scale == ORDINAL:
        values, jury_values = np.where(present, scores, 0.0), jury
    else:
        values = np.where(present, scores >= threshold, 0.0).astype(float)
        jury_values = _pass_share(jury, threshold, tie_rule, rating_scale)
    out = []
    for j in range(scores.shape[1]):
        others = present.copy()
        others[:, j] = False
        rows = present[:, j] & (others.sum(axis=1) >= 1)
        jury_align = _alignment(jury_values[rows], values[rows], others[rows], scale)
        own_align = _alignment(values[rows, j], values[rows], others[rows], scale)
        out.append(
            (
                (jury_align >= own_align - _TIE).astype(float),
                (own_align >= jury_align - _TIE).astype(float),
            )
        )
    return out


def _alignment(x: np.ndarray, values: np.ndarray, others: np.ndarray, scale: str) -> np.ndarray:
    """Per item, how well x aligns with the others' values: −RMSE, or expected accuracy (x the
    probability of a pass, the others 0 or 1)."""
    count = others.sum(axis=1)
    if scale == ORDINAL:
        squared = np.where(others, (x[:, None] - values) ** 2, 0.0).sum(axis=1)
        return -np.sqrt(squared / count)
    passing = np.where(others, values, 0.0).sum(axis=1) / count
    return x * passing + (1 - x) * (1 - passing)


def paired_test(differences: np.ndarray, epsilon: float) -> tuple[float | None, float]:
    """One-sided t-test of H0: mean(differences) ≥ ε (scipy's ttest_1samp, alternative
    "less"); differences that never vary decide by their mean alone."""
    n = len(differences)
    mean = float(differences.mean())
    sd = float(differences.std(ddof=1)) if n > 1 else 0.0
    if sd <= 1e-12:
        return None, 0.0 if mean < epsilon else 1.0
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return float(t), float(stats.t.cdf(t, df=n - 1))


def decide(
    tested: Sequence[Comparison],
    too_few: Sequence[tuple[str, int]],
    n_items: int,
    scale: str,
    epsilon: float,
    q: float,
    min_items: int,
    min_clinicians: int,
    rejected: Sequence[bool] | None = None,
    jury_varies: bool = True,
) -> AltTest:
    """ω, ρ and the verdict from the comparisons; `rejected` given by a family-wide BY."""
    if rejected is None:
        rejected = benjamini_yekutieli([c.p_value for c in tested], q)
    tested = tuple(_with_wins(c, w) for c, w in zip(tested, rejected, strict=True))
    advantage = float(np.mean([c.jury_advantage for c in tested])) if tested else None
    omega = sum(c.wins for c in tested) / len(tested) if tested else None
    verdict, reason = _verdict(tested, too_few, n_items, min_items, min_clinicians)
    if verdict == STANDS_IN and not jury_varies:
        verdict, reason = NOT_SHOWN, CONSTANT_JURY
    return AltTest(
        scale, epsilon, q, min_items, min_clinicians, n_items, tested, tuple(too_few),
        omega, advantage, verdict, reason, jury_varies,
    )  # fmt: skip


# Not the paper's: its test compares alignment only, and a jury that always says 3 (or always
# "pass") aligns with the clinicians' majority as often as a noisy clinician does. With
# clinicians 0.8 points of noise apart (1–5, latent quality sd 1), a constant 3 is worse than a
# clinician by only 0.08 on −RMSE and 0.09 on pass/fail (3,000 items), inside ε = 0.2.
CONSTANT_JURY = (
    "the jury gives every item the same score, so it carries no information about the items "
    "(the alt-test alone would let it through where clinicians disagree often)"
)


def _with_wins(comparison: Comparison, wins: bool) -> Comparison:
    return Comparison(
        comparison.clinician, comparison.n_items, comparison.jury_advantage,
        comparison.clinician_advantage, comparison.t, comparison.p_value, bool(wins),
    )  # fmt: skip


def _verdict(tested, too_few, n_items, min_items, min_clinicians) -> tuple[str, str]:
    if len(tested) < min_clinicians:
        total = len(tested) + len(too_few)
        others = f", the others {_counts(too_few)}" if too_few else ""
        return NOT_ENOUGH, (
            f"{len(tested)} of {total} clinicians have the {min_items} items the t-test needs"
            f"{others}; the alt-test needs {min_clinicians} such clinicians: more items each, "
            "or more clinicians, would decide it"
        )
    wins = sum(c.wins for c in tested)
    said = f"the jury wins against {wins} of {len(tested)} clinicians"
    if too_few:
        said += (
            f" ({len(too_few)} more, with fewer than {min_items} items, left out: "
            f"{_counts(too_few)})"
        )
    if wins / len(tested) >= WINNING_RATE:
        return STANDS_IN, f"{said} (ω ≥ {WINNING_RATE:g})"
    return NOT_SHOWN, (
        f"{said} (ω < {WINNING_RATE:g}); more items per clinician give the test more power, "
        "unless the jury is worse than the clinicians by ε or more"
    )


def _counts(too_few) -> str:
    """The left-out clinicians' item counts, largest first (no order of names shows)."""
    return ", ".join(str(n) for n in sorted((n for _, n in too_few), reverse=True))


# --- multiple testing ----------------------------------------------------------------------------


def benjamini_yekutieli(p_values: Sequence[float], q: float = Q) -> list[bool]:
    """Which nulls the Benjamini–Yekutieli step-up rejects: the largest k with
    p_(k) ≤ k q / (m H_m), H_m = 1 + 1/2 + … + 1/m; valid under any dependence."""
    return _step_up(p_values, q, _harmonic(len(p_values)))


def by_rejection_counts(p_values: np.ndarray, q: float = Q) -> np.ndarray:
    """How many nulls `benjamini_yekutieli` rejects in each family along the last axis, for
    many families at once (the planner's simulated studies)."""
    m = p_values.shape[-1]
    passed = np.sort(p_values, axis=-1) <= _critical_values(m, q, _harmonic(m))
    return np.where(passed.any(axis=-1), m - np.argmax(passed[..., ::-1], axis=-1), 0)


def benjamini_hochberg(p_values: Sequence[float], q: float = Q) -> list[bool]:
    """The Benjamini–Hochberg step-up (independence or positive dependence)."""
    return _step_up(p_values, q, 1.0)


def _harmonic(m: int) -> float:
    return float(np.sum(1.0 / np.arange(1, m + 1))) if m else 1.0


def _critical_values(m: int, q: float, harmonic: float) -> np.ndarray:
    # (k / m) / H_m · q in this order, as statsmodels' fdrcorrection computes it: a p-value
    # exactly on the line is then rejected by both or by neither.
    return np.arange(1, m + 1) / float(m) / harmonic * q


def _step_up(p_values: Sequence[float], q: float, harmonic: float) -> list[bool]:
    m = len(p_values)
    order = sorted(range(m), key=lambda k: p_values[k])
    critical = _critical_values(m, q, harmonic)
    passed = [rank for rank, k in enumerate(order, 1) if p_values[k] <= critical[rank - 1]]
    cut = max(passed, default=0)
    rejected = [False] * m
    for k in order[:cut]:
        rejected[k] = True
    return rejected


# --- several dimensions --------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """The alt-test over several dimensions with one BY across all their clinicians."""

    tests: dict[str, AltTest]  # dimension → its test, wins from the family-wide BY
    n_comparisons: int
    q: float

    @property
    def standing_in(self) -> list[str]:
        return [d for d, t in self.tests.items() if t.verdict == STANDS_IN]

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_dimensions": len(self.tests),
            "n_comparisons": self.n_comparisons,
            "q": self.q,
            "stands_in_on": self.standing_in,
            "method": FAMILY_METHOD,
            "dimensions": {d: t.as_dict() for d, t in self.tests.items()},
        }


FAMILY_METHOD = (
    "Benjamini–Yekutieli across every clinician comparison of every dimension tested (the "
    "alt-test paper's procedure for several domains); ω and the verdict counted per dimension"
)


def family(tests: Mapping[str, AltTest], q: float = Q) -> Family:
    """Each dimension's test re-decided with one BY across the clinicians of all dimensions
    that have enough clinicians to be tested (the others keep "not enough evidence")."""
    decided = {d: t for d, t in tests.items() if t.verdict != NOT_ENOUGH}
    p_values = [c.p_value for t in decided.values() for c in t.comparisons]
    rejected = iter(benjamini_yekutieli(p_values, q))
    out = {}
    for dimension, test in tests.items():
        if dimension not in decided:
            out[dimension] = test
            continue
        mine = [next(rejected) for _ in test.comparisons]
        out[dimension] = decide(
            test.comparisons, test.too_few, test.n_items, test.scale, test.epsilon, q,
            test.min_items, test.min_clinicians, rejected=mine, jury_varies=test.jury_varies,
        )  # fmt: skip
    return Family(out, len(p_values), q)
