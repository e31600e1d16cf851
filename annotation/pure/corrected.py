"""Jury-corrected estimates (DESIGN §7, prediction-powered inference): a model's mean score or
pass rate on one dimension, estimated three ways from the jury's score on every conversation of
a population and the clinicians' scores on a random sample of it.

- **Jury only**: the jury's mean over the whole population, with a normal interval. It is on
  the jury's own scale, not corrected: as an estimate of what clinicians would say it is biased
  by however much the jury is.
- **Clinicians only**: the clinicians' mean over the scored sample, with a t interval (n − 1
  df), or Wilson's interval for a pass rate; unbiased but wide.
- **Prediction-powered (PPI++)**: the jury's mean over the conversations clinicians did not
  score, plus the clinicians-minus-jury correction measured on the ones they did:
  θ = λ·mean(jury | unscored) + mean(clinician − λ·jury | scored), with the variance
  λ²·var(jury | unscored)/N + var(clinician − λ·jury | scored)/n, and a 95% interval with the
  t quantile at n − 1 df (ppi_py's normal quantile undercovers at 10–20 clinician scores).
  λ is power-tuned (Angelopoulos, Duchi & Zrnic 2023, "PPI++") and clipped to [0, 1]: λ = 1
  is classic PPI, λ = 0 gives back the clinicians-only estimate when the jury says nothing.
  With equal inclusion probabilities the point and standard error are exactly
  `ppi_py.ppi_mean_ci`'s (tests compare them with that package's figures).

Unequal inclusion probabilities (a stratified sample) weight both means **Hájek-style**
(weights normalised to sum to one): a scored conversation by 1/π, an unscored one by 1/(1 − π),
each mean's variance linearised (Σ w²(x − x̄)² / (Σ w)²). A sampled conversation not scored yet
counts as unscored, and π is scaled by the scored share of its stratum's sample (assumed
missing at random), so an unfinished study still gives a valid, if wider, interval.

The effective number of clinician labels is n × var(clinicians only) / var(PPI): how many
clinician-scored conversations the clinicians-only estimate would need for the same width.
Fewer than `MIN_LABELLED` scored conversations, or scores that do not vary, give "not enough
evidence" instead of a number. Plain data in, plain data out; no Django.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from jury.pure.aggregate import wilson
from ratings.scale import PASS_THRESHOLD

LEVEL = 0.95
MIN_LABELLED = 10
JURY_ONLY, CLINICIANS_ONLY, PPI = "jury", "clinicians", "ppi"

# Study sampling designs: only the random ones support a corrected estimate.
UNIFORM = "uniform"  # a uniform random share of the population
PER_MODEL = "per_model"  # random, the same number from each model (π recorded per model)
RANDOM_DESIGNS = (UNIFORM, PER_MODEL)
NOT_RANDOM = {
    "extremes_first": "the stratified, extremes-first sampler (chosen for checkability, not at "
    "random: the scores 1 and 5 first)",
    "explicit": "trace ids typed by hand",
    "round": "the conversations of an earlier round",
    "": "a sampler that recorded no design or inclusion probabilities (made before they were "
    "recorded)",
}


@dataclass(frozen=True)
class Member:
    """One conversation of the population the study sampled from."""

    jury: float  # the jury's score (mean of judges), or 0/1 for a pass rate
    clinician: float | None  # the clinicians' mean on it; None: not scored by a clinician
    inclusion: float  # its recorded probability of being sampled
    sampled: bool = False  # in the study (scored or not yet)
    stratum: str = ""  # the sampler's stratum (a model, for PER_MODEL)


@dataclass(frozen=True)
class Estimate:
    method: str  # JURY_ONLY, CLINICIANS_ONLY or PPI
    value: float | None
    ci: tuple[float, float] | None
    n: int  # clinician-scored conversations (the jury's: conversations it scored)
    n_population: int
    interval: str  # how the interval was made
    reason: str = ""  # why there is no value, or what to bear in mind
    se: float | None = None
    effective_n: float | None = None  # PPI only
    lam: float | None = None  # PPI only: the power-tuning λ

    def as_dict(self) -> dict:
        found = asdict(self)
        found["ci"] = list(self.ci) if self.ci else None
        return found


# --- what is refused, and why -------------------------------------------------------------------


def design_refusal(design: str, inclusion_recorded: bool) -> str:
    """Why a study's sample cannot be corrected ("" when it can)."""
    if design in RANDOM_DESIGNS and inclusion_recorded:
        return ""
    if design in RANDOM_DESIGNS:
        return "Refused: the sampler recorded no inclusion probabilities for these items."
    how = NOT_RANDOM.get(design, f"the {design!r} design, which is not a random sample")
    return (
        f"Refused: this study's conversations were chosen by {how}, not at random from the "
        "jury-scored conversations, so a correction measured on them would not carry over to "
        "the rest. Create a study with the sampler's “uniform random share” option."
    )


# --- the three estimates ------------------------------------------------------------------------


def passes(score: float, threshold: float = PASS_THRESHOLD) -> float:
    """1.0 when a (mean) score is at or above the pass mark."""
    return 1.0 if score >= threshold else 0.0


def three_estimates(
    members: Sequence[Member], proportion: bool = False, min_labelled: int = MIN_LABELLED
) -> dict[str, Estimate]:
    """Jury only, clinicians only and prediction-powered, for one model × dimension."""
    labelled = [m for m in members if m.clinician is not None]
    jury = jury_only(members, proportion)
    if len(labelled) < min_labelled:
        reason = (
            f"not enough evidence: {len(labelled)} clinician-scored conversation"
            f"{'' if len(labelled) == 1 else 's'}, fewer than the {min_labelled} required"
        )
        return {
            JURY_ONLY: jury,
            CLINICIANS_ONLY: _none(CLINICIANS_ONLY, len(labelled), len(members), reason),
            PPI: _none(PPI, len(labelled), len(members), reason),
        }
    weighted = _weights(members)
    if isinstance(weighted, str):
        clinicians = clinicians_only(labelled, None, proportion)
        return {
            JURY_ONLY: jury,
            CLINICIANS_ONLY: clinicians,
            PPI: _none(PPI, len(labelled), len(members), weighted),
        }
    clinicians = clinicians_only(labelled, weighted, proportion)
    return {
        JURY_ONLY: jury,
        CLINICIANS_ONLY: clinicians,
        PPI: prediction_powered(members, weighted, clinicians, proportion),
    }


def jury_only(members: Sequence[Member], proportion: bool = False) -> Estimate:
    """The jury's mean over the whole population: its own scale, not corrected."""
    values = np.array([m.jury for m in members], dtype=float)
    method = "normal interval on the jury's scores; the jury's own scale, not corrected"
    if len(values) < 2:
        return _none(JURY_ONLY, len(values), len(values), "not enough evidence: no jury scores")
    if np.ptp(values) == 0:
        return _none(JURY_ONLY, len(values), len(values), _unvarying(len(values)))
    se = float(values.std(ddof=1) / math.sqrt(len(values)))
    return _estimate(
        JURY_ONLY, float(values.mean()), se, len(values), len(values), method, proportion
    )


def clinicians_only(
    labelled: Sequence[Member], weights: _Weights | None = None, proportion: bool = False
) -> Estimate:
    """The clinicians' (Hájek-weighted) mean over the scored sample: a t interval (n − 1 df)
    for a mean, a Wilson interval for a pass rate (a t interval on 0/1 undercovers)."""
    y = np.array([m.clinician for m in labelled], dtype=float)
    w = np.ones(len(y)) if weights is None else weights.labelled
    n = len(y)
    mean = _wmean(y, w)
    weighted = "" if weights is None or weights.equal else ", Hájek-weighted by 1/π"
    if proportion:
        return _wilson(mean, w, n, weighted)
    if np.ptp(y) == 0:
        return _none(CLINICIANS_ONLY, n, n, _unvarying(n))
    se = math.sqrt(_wvar_of_mean(y, w) * n / (n - 1))  # n/(n − 1): s², not the n-divisor
    half = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) * se
    return _finish(
        CLINICIANS_ONLY,
        mean,
        se,
        (mean - half, mean + half),
        n,
        n,
        f"t interval, {n - 1} df{weighted}",
        False,
    )


def _wilson(share: float, w: np.ndarray, n: int, weighted: str) -> Estimate:
    """Wilson's score interval, at Kish's effective size when the weights differ."""
    size = float(w.sum() ** 2 / np.sum(w**2))
    low, high = wilson(share * size, size, LEVEL)
    se = math.sqrt(share * (1 - share) / size)
    interval = f"Wilson interval, n = {n}" + (f" (Kish {size:.1f}){weighted}" if weighted else "")
    return _finish(CLINICIANS_ONLY, share, se, (low, high), n, n, interval, True)


def prediction_powered(
    members: Sequence[Member],
    weights: _Weights,
    clinicians: Estimate,
    proportion: bool = False,
    lam: float | None = None,
) -> Estimate:
    """PPI++ for a mean: λ·jury mean (unscored) + mean(clinician − λ·jury) (scored)."""
    labelled = [m for m in members if m.clinician is not None]
    unlabelled = [m for m in members if m.clinician is None]
    y = np.array([m.clinician for m in labelled], dtype=float)
    f = np.array([m.jury for m in labelled], dtype=float)
    fu = np.array([m.jury for m in unlabelled], dtype=float)
    w, v = weights.labelled, weights.unlabelled
    n, n_u = len(y), len(fu)
    if lam is None:
        lam = power_tuning(y, f, fu, w, v)
    e = y - lam * f
    imputed = lam * _wmean(fu, v) if n_u else 0.0
    value = imputed + _wmean(e, w)
    variance = (lam**2 * _wvar_of_mean(fu, v) if n_u else 0.0) + _wvar_of_mean(e, w)
    if variance <= 0:
        return _none(PPI, n, len(members), _unvarying(n))
    se = math.sqrt(variance)
    # A t quantile (n − 1 df), not ppi_py's normal one: at 10–20 clinician scores the normal
    # interval covers only about 90% (benchmarks/ppi_coverage.py); the two agree as n grows.
    z = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1))
    # Against the clinicians-only variance on the same footing (n-divisor, linearised).
    classical = _wvar_of_mean(y, w)
    effective = n * classical / variance
    hajek = "" if weights.equal else "; Hájek weights 1/π (scored) and 1/(1 − π) (unscored)"
    method = f"PPI++, t interval ({n - 1} df), λ = {lam:.2f}{hajek}"
    estimate = _finish(
        PPI, value, se, (value - z * se, value + z * se), n, len(members), method, proportion
    )
    reason = weights.note
    return Estimate(**(asdict(estimate) | {"effective_n": effective, "lam": lam, "reason": reason}))


def power_tuning(
    y: np.ndarray, f: np.ndarray, fu: np.ndarray, w: np.ndarray, v: np.ndarray
) -> float:
    """The λ minimising the PPI variance, clipped to [0, 1]. Equal weights give ppi_py's:
    cov(y, f) / ((1 + n/N) · var(f over scored and unscored together))."""
    if len(fu) == 0:
        return 0.0
    pooled = np.concatenate([f, fu]).var(ddof=1)
    if pooled == 0:
        return 0.0
    wn, vn = w / w.sum(), v / v.sum()
    covariance = float(np.sum(wn**2 * (y - _wmean(y, w)) * (f - _wmean(f, w))))
    spread = float(pooled * (np.sum(wn**2) + np.sum(vn**2)))
    return min(max(covariance / spread, 0.0), 1.0)


# --- weights ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Weights:
    labelled: np.ndarray  # 1/π per scored member, in members' order
    unlabelled: np.ndarray  # 1/(1 − π) per unscored member
    equal: bool
    note: str = ""


def _weights(members: Sequence[Member]) -> _Weights | str:
    """Hájek weights from the recorded π, scaled by each stratum's scored share of its sample;
    a reason string when a stratum has members but no clinician score (the correction could
    not reach it)."""
    by_stratum: dict[str, list[Member]] = defaultdict(list)
    for member in members:
        by_stratum[member.stratum].append(member)
    pi: dict[int, float] = {}
    for stratum, mine in by_stratum.items():
        sampled = sum(m.sampled or m.clinician is not None for m in mine)
        scored = sum(m.clinician is not None for m in mine)
        if scored == 0:
            name = f" {stratum}" if stratum else ""
            return (
                f"Refused: stratum{name} has no clinician scores yet, so the correction "
                "does not reach it."
            )
        for m in mine:
            if not 0 < m.inclusion <= 1:
                return "Refused: an inclusion probability outside (0, 1] was recorded."
            pi[id(m)] = min(m.inclusion * scored / sampled, 1.0)
    scored_pi = np.array([pi[id(m)] for m in members if m.clinician is not None])
    unscored_pi = np.array([pi[id(m)] for m in members if m.clinician is None])
    if np.any(unscored_pi >= 1):
        return "Refused: a conversation sampled with certainty has no clinician score."
    equal = bool(np.ptp(np.concatenate([scored_pi, unscored_pi])) < 1e-12)
    note = "" if equal else "unequal inclusion probabilities: Hájek-weighted"
    return _Weights(1 / scored_pi, 1 / (1 - unscored_pi), equal, note)


def _wmean(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.sum(w * x) / np.sum(w))


def _wvar_of_mean(x: np.ndarray, w: np.ndarray) -> float:
    """The linearised variance of a Hájek mean; with equal weights var(x, ddof=0) / n."""
    wn = w / w.sum()
    return float(np.sum(wn**2 * (x - _wmean(x, w)) ** 2))


# --- results ------------------------------------------------------------------------------------


def _estimate(method, value, se, n, n_population, interval, proportion) -> Estimate:
    z = float(stats.norm.ppf(0.5 + LEVEL / 2))
    return _finish(
        method, value, se, (value - z * se, value + z * se), n, n_population, interval, proportion
    )


def _finish(method, value, se, ci, n, n_population, interval, proportion) -> Estimate:
    if proportion:  # a share stays within 0..1, and so does its interval
        ci = (max(ci[0], 0.0), min(ci[1], 1.0))
    return Estimate(method, value, (float(ci[0]), float(ci[1])), n, n_population, interval, se=se)


def _none(method: str, n: int, n_population: int, reason: str) -> Estimate:
    return Estimate(method, None, None, n, n_population, "", reason)


def _unvarying(n: int) -> str:
    return f"not enough evidence: the {n} scores do not vary, so no interval can be given"


# --- for callers: one model × dimension from plain records --------------------------------------


def mean_of_clinicians(scores: Sequence[float]) -> float | None:
    """An item's clinician score: the mean of its clinicians' scores (None if none)."""
    return float(np.mean(scores)) if scores else None


def members_for(
    population: Sequence[tuple[str, float, float, str]],
    sampled: set[str],
    clinicians: dict[str, float],
    transform: Callable[[float], float] = float,
) -> list[Member]:
    """`Member`s from (key, jury score, π, stratum) rows, the sampled keys and the clinicians'
    mean per scored key; `transform` turns a score into what is estimated (e.g. `passes`)."""
    return [
        Member(
            jury=transform(jury),
            clinician=None if key not in clinicians else transform(clinicians[key]),
            inclusion=inclusion,
            sampled=key in sampled,
            stratum=stratum,
        )
        for key, jury, inclusion, stratum in population
    ]
