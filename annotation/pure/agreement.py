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

Rounding, stated once: a mean that falls between scores — the clinicians' mean per item
(modes 2–4), a panel's mean from several judges — meets whole scores in exact and adjacent
agreement and kappa by the tie rule (`ratings.ties`: half up by default, half down, or half
credit to each neighbour), which every result names. MAE, bias, Pearson and Spearman use the
mean itself, never rounded.

The verdict — is the jury inside the human envelope? — is `annotation.pure.envelope`'s: adjacent
agreement and mean pairwise Cohen QWK, the same estimator on both sides, in one paired
bootstrap of 10,000 resamples over items, widened for the sampling of clinicians. The clinicians' kappa beside the jury's anywhere is that same
mean of pairwise Cohen kappas (pooling both orders of every clinician pair would give a
Scott-type chance term that runs lower when clinicians differ in leniency).

Beside the envelope, the alt-test (`annotation.pure.alt_test`) answers "can the jury stand in
for a clinician?", on the ordinal scores and on pass/fail, each dimension on its own and again
with one Benjamini–Yekutieli procedure across every dimension's clinicians (`alt_test_family`).

Not applicable, unparseable and error ratings are never numbers: they are left out and
counted per rater kind and reason. A figure that cannot be computed (no pairs, no variation)
is None with the reason, never 0.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, permutations
from typing import Any

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

# The verdict's words and settings, re-exported: the pages and the command name them here.
from annotation.pure import alt_test as alt
from annotation.pure.envelope import ABOVE as ABOVE
from annotation.pure.envelope import BELOW as BELOW
from annotation.pure.envelope import INCONCLUSIVE as INCONCLUSIVE
from annotation.pure.envelope import INSIDE as INSIDE
from annotation.pure.envelope import (
    MIN_INTERVAL_ITEMS,
    MIN_ITEMS,
    RATER_MODES,
    RESAMPLED,
    VERDICT_RESAMPLES,
    Envelope,
    clinician_kappa,
    no_width,
    too_few_for_interval,
    wilson_interval,
    zero_width,
)
from annotation.pure.envelope import NOT_ENOUGH as NOT_ENOUGH
from annotation.pure.envelope import VERDICTS as VERDICTS
from annotation.pure.envelope import envelope as envelope_verdict
from ratings import reliability
from ratings.alpha import alpha_undefined

# The one rating type and its words, re-exported: the pages and the command name them here.
from ratings.rating import CLINICIAN as CLINICIAN
from ratings.rating import JURY as JURY
from ratings.rating import KINDS as KINDS
from ratings.rating import NOT_APPLICABLE as NOT_APPLICABLE
from ratings.rating import OK as OK
from ratings.rating import STATUSES as STATUSES
from ratings.rating import Rating as Rating
from ratings.reliability import ALPHA_LEVELS as ALPHA_LEVELS
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE, adjacent_weights, quadratic_weights
from ratings.ties import DEFAULT_TIE_RULE, HALF_DOWN, HALF_UP, check_rule, score_shares
from ratings.ties import TIE_RULES as TIE_RULES
from ratings.ties import half_up as half_up

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


_NOT_ASKED = "no resamples asked for"
_ZERO_WIDTH = "zero width"
_JURY_KEY = "\x00jury"  # the jury as one more rater; no clinician code starts with NUL


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
        return {
            "value": self.value,
            "ci": self.ci,
            "n": self.n,
            "n_items": self.n,
            "method": self.method,
            "reason": self.reason,
        }


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
    pass/fail (score ≥ the pass mark: `pass_fail`), and for comparison interval and nominal
    (`nominal`, the published worked example's 0.743) on the five scores."""

    n_items: int  # items with two or more ratings (alpha's pairable units)
    n_raters: int
    ordinal: Estimate
    pass_fail: Estimate
    interval: Estimate
    nominal: Estimate

    def as_dict(self) -> dict[str, Any]:
        levels = {level: getattr(self, level).as_dict() for level in ALPHA_LEVELS}
        return {"n_items": self.n_items, "n_raters": self.n_raters, **levels}


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
    tie_rule: str = DEFAULT_TIE_RULE
    # The alt-test per scale (alt.ORDINAL, alt.PASS_FAIL): this dimension on its own, and
    # re-decided with one BY across every dimension of the same call (`alt.family`).
    alt_test: dict[str, alt.AltTest] = field(default_factory=dict)
    alt_test_family: dict[str, alt.AltTest] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The `agreement` command's JSON for this dimension: each figure's value under its
        name, its interval as `<name>_ci: [low, high]`, the items it stands on as
        `<name>_n_items` and how the interval was found as `<name>_method`. Figures named
        `envelope_…` stand on the envelope's items (a jury score and 2 or more clinicians);
        `every_pair_…` on every item with a jury score and a clinician."""
        figures: dict[str, Any] = {
            "krippendorff_alpha_ordinal": self.alpha.ordinal,
            "krippendorff_alpha_pass_fail": self.alpha.pass_fail,
            "krippendorff_alpha_interval": self.alpha.interval,
            "krippendorff_alpha_nominal": self.alpha.nominal,
            "fleiss_kappa": self.fleiss_kappa,
            "clinician_weighted_kappa": self.clinicians.weighted_kappa,
        }
        if self.envelope is not None:
            every, env = self.modes["every_pair"], self.envelope
            figures |= {
                "envelope_jury_adjacent_agreement": env.jury_adjacent,
                "envelope_clinician_adjacent_agreement": env.clinician_adjacent,
                "envelope_adjacent_agreement_difference": env.adjacent_difference,
                "envelope_jury_kappa": env.jury_kappa,
                "envelope_clinician_kappa": env.clinician_kappa,
                "envelope_kappa_difference": env.kappa_difference,
                "every_pair_exact_agreement": every.exact,
                "every_pair_adjacent_agreement": every.adjacent,
                "every_pair_weighted_kappa": every.weighted_kappa,
                "every_pair_mae": every.mae,
                "every_pair_bias": every.bias,
            }
        out: dict[str, Any] = {"n_items": self.n_items, "n_raters": self.n_raters}
        for name, figure in figures.items():
            out |= {
                name: figure.value,
                f"{name}_ci": figure.ci,
                f"{name}_n_items": figure.as_dict()["n_items"],
                f"{name}_method": figure.method,
            }
        out["fleiss_kappa_items"] = self.fleiss_items()
        if self.envelope is not None:
            env = self.envelope
            out |= {
                "margin": env.margin,
                "min_items": env.min_items,
                "verdict": env.verdict,
                "verdict_reason": env.reason,
                "at_the_margin": env.at_the_margin,
                "verdict_resamples": env.n_resamples,
                "clinicians_resampled": env.raters == RESAMPLED,
            }
        out |= self.alt_test_summary()
        return out | {"tie_rule": self.tie_rule, "excluded": self.excluded}

    def alt_test_summary(self) -> dict[str, Any]:
        """`alt_test_…` (ordinal scores) and `alt_test_pass_fail_…`: each the dimension on its
        own, and `…_family_…` with BY across every dimension's clinicians."""
        out: dict[str, Any] = {}
        for scale, test in self.alt_test.items():
            prefix = "alt_test" if scale == alt.ORDINAL else "alt_test_pass_fail"
            in_family = self.alt_test_family[scale]
            out |= {
                f"{prefix}_verdict": test.verdict,
                f"{prefix}_reason": test.reason,
                f"{prefix}_winning_rate": test.winning_rate,
                f"{prefix}_advantage": test.advantage,
                f"{prefix}_clinicians": test.n_clinicians,
                f"{prefix}_wins": test.wins,
                f"{prefix}_n_items": test.n_items,
                f"{prefix}_method": test.method,
                f"{prefix}_family_verdict": in_family.verdict,
                f"{prefix}_family_winning_rate": in_family.winning_rate,
                f"{prefix}_family_wins": in_family.wins,
            }
        if self.alt_test:
            out |= {"alt_test_epsilon": self.alt_test[alt.ORDINAL].epsilon}
            out |= {"alt_test_q": self.alt_test[alt.ORDINAL].q}
            out |= {"alt_test_family_method": alt.FAMILY_METHOD}
        return out

    def fleiss_items(self) -> str:
        """Which items Fleiss' kappa used: it needs the same number of ratings per item."""
        if self.fleiss_raters_per_item is None:
            return "none: no item was scored by 2 or more clinicians"
        k, used = self.fleiss_raters_per_item, self.fleiss_kappa.n
        return f"the {used} items scored by exactly {k} clinicians (the most common number)"

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
            "fleiss_items": self.fleiss_items(),
            "alpha": self.alpha.as_dict(),
            "alpha_with_jury": self.alpha_with_jury and self.alpha_with_jury.as_dict(),
            "modes": {mode: stats_.as_dict() for mode, stats_ in self.modes.items()},
            "envelope": self.envelope and self.envelope.as_dict(),
            "alt_test": {scale: test.as_dict() for scale, test in self.alt_test.items()},
            "alt_test_family": {
                scale: test.as_dict() for scale, test in self.alt_test_family.items()
            },
            "tie_rule": self.tie_rule,
        }


@dataclass(frozen=True)
class _Options:
    seed: int = 0
    n_resamples: int = RESAMPLES
    level: float = LEVEL
    tie_rule: str = DEFAULT_TIE_RULE
    raters: str = RESAMPLED  # the envelope's bootstrap: clinicians resampled too, or fixed
    verdict_resamples: int = VERDICT_RESAMPLES
    min_items: int = MIN_ITEMS
    epsilon: float = alt.EPSILON  # the alt-test's cost-benefit margin
    threshold: int = DEFAULT_SCALE.pass_mark  # the pass mark: pass/fail alpha and the alt-test
    scale: Scale = DEFAULT_SCALE  # the rubric's points: every table of whole scores has its size


# --- the public entry points ---------------------------------------------------------------------


def agreement(
    ratings: Iterable[Rating],
    *,
    margin: float = MARGIN,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    tie_rule: str = DEFAULT_TIE_RULE,
    raters: str = RESAMPLED,
    verdict_resamples: int = VERDICT_RESAMPLES,
    min_items: int = MIN_ITEMS,
    epsilon: float = alt.EPSILON,
    scale: Scale = DEFAULT_SCALE,
    threshold: int | None = None,
) -> dict[str, DimensionAgreement]:
    """Every figure, per dimension (in order of first appearance). `n_resamples=0` gives the
    point estimates without intervals, which is fast (the verdict still resamples:
    `verdict_resamples`, 10,000 unless told). `raters`: the envelope's bootstrap resamples
    clinicians too (`resampled`) or keeps these clinicians (`fixed`). `epsilon`: the
    alt-test's cost-benefit margin (0.2, the paper's value for experts). `threshold`: the pass
    mark, when it is not the scale's own. `scale`: the points of the rubric the ratings score;
    a score off it is an error, never clipped."""
    check_rule(tie_rule)
    if raters not in RATER_MODES:
        raise ValueError(f"raters must be one of {', '.join(RATER_MODES)}, got {raters!r}")
    if n_resamples <= 0:  # point figures only: the verdict too goes without intervals
        verdict_resamples = 0
    threshold = scale.pass_mark if threshold is None else threshold
    options = _Options(
        seed, n_resamples, level, tie_rule, raters, verdict_resamples, min_items, epsilon,
        threshold, scale,
    )  # fmt: skip
    by_dimension = split_by_dimension(ratings, scale)
    return _with_family({d: _dimension(d, s, margin, options) for d, s in by_dimension.items()})


def _with_family(results: dict[str, DimensionAgreement]) -> dict[str, DimensionAgreement]:
    """Each dimension's alt-tests re-decided with one BY across all the dimensions' clinicians
    (per scale), so "stands in on k of 6" holds for the family."""
    for scale in alt.SCALES:
        tests = {d: r.alt_test[scale] for d, r in results.items() if scale in r.alt_test}
        for dimension, test in alt.family(tests).tests.items():
            results[dimension].alt_test_family[scale] = test
    return results


def pairwise(
    a: Sequence[int | None],
    b: Sequence[int | None],
    *,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    scale: Scale = DEFAULT_SCALE,
) -> PairwiseStats:
    """Figures between two score vectors, position by position (each position one item);
    positions where either side is None are left out. Bias is the mean of a − b."""
    if len(a) != len(b):
        raise ValueError(f"the two score vectors differ in length ({len(a)} and {len(b)})")
    rows = [
        (str(i), _checked(x, scale), _checked(y, scale))
        for i, (x, y) in enumerate(zip(a, b, strict=True))
    ]
    pairs = _pairs([(i, x, y) for i, x, y in rows if x is not None and y is not None])
    return _pairwise_stats(pairs, _scaled_options(seed, n_resamples, level, scale))


def _scaled_options(seed: int, n_resamples: int, level: float, scale: Scale) -> _Options:
    return _Options(seed, n_resamples, level, threshold=scale.pass_mark, scale=scale)


def clinician_matrix(
    ratings: Iterable[Rating],
    dimension: str,
    *,
    seed: int = 0,
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    scale: Scale = DEFAULT_SCALE,
) -> dict[tuple[str, str], PairwiseStats]:
    """The pairwise clinician agreement matrix of one dimension: for each pair of clinicians
    (a < b) who share an item, a's scores against b's on the items both scored."""
    scores = split_by_dimension(ratings, scale).get(dimension)
    if scores is None:
        return {}
    options = _scaled_options(seed, n_resamples, level, scale)
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


def split_by_dimension(
    ratings: Iterable[Rating], scale: Scale = DEFAULT_SCALE
) -> dict[str, Scores]:
    by_dimension: dict[str, Scores] = {}
    seen: set[tuple[str, str, str]] = set()
    jury_raters: dict[tuple[str, str], str] = {}
    for rating in ratings:
        _check_rating(rating, scale)
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


def _check_rating(rating: Rating, scale: Scale) -> None:
    if rating.kind not in KINDS:
        raise ValueError(f"unknown rater kind {rating.kind!r}; one of {', '.join(KINDS)}")
    if rating.status not in STATUSES:
        raise ValueError(f"unknown status {rating.status!r}; one of {', '.join(STATUSES)}")
    if rating.status == OK:
        if rating.kind == JURY:
            _checked_mean(rating.score, scale)
        else:
            _checked(rating.score, scale)


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


def _checked_mean(score: Any, scale: Scale = DEFAULT_SCALE) -> float:
    """A jury's score: a whole score, or a panel's mean of whole scores, within the scale."""
    wrong = f"a jury score must be a number from {scale.span}, got {score!r}"
    if isinstance(score, bool) or not isinstance(score, int | float | np.integer | np.floating):
        raise ValueError(wrong)
    if not (scale.low <= score <= scale.high) or not math.isfinite(score):
        raise ValueError(wrong)
    return float(score)


def _checked(score: Any, scale: Scale = DEFAULT_SCALE) -> int | None:
    # bool is an int and 3.0 == 3; neither is a rubric score.
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | np.integer) or score not in scale:
        raise ValueError(f"a score must be an integer from {scale.span} or None, got {score!r}")
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
        clinicians=_clinician_stats(scores.clinicians, options),
        fleiss_kappa=fleiss,
        fleiss_raters_per_item=per_item,
        alpha=_alphas(scores.clinicians, options),
        alpha_with_jury=_alphas(_with_jury(scores, options), options) if has_jury else None,
        modes={m: _mode(scores, m, options) for m in MODES} if has_jury else {},
        envelope=_envelope(scores, margin, options) if has_jury else None,
        tie_rule=options.tie_rule,
        alt_test=_alt_tests(scores, options) if has_jury else {},
    )


def _alt_tests(scores: Scores, options: _Options) -> dict[str, alt.AltTest]:
    return {
        scale: alt.alt_test(
            scores.clinicians,
            scores.jury,
            scale=scale,
            epsilon=options.epsilon,
            threshold=options.threshold,
            tie_rule=options.tie_rule,
            rating_scale=options.scale,
        )
        for scale in alt.SCALES
    }


def _envelope(scores: Scores, margin: float, options: _Options) -> Envelope:
    return envelope_verdict(
        scores.clinicians,
        scores.jury,
        margin=margin,
        min_items=options.min_items,
        n_resamples=options.verdict_resamples,
        level=options.level,
        seed=options.seed,
        raters=options.raters,
        tie_rule=options.tie_rule,
        scale=options.scale,
    )


def _clinician_stats(clinicians: dict[str, dict[str, int]], options: _Options) -> PairwiseStats:
    """Every clinician pair, both orders pooled, with the kappa the jury's is set beside: the
    mean of pairwise Cohen kappas (`envelope.clinician_kappa`), not the pooled table's."""
    pooled = _pairwise_stats(_clinician_pairs(clinicians), options, symmetric=True)
    kappa = clinician_kappa(
        clinicians, n_resamples=options.n_resamples, level=options.level,
        seed=options.seed, raters=options.raters,
    )  # fmt: skip
    reason = kappa.reason if kappa.value is None or kappa.ci is None else None
    if options.n_resamples <= 0:
        reason = None if kappa.value is not None else kappa.reason
    estimate = Estimate(kappa.value, kappa.low, kappa.high, kappa.n_items, reason, kappa.method)
    return replace(pooled, weighted_kappa=estimate)


def _with_jury(scores: Scores, options: _Options) -> dict[str, dict[str, int]]:
    """The clinicians and the jury as one more rater. Alpha takes whole scores: a panel's
    mean goes to one by the tie rule (half credit cannot split a rating: halves go up)."""
    rule = HALF_DOWN if options.tie_rule == HALF_DOWN else HALF_UP
    scale = options.scale
    rows = {item: dict(by_rater) for item, by_rater in scores.clinicians.items()}
    for item, score in scores.jury.items():
        whole = scale.points[int(np.argmax(score_shares(np.array([score]), rule, scale)[0]))]
        rows.setdefault(item, {})[_JURY_KEY] = whole
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
    x: np.ndarray  # a score: whole, or a jury panel's mean
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
    table, x_values, y_values = _pair_table(pairs)
    rule, scale = options.tie_rule, options.scale
    shares = (score_shares(x_values, rule, scale), score_shares(y_values, rule, scale))
    points = _pair_points(pairs, table.sum(axis=0), shares, scale)
    intervals = _intervals(
        table,
        lambda sums: _pair_figures(sums, x_values, y_values, shares, scale),
        [v for v, _ in points],
        options,
    )
    figures = {
        name: _estimate(point, interval, pairs.n_items)
        for name, point, interval in zip(FIGURES, points, intervals, strict=True)
    }
    for name in ("adjacent", "exact"):
        figures[name] = _score_bound_at_the_edge(figures[name], pairs.n_items, options)
    if not scale.shows_adjacent:
        figures["adjacent"] = Estimate(None, n=pairs.n_items, reason=scale.adjacent_refusal)
    if symmetric:
        figures["bias"] = Estimate(
            None, n=pairs.n_items, reason="clinician pairs have no direction"
        )
        if not _items_differ(pairs):
            for name in ("pearson", "spearman"):
                figures[name] = Estimate(None, n=pairs.n_items, reason=_NO_ITEM_VARIATION)
    return PairwiseStats(pairs.n_items, n_pairs, **figures)


# Pooled over both orders, a correlation compares the spread between items with the spread
# within them: when every item's scores average the same, only the clinicians' disagreement
# is left, and two clinicians who always give 3 and 4 read as a correlation of −1.00.
_NO_ITEM_VARIATION = (
    f"{NOT_ENOUGH}: every item's scores average the same, so a correlation pooled over both "
    "orders would only measure the clinicians' disagreement"
)


def _items_differ(pairs: _Pairs) -> bool:
    """Whether the items' mean scores vary (in both-orders pairs, x holds each item's)."""
    counts = np.bincount(pairs.item, minlength=pairs.n_items)
    means = np.bincount(pairs.item, weights=pairs.x, minlength=pairs.n_items) / counts
    return bool(np.ptp(means) > 1e-12)


def _score_bound_at_the_edge(estimate: Estimate, n_items: int, options: _Options) -> Estimate:
    """An agreement of exactly 0 or 1 resamples to itself ([1, 1]), which claims certainty no
    sample has: give it a Wilson score interval on its items instead."""
    if options.n_resamples <= 0 or estimate.value not in (0.0, 1.0) or n_items < 1:
        return estimate
    low, high = wilson_interval(estimate.value, n_items, options.level)
    method = f"Wilson score interval on {n_items} items (the proportion is at 0 or 1)"
    return Estimate(estimate.value, low, high, estimate.n, None, method)


def _pair_points(
    pairs: _Pairs, total: np.ndarray, shares: tuple[np.ndarray, np.ndarray], scale: Scale
) -> list[tuple[float | None, str | None]]:
    """Each figure of the pairs: kappa from statsmodels on the table of whole scores (means
    sent to whole scores by the tie rule), the correlations from scipy on the values
    themselves, the agreements and the means as plain means."""
    x_shares, y_shares = shares
    table = total.reshape(len(x_shares), len(y_shares))
    exact = (table * (x_shares @ y_shares.T)).sum() / table.sum()
    adjacent = (table * (x_shares @ adjacent_weights(scale) @ y_shares.T)).sum() / table.sum()
    return [
        (float(adjacent), None),
        (float(exact), None),
        _library_kappa(x_shares.T @ table @ y_shares),
        _library_correlation(stats.pearsonr, pairs.x, pairs.y),
        _library_correlation(stats.spearmanr, pairs.x, pairs.y),
        (float(np.mean(np.abs(pairs.x - pairs.y))), None),
        (float(np.mean(pairs.x - pairs.y)), None),
    ]


def _library_kappa(table: np.ndarray) -> tuple[float | None, str | None]:
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


def _pair_table(pairs: _Pairs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item, how many pairs fall in each (x value, y value) cell: every pair figure is a
    function of this table summed over the items drawn, which is what makes the bootstrap
    fast."""
    x_values, y_values = np.unique(pairs.x), np.unique(pairs.y)
    table = np.zeros((pairs.n_items, len(x_values), len(y_values)))
    cells = (pairs.item, np.searchsorted(x_values, pairs.x), np.searchsorted(y_values, pairs.y))
    np.add.at(table, cells, 1)
    return table.reshape(pairs.n_items, -1), x_values, y_values


def _pair_figures(
    sums: np.ndarray,
    x_values: np.ndarray,
    y_values: np.ndarray,
    shares: tuple[np.ndarray, np.ndarray],
    scale: Scale,
) -> np.ndarray:
    """FIGURES (last axis) of pair tables summed over items, vectorised over leading axes."""
    x_shares, y_shares = shares
    table = sums.reshape(*sums.shape[:-1], len(x_values), len(y_values))
    x, y = x_values[:, None], y_values[None, :]
    n = table.sum(axis=(-2, -1))
    with np.errstate(all="ignore"):

        def mean(values: np.ndarray) -> np.ndarray:
            return (table * values).sum(axis=(-2, -1)) / n

        ranks_x = _midranks(table.sum(axis=-1))[..., :, None]
        ranks_y = _midranks(table.sum(axis=-2))[..., None, :]
        figures = [
            mean(x_shares @ adjacent_weights(scale) @ y_shares.T),
            mean(x_shares @ y_shares.T),
            _quadratic_kappa(x_shares.T @ table @ y_shares, quadratic_weights(scale)),
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


def _quadratic_kappa(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """statsmodels' `cohens_kappa(wt="quadratic")`: 1 − Σ w·observed / Σ w·expected."""
    n = table.sum(axis=(-2, -1))[..., None, None]
    expected = table.sum(axis=-1)[..., :, None] * table.sum(axis=-2)[..., None, :] / n
    observed = (weights * table).sum(axis=(-2, -1))
    chance = (weights * expected).sum(axis=(-2, -1))
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
    points = options.scale.points
    counts, _ = aggregate_raters(np.array(rows) - points[0], n_cat=len(points))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(fleiss_kappa(counts))
    if not math.isfinite(value):
        return Estimate(None, n=len(rows), reason="no variation: one score throughout"), per_item
    per_item_sums = np.column_stack([counts, (counts**2).sum(axis=1), np.ones(len(rows))])
    (interval,) = _intervals(
        per_item_sums, lambda s: _fleiss_vectorised(s, per_item, len(points)), [value], options
    )
    return _estimate((value, None), interval, len(rows)), per_item


def _fleiss_vectorised(sums: np.ndarray, raters: int, categories: int) -> np.ndarray:
    counts = sums[..., :categories]
    squares, items = sums[..., categories], sums[..., categories + 1]
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
    # Variation is checked per level in library_alpha (pass/fail can lack it alone).
    reason = alpha_undefined(len(raters), len(pairable))
    if reason:
        none = Estimate(None, n=len(pairable), reason=reason)
        return Alphas(len(pairable), len(raters), **dict.fromkeys(ALPHA_LEVELS, none))
    matrix = _reliability_matrix(pairable, raters)
    scores = options.scale.points
    points = [
        reliability.library_alpha(matrix, level, scores, options.threshold)
        for level in ALPHA_LEVELS
    ]
    per_item = reliability.coincidences(matrix, scores)
    levels = functools.partial(reliability.alpha_levels, points=scores, pass_mark=options.threshold)
    intervals = _intervals(per_item, levels, [v for v, _ in points], options)
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
        return _unless_zero_width(float(low), float(high), "BCa")
    defined = distribution[np.isfinite(distribution)]
    # Resamples can be degenerate (every drawn item scored alike) when the full data is not;
    # those are left out of the percentile interval, unless they are most of them.
    if len(defined) < len(distribution) / 2:
        return None, None, None
    tail = (1 - level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return _unless_zero_width(float(low), float(high), "percentile")


def _unless_zero_width(
    low: float, high: float, method: str
) -> tuple[float | None, float | None, str | None]:
    """An interval of zero width says only that every resample gave the same value: no
    interval, and the reader is told why (`envelope.zero_width`)."""
    if zero_width(low, high):
        return None, None, _ZERO_WIDTH
    return low, high, method


def _estimate(
    point: tuple[float | None, str | None] | float | None,
    interval: tuple[float | None, float | None, str | None],
    n: int,
) -> Estimate:
    value, reason = point if isinstance(point, tuple) else (point, None)
    low, high, method = interval
    if method == _NOT_ASKED:
        return Estimate(value, None, None, n, reason, None)
    if method == _ZERO_WIDTH:
        return Estimate(value, None, None, n, reason or no_width(n), None)
    if low is not None and n < MIN_INTERVAL_ITEMS:
        return Estimate(value, None, None, n, reason or too_few_for_interval(n), None)
    if value is not None and low is None and reason is None:
        reason = "no interval: too few items, or too few resamples with a defined value"
    return Estimate(value, low, high, n, reason, method)
