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

**Small samples.** A few labels cannot show that the jury never disagrees: 30 labels that all
agree are as likely as not when the jury is lenient on one conversation in 40, and the plain
PPI interval then collapses onto the jury's own mean (and so does its variance estimate when
disagreements are rare or one-sided). So the correction's variance never rests on the labels
alone:

- a **mean**: the correction's per-label variance is pooled with z² ≈ 3.84 pseudo-labels on
  which the jury missed by the scores' own spread (the larger of the clinicians' variance on
  the sample and the jury's over the population) — Agresti & Coull's z² pseudo-observations,
  carried to the correction; its weight fades as 3.84 / (n + 3.84);
- a **pass rate**: one pseudo-label in each cell of the clinician × jury pass/fail table (four
  in all, Agresti & Min's 2005 device for a paired difference of proportions), on which λ,
  the point and the variance are all computed; the point moves by at most 2/(n + 4).

`benchmarks/ppi_coverage.py` measures the result with good, noisy, biased, rarely lenient and
uninformative juries (600 populations a row): 95% intervals cover 0.945–1.000 at the minimum of
`MIN_LABELLED` scored conversations and 0.935–1.000 from 10 to 50 (plain PPI++: 0.48–0.99). With neither device
(equal weights) the point and standard error are exactly `ppi_py.ppi_mean_ci`'s (tests pin
that package's figures); the devices are what differs, and only as the docstring says.

Unequal inclusion probabilities (a stratified sample) weight both means **Hájek-style**
(weights normalised to sum to one): a scored conversation by 1/π, an unscored one by 1/(1 − π),
each mean's variance linearised (Σ w²(x − x̄)² / (Σ w)²). A sampled conversation not scored yet
counts as unscored, and π is scaled by the scored share of its stratum's sample (assumed
missing at random), so an unfinished study still gives a valid, if wider, interval. Against
`ppi_py` called with the same weights (`w = 1/π`, `w_unlabeled = 1/(1 − π)`, which it also
normalises to a weighted mean): **the point at a given λ is the same**, to rounding; **λ and
the standard error differ**. ppi_py computes both from the weighted values w·x (its λ from the
covariance of w·(y − θ₁) with w·(f − θ₁), its variance from std(w·x)), which carry the weights'
own spread; ours are the Hájek linearisation, Σ w²(x − x̄)², and λ is the value minimising the
variance reported (`power_tuning`).
With equal weights the two coincide; on the test's 3 : 1 stratified sample ppi_py's λ is 0.644
and ours 0.669, points 0.005 apart (tests pin ppi_py 0.2.3's figures).

The effective number of clinician labels is n × var(clinicians only) / var(PPI): how many
clinician-scored conversations the clinicians-only estimate would need for the same width,
never more than the population. Fewer than `MIN_LABELLED` scored conversations, or scores that
do not vary, give "not enough evidence" instead of a number.

**Balance.** Whatever design a study records, the jury's score is known on every conversation,
so the sample can be checked: the (Hájek-weighted) jury mean of the scored conversations
against the population's, its standard error what the recorded inclusion probabilities imply
(Σ (1 − π)/π · (f − F̄)² / N²). Beyond |z| of `REFUSE_Z` (p ≈ 1e-4 if the sample were drawn as
recorded) both the clinicians-only and the corrected estimate are refused with the figures;
beyond `FLAG_Z` (p < 0.01) they are shown with a warning. Plain data in, plain data out; no
Django.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from jury.pure.aggregate import wilson
from ratings.scale import PASS_THRESHOLD

LEVEL = 0.95
MIN_LABELLED = 10
# Pseudo-labels that keep a small sample's correction from claiming certainty (module docstring).
PSEUDO_MEAN = float(stats.norm.ppf(0.5 + LEVEL / 2) ** 2)  # z² ≈ 3.84, as Agresti–Coull add
PSEUDO_PER_CELL = 1.0  # a pass rate: one per cell of the clinician × jury table
# The balance check: |z| of the scored sample's jury mean against the population's.
REFUSE_Z = 3.89  # p ≈ 1e-4 two-sided: a random sample is refused about once in 10,000
FLAG_Z = 2.58  # p < 0.01: shown, with a warning
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


@dataclass(frozen=True, slots=True)
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
    balance: str = ""  # a warning or refusal from the balance check, for the page's notes

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
    check = balance(members, weighted)
    if check.refused:
        refused = Estimate(PPI, None, None, len(labelled), len(members), "", check.text)
        return {
            JURY_ONLY: jury,
            CLINICIANS_ONLY: _flagged(refused, check.text, CLINICIANS_ONLY),
            PPI: _flagged(refused, check.text),
        }
    clinicians = clinicians_only(labelled, weighted, proportion)
    ppi = prediction_powered(members, weighted, clinicians, proportion)
    return {
        JURY_ONLY: jury,
        CLINICIANS_ONLY: _flagged(clinicians, check.text),
        PPI: _flagged(ppi, check.text),
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
    pseudo: bool = True,
) -> Estimate:
    """PPI++ for a mean: λ·jury mean (unscored) + mean(clinician − λ·jury) (scored), with the
    small-sample pseudo-labels of the module docstring (`pseudo=False`: plain PPI++, ppi_py's)."""
    labelled = [m for m in members if m.clinician is not None]
    unlabelled = [m for m in members if m.clinician is None]
    y = np.array([m.clinician for m in labelled], dtype=float)
    f = np.array([m.jury for m in labelled], dtype=float)
    fu = np.array([m.jury for m in unlabelled], dtype=float)
    w, v = weights.labelled, weights.unlabelled
    n, n_u = len(y), len(fu)
    classical = _wvar_of_mean(y, w)  # clinicians only, on the PPI's footing (n-divisor)
    if pseudo and proportion:
        y, f, w = _with_pseudo_cells(y, f, w)
    if lam is None:
        lam = power_tuning(y, f, fu, w, v)
    e = y - lam * f
    imputed = lam * _wmean(fu, v) if n_u else 0.0
    value = imputed + _wmean(e, w)
    correction = _wvar_of_mean(e, w)
    if pseudo and not proportion:
        correction = _with_pseudo_misses(correction, w, _spread(y, w, members))
    variance = (lam**2 * _wvar_of_mean(fu, v) if n_u else 0.0) + correction
    if variance <= 0:
        return _none(PPI, n, len(members), _unvarying(n))
    se = math.sqrt(variance)
    # A t quantile (n − 1 df), not ppi_py's normal one: at 10–20 clinician scores the normal
    # interval covers only about 90% (benchmarks/ppi_coverage.py); the two agree as n grows.
    z = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1))
    # Never worth more labels than there are conversations to label.
    effective = min(n * classical / variance, float(len(members)))
    hajek = "" if weights.equal else "; Hájek weights 1/π (scored) and 1/(1 − π) (unscored)"
    floor = (
        ""
        if not pseudo
        else "; 4 pseudo-labels, one per pass/fail cell"
        if proportion
        else f"; correction's variance pooled with {PSEUDO_MEAN:.2f} pseudo-misses"
    )
    method = f"PPI++, t interval ({n - 1} df), λ = {lam:.2f}{floor}{hajek}"
    estimate = _finish(
        PPI, value, se, (value - z * se, value + z * se), n, len(members), method, proportion
    )
    reason = weights.note
    return Estimate(**(asdict(estimate) | {"effective_n": effective, "lam": lam, "reason": reason}))


def _with_pseudo_cells(
    y: np.ndarray, f: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pass rate's labels with one pseudo-label (of the mean weight) in each cell of the
    clinician × jury pass/fail table: both agreeing cells and both disagreeing ones."""
    cells_y, cells_f = np.array([1.0, 0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0, 1.0])
    extra = np.full(4, PSEUDO_PER_CELL * float(w.mean()))
    return np.concatenate([y, cells_y]), np.concatenate([f, cells_f]), np.concatenate([w, extra])


def _spread(y: np.ndarray, w: np.ndarray, members: Sequence[Member]) -> float:
    """The scores' own variance per conversation: the larger of the clinicians' on the sample
    and the jury's over the population (so a sample that happens to agree cannot shrink it)."""
    clinicians = float(np.sum(w * (y - _wmean(y, w)) ** 2) / np.sum(w))
    jury = float(np.var([m.jury for m in members]))
    return max(clinicians, jury)


def _with_pseudo_misses(correction: float, w: np.ndarray, spread: float) -> float:
    """The correction's variance of the mean pooled with PSEUDO_MEAN pseudo-labels on which
    the jury missed by the scores' spread (at Kish's effective size when weights differ)."""
    size = float(w.sum() ** 2 / np.sum(w**2))
    per_label = correction * size
    pooled = (size * per_label + PSEUDO_MEAN * spread) / (size + PSEUDO_MEAN)
    return pooled / size


def power_tuning(
    y: np.ndarray, f: np.ndarray, fu: np.ndarray, w: np.ndarray, v: np.ndarray
) -> float:
    """The λ minimising the PPI variance, clipped to [0, 1]. Equal weights give ppi_py's:
    cov(y, f) / ((1 + n/N) · var(f over scored and unscored together)). Unequal weights give
    the exact minimiser of the linearised variance reported, Σ w²(y − ȳ)(f − f̄) over
    Σ w²(f − f̄)² + Σ v²(f_u − f̄_u)² (weights normalised): ppi_py's pooled form would miss it
    when the strata's jury scores differ."""
    if len(fu) == 0:
        return 0.0
    wn, vn = w / w.sum(), v / v.sum()
    covariance = float(np.sum(wn**2 * (y - _wmean(y, w)) * (f - _wmean(f, w))))
    if np.ptp(w) == 0 and np.ptp(v) == 0:
        pooled = np.concatenate([f, fu]).var(ddof=1)
        spread = float(pooled * (np.sum(wn**2) + np.sum(vn**2)))
    else:
        spread = _wvar_of_mean(f, w) + _wvar_of_mean(fu, v)
    if spread <= 0:
        return 0.0
    return min(max(covariance / spread, 0.0), 1.0)


# --- weights ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Weights:
    labelled: np.ndarray  # 1/π per scored member, in members' order
    unlabelled: np.ndarray  # 1/(1 − π) per unscored member
    inclusion: np.ndarray  # π per member, in members' order (for the balance check)
    equal: bool
    note: str = ""


def _weights(members: Sequence[Member]) -> _Weights | str:
    """Hájek weights from the recorded π, scaled by each stratum's scored share of its sample;
    a reason string when a stratum has members but no clinician score (the correction could
    not reach it)."""
    inclusion = np.array([m.inclusion for m in members], dtype=float)
    if np.any((inclusion <= 0) | (inclusion > 1)):
        return "Refused: an inclusion probability outside (0, 1] was recorded."
    scored = np.array([m.clinician is not None for m in members])
    sampled = scored | np.array([m.sampled for m in members])
    strata = np.array([m.stratum for m in members], dtype=object)
    pi = np.empty(len(members))
    for stratum in dict.fromkeys(strata):
        mine = strata == stratum
        n_scored = int(scored[mine].sum())
        if n_scored == 0:
            name = f" {stratum}" if stratum else ""
            return (
                f"Refused: stratum{name} has no clinician scores yet, so the correction "
                "does not reach it."
            )
        pi[mine] = np.minimum(inclusion[mine] * n_scored / int(sampled[mine].sum()), 1.0)
    if np.any(pi[~scored] >= 1):
        return "Refused: a conversation sampled with certainty has no clinician score."
    equal = bool(np.ptp(pi) < 1e-12)
    note = "" if equal else "unequal inclusion probabilities: Hájek-weighted"
    return _Weights(1 / pi[scored], 1 / (1 - pi[~scored]), pi, equal, note)


# --- balance: does the scored sample look like the population it was drawn from? -------------


@dataclass(frozen=True)
class Balance:
    z: float | None  # None: the jury's scores do not vary, nothing to check
    sample: float  # the scored conversations' (Hájek-weighted) jury mean
    population: float  # the jury's mean over the population
    refused: bool
    text: str  # "" when the sample looks as drawn


def balance(members: Sequence[Member], weights: _Weights) -> Balance:
    """The scored sample's jury mean against the population's, in standard errors implied by
    the recorded inclusion probabilities (a Poisson-sampling linearisation: conservative for
    a fixed-size or stratified sample, so it refuses less often, never more)."""
    jury = np.array([m.jury for m in members], dtype=float)
    scored = np.array([m.clinician is not None for m in members])
    pi = weights.inclusion
    population = float(jury.mean())
    sample = _wmean(jury[scored], weights.labelled)
    variance = float(np.sum((1 - pi) / pi * (jury - population) ** 2) / len(jury) ** 2)
    if variance <= 0:
        return Balance(None, sample, population, False, "")
    z = (sample - population) / math.sqrt(variance)
    if abs(z) < FLAG_Z:
        return Balance(z, sample, population, False, "")
    p = 2 * float(stats.norm.sf(abs(z)))
    figures = (
        f"the jury's mean on the {int(scored.sum())} clinician-scored conversations is "
        f"{sample:.2f} against {population:.2f} over all {len(jury)} (z = {z:+.1f}, "
        f"p {'< 0.0001' if p < 1e-4 else f'= {p:.4f}'} if they were drawn as recorded)"
    )
    if abs(z) >= REFUSE_Z:
        return Balance(
            z,
            sample,
            population,
            True,
            f"Refused: {figures}. The sample does not look random, whatever design it "
            "records, so neither the clinicians' mean nor the correction carries over to the "
            "rest.",
        )
    return Balance(
        z,
        sample,
        population,
        False,
        f"Check the sample: {figures}; a random sample strays this far about once in {1 / p:,.0f}.",
    )


def _flagged(estimate: Estimate, warning: str, method: str = "") -> Estimate:
    """The estimate carrying the balance check's warning (or refusal) for the page's notes."""
    if not warning:
        return estimate
    found = asdict(estimate) | {"balance": warning, "method": method or estimate.method}
    if warning not in estimate.reason:
        found["reason"] = f"{estimate.reason}; {warning}" if estimate.reason else warning
    return Estimate(**found)


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
