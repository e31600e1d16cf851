"""Variance components of a figure computed on a crossed sample: items × clinicians, both drawn
from populations (two-way random effects), each item scored by a few of the clinicians.

A figure T is a smooth function of item weights m (one per item) and clinician weights w (one
per clinician), all 1 for the data as observed. Its linearisation

    T(m, w) ≈ T + Σ_i a_i (m_i − 1) + Σ_r b_r (w_r − 1) + Σ_ir c_ir (m_i − 1)(w_r − 1)

gives three plug-in sums whose expectations, in the two-way random-effects model
y_ir = μ + α_i + β_r + ε_ir, are those of the classical ANOVA mean squares:

- Σ a² (the items' spread, clinicians fixed) ≈ σ²_α/N + σ²_ε/cells,
- Σ b² (the clinicians' spread, items fixed) ≈ σ²_β/R + σ²_ε/cells,
- Σ c² (the interaction) ≈ σ²_ε/cells,

each after its degrees-of-freedom correction. The figure's variance over new items *and* new
clinicians is σ²_α/N + σ²_β/R + σ²_ε/cells: the interaction once. (An items bootstrap widened
by a clinicians' jackknife counts it twice; a two-way bootstrap three times, Owen 2007.) On a
complete balanced design the three components equal the ANOVA estimators exactly
(tests/annotation/test_crossed.py). The interval's quantile is Student's t on Satterthwaite's
degrees of freedom: with 3 clinicians and a clinician term that dominates, about 2.

Pure: arrays in, numbers out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats

ITEMS, CLINICIANS, INTERACTION = "items", "clinicians", "interaction"


@dataclass(frozen=True)
class Components:
    """The plug-in parts (each corrected for its degrees of freedom) and the design they
    came from. `sampled=False`: these clinicians only, so the clinician term is left out."""

    item_part: float  # σ²_α/N + σ²_ε/cells
    clinician_part: float  # σ²_β/R + σ²_ε/cells
    interaction_part: float  # σ²_ε/cells
    n_items: int
    n_clinicians: int
    n_cells: int  # (item, clinician) ratings
    sampled: bool = True

    # --- the components: each ≥ 0, adding up to the variance ---

    @property
    def items(self) -> float:
        return max(0.0, self.item_part - self.interaction_part)

    @property
    def clinicians(self) -> float:
        if not self.sampled:
            return 0.0
        return max(0.0, self.clinician_part - self.interaction_part)

    @property
    def interaction(self) -> float:
        # These clinicians only: the interaction is part of the items' spread, never more.
        return self.interaction_part if self.sampled else min(self.interaction_part, self.item_part)

    @property
    def variance(self) -> float:
        return self.items + self.clinicians + self.interaction

    @property
    def df(self) -> float:
        """Satterthwaite's degrees of freedom of the variance, from the parts that make it."""
        terms = self._terms()
        denominator = sum(part**2 / df for part, df in terms)
        if denominator <= 0:
            return float(self.n_items - 1)
        return float(max(1.0, sum(part for part, _ in terms) ** 2 / denominator))

    def _terms(self) -> list[tuple[float, float]]:
        item = (self.item_part, max(1, self.n_items - 1))
        clinician = (self.clinician_part, max(1, self.n_clinicians - 1))
        interaction = (
            self.interaction_part,
            max(1, self.n_cells - self.n_items - self.n_clinicians + 1),
        )
        if not self.sampled:
            return [item]
        items_left, clinicians_left = self.items > 0, self.clinicians > 0
        if items_left and clinicians_left:
            return [item, clinician, (-interaction[0], interaction[1])]
        if items_left:
            return [item]
        if clinicians_left:
            return [clinician]
        return [interaction]

    def quantile(self, level: float) -> float:
        """Student's t quantile of a two-sided `level` interval on `df`."""
        return float(stats.t.ppf(0.5 + level / 2, self.df))

    def half_width(self, level: float) -> float:
        return self.quantile(level) * math.sqrt(self.variance)

    # --- what would narrow it ---

    def scaled(self, items: float = 1.0, clinicians: float = 1.0, cells: float = 1.0) -> Components:
        """The same population at another design: `items` times the items, `clinicians` times
        the clinicians, `cells` times the ratings (items × clinicians per item)."""
        item, clinician, interaction = self.items, self.clinicians, self.interaction
        new_interaction = interaction / cells
        return replace(
            self,
            item_part=item / items + new_interaction,
            clinician_part=clinician / clinicians + new_interaction,
            interaction_part=new_interaction,
            n_items=max(2, round(self.n_items * items)),
            n_clinicians=max(2, round(self.n_clinicians * clinicians)),
            n_cells=max(3, round(self.n_cells * cells)),
        )

    def narrowing(self, level: float) -> dict[str, float | None]:
        """The interval's width with twice the items (each still scored by as many clinicians)
        and with twice the clinicians (each item still scored by as many), as shares of now."""
        now = self.half_width(level)
        if now <= 0:
            return {ITEMS: None, CLINICIANS: None}
        more_items = self.scaled(items=2, cells=2).half_width(level) / now
        more_clinicians = (
            self.scaled(clinicians=2).half_width(level) / now if self.sampled else None
        )
        return {ITEMS: more_items, CLINICIANS: more_clinicians}

    def dominant(self) -> str:
        parts = {ITEMS: self.items, CLINICIANS: self.clinicians, INTERACTION: self.interaction}
        return max(parts, key=parts.__getitem__)

    def as_dict(self, level: float) -> dict[str, Any]:
        total = self.variance
        shares = {
            name: (value / total if total > 0 else None)
            for name, value in ((ITEMS, self.items), (CLINICIANS, self.clinicians),
                                (INTERACTION, self.interaction))
        }  # fmt: skip
        return {
            "shares": shares,
            "df": self.df,
            "width_with_twice": self.narrowing(level),
        }


def from_influences(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, present: np.ndarray, sampled: bool = True
) -> Components:
    """Components from a figure's item influences a (N,), clinician influences b (R,) and
    cross influences c (N, R); only the cells present (rated) carry an interaction."""
    n, r = c.shape
    cells = int(present.sum())
    c = np.where(present, c, 0.0)
    residual_df = max(1, cells - n - r + 1)
    return Components(
        item_part=float(np.sum(a**2)) * n / max(1, n - 1),
        clinician_part=float(np.sum(b**2)) * r / max(1, r - 1),
        interaction_part=float(np.sum(c**2)) * cells / residual_df,
        n_items=n,
        n_clinicians=r,
        n_cells=cells,
        sampled=sampled,
    )


def mean_influences(rates: np.ndarray, d_rates: np.ndarray):
    """T = Σ_i m_i x_i(w) / Σ_i m_i: a mean over items of per-item rates that depend on the
    clinician weights; d_rates (N, R) is ∂x_i/∂w_r at w = 1. Returns T, a, b, c."""
    n = len(rates)
    value = float(rates.mean())
    b = d_rates.sum(axis=0) / n
    return value, (rates - value) / n, b, (d_rates - b[None, :]) / n


def weighted_unit_influences(y, weights, d_y, d_w, members):
    """T = Σ_p W_p y_p / Σ_p W_p over units p (a pair of raters), W_p = n_p(m) Π_{r∈p} w_r.
    y, weights (P,); d_y, d_w (N, P): ∂y_p/∂m_i and ∂n_p/∂m_i; members (P, R) 0/1.
    Units whose value is undefined are left out. Returns T, a, b, c (None if no unit)."""
    defined = np.isfinite(y) & (weights > 0)
    if not defined.any():
        return None
    y = np.where(defined, y, 0.0)
    weights = np.where(defined, weights, 0.0)
    d_y = np.where(defined[None, :], d_y, 0.0)
    d_w = np.where(defined[None, :], d_w, 0.0)
    total = weights.sum()
    value = float((weights * y).sum() / total)
    deviation = np.where(defined, y - value, 0.0)
    a = (d_w @ deviation + d_y @ weights) / total
    b = members.T @ (weights * deviation) / total
    inner = d_w * deviation[None, :] + (d_y - a[:, None]) * weights[None, :]
    c = inner @ members / total - np.outer(d_w.sum(axis=1) / total, b)
    return value, a, b, c
