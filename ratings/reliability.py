"""Krippendorff's alpha, computed here once for judge test–retest, clinicians, calibration
rounds and the planner: the point estimate from the `krippendorff` package, and the same
figure from summed coincidence matrices, vectorised, for the bootstrap.

Scores live in a raters × units matrix, NaN where a rater gave no score (not applicable, or no
usable answer). `points` are the rubric scale's points and `pass_mark` its pass mark; the
pass/fail level splits the scores there.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import krippendorff
import numpy as np

from ratings.alpha import ALPHA_NAN, alpha_undefined, no_variation

ALPHA_LEVELS = ("ordinal", "pass_fail", "interval", "nominal")


def library_alpha(
    matrix: np.ndarray, level: str, points: Sequence[int], pass_mark: int
) -> tuple[float | None, str | None]:
    """Alpha at one of ALPHA_LEVELS by the krippendorff package; None with the reason when
    the scores (or the pass/fail split) do not vary."""
    data, domain, measure = matrix, list(points), level
    if level == "pass_fail":
        data = np.where(np.isnan(matrix), np.nan, matrix >= pass_mark)
        domain, measure = [0, 1], "nominal"
    if len(set(data[~np.isnan(data)].tolist())) < 2:
        return None, no_variation()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = krippendorff.alpha(
            reliability_data=data, level_of_measurement=measure, value_domain=domain
        )
    return float(value), None


def ordinal_alpha(
    matrix: np.ndarray, points: Sequence[int], *, rater: str = "rater", unit: str = "item"
) -> tuple[float | None, str]:
    """Ordinal alpha of a raters × units matrix; None with why it is undefined (too few raters
    or shared units, no variation, or the package's NaN)."""
    pairable = matrix[:, np.sum(~np.isnan(matrix), axis=0) >= 2]
    reason = alpha_undefined(
        matrix.shape[0],
        pairable.shape[1],
        pairable[~np.isnan(pairable)].tolist(),
        rater=rater,
        unit=unit,
    )
    if reason:
        return None, reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = krippendorff.alpha(
            reliability_data=matrix, level_of_measurement="ordinal", value_domain=list(points)
        )
    return (None, ALPHA_NAN) if math.isnan(value) else (float(value), "")


# --- vectorised, for the bootstrap -----------------------------------------------------------


def coincidences(matrix: np.ndarray, points: Sequence[int]) -> np.ndarray:
    """Per unit, Krippendorff's coincidence matrix (k × k for k points, flattened): each
    ordered pair of ratings within the unit, weighted 1 / (ratings − 1). Alpha at any level of
    a set of units is a function of the sum of these over the units."""
    counts = np.stack([(matrix == s).sum(axis=0) for s in points], axis=-1).astype(float)
    return coincidences_of_counts(counts).reshape(len(counts), -1)


def coincidences_of_counts(counts: np.ndarray) -> np.ndarray:
    """counts: (…, k) ratings per point on each unit → (…, k, k) coincidences."""
    ratings = counts.sum(axis=-1)[..., None, None]
    pairs = counts[..., :, None] * counts[..., None, :]
    pairs = pairs - np.eye(counts.shape[-1]) * counts[..., None, :]
    with np.errstate(all="ignore"):
        return np.where(ratings >= 2, pairs / (ratings - 1), 0.0)


def alpha_levels(sums: np.ndarray, points: Sequence[int], pass_mark: int) -> np.ndarray:
    """ALPHA_LEVELS (last axis) from summed coincidence matrices, as krippendorff.alpha
    computes them: 1 − Σ o·δ / Σ e·δ with e the coincidences expected by chance; pass/fail
    splits the scores at `pass_mark`."""
    k = len(points)
    values = np.array(points, dtype=float)
    quadratic = (values[:, None] - values[None, :]) ** 2
    matrices = sums.reshape(*sums.shape[:-1], k, k)
    split = np.array([[s < pass_mark, s >= pass_mark] for s in points], dtype=float)
    passed = np.swapaxes(split, 0, 1) @ matrices @ split
    levels = [
        alpha_from(matrices, ordinal_distances),
        alpha_from(passed, nominal_distances),
        alpha_from(matrices, lambda _: quadratic),
        alpha_from(matrices, nominal_distances),
    ]
    return np.stack(levels, axis=-1)


def alpha_from(coincidences: np.ndarray, distances: Callable) -> np.ndarray:
    marginals = coincidences.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta = distances(marginals)
    expected = marginals[..., :, None] * marginals[..., None, :] * delta
    with np.errstate(all="ignore"):
        disagreement = (coincidences * delta).sum(axis=(-2, -1))
        chance = expected.sum(axis=(-2, -1)) / (total - 1)
        return np.where(chance > 1e-12, 1 - disagreement / chance, np.nan)


def nominal_distances(marginals: np.ndarray) -> np.ndarray:
    size = marginals.shape[-1]
    return 1 - np.eye(size)


def ordinal_distances(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k) / 2)², per resample."""
    size = marginals.shape[-1]
    after = np.cumsum(marginals, axis=-1)
    before = after - marginals
    half = (marginals[..., :, None] + marginals[..., None, :]) / 2
    upper = (after[..., None, :] - before[..., :, None] - half) ** 2  # right for c ≤ k
    at_or_above_diagonal = np.triu(np.ones((size, size), dtype=bool))
    return np.where(at_or_above_diagonal, upper, np.swapaxes(upper, -1, -2))
