"""Variance components over items × clinicians (annotation/pure/crossed.py): on a complete
balanced design they are the two-way random-effects ANOVA's, exactly."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from annotation.pure import crossed


def anova(y):
    """The classical mean squares of a complete items × clinicians table."""
    n, r = y.shape
    rows, columns, grand = y.mean(axis=1), y.mean(axis=0), y.mean()
    residual = y - rows[:, None] - columns[None, :] + grand
    return (
        r * np.sum((rows - grand) ** 2) / (n - 1),
        n * np.sum((columns - grand) ** 2) / (r - 1),
        np.sum(residual**2) / ((n - 1) * (r - 1)),
    )


@settings(max_examples=60, deadline=None)
@given(
    st.integers(3, 30),
    st.integers(2, 8),
    st.floats(0, 2),
    st.floats(0, 2),
    st.floats(0.1, 2),
    st.integers(0, 2**31),
)
def test_the_components_of_a_mean_are_the_anova_estimators(n, r, items_sd, raters_sd, noise, seed):
    rng = np.random.default_rng(seed)
    y = (
        rng.normal(0, items_sd, (n, 1))
        + rng.normal(0, raters_sd, (1, r))
        + rng.normal(0, noise, (n, r))
    )
    rows = y.mean(axis=1)
    slopes = (y - rows[:, None]) / r  # ∂(row mean)/∂w_r of Σ w y / Σ w at w = 1
    value, a, b, c = crossed.mean_influences(rows, slopes)
    found = crossed.from_influences(a, b, c, np.ones((n, r), bool))
    ms_items, ms_clinicians, ms_error = anova(y)
    assert value == pytest.approx(y.mean())
    assert found.item_part == pytest.approx(ms_items / (n * r), rel=1e-9, abs=1e-15)
    assert found.clinician_part == pytest.approx(ms_clinicians / (n * r), rel=1e-9, abs=1e-15)
    assert found.interaction_part == pytest.approx(ms_error / (n * r), rel=1e-9, abs=1e-15)
    untruncated = ms_items >= ms_error and ms_clinicians >= ms_error
    if untruncated:
        total = (ms_items + ms_clinicians - ms_error) / (n * r)
        assert found.variance == pytest.approx(total, rel=1e-9, abs=1e-15)
    assert found.variance >= 0 and found.df >= 1


def test_a_clinician_term_that_dominates_has_the_clinicians_few_degrees_of_freedom():
    few = crossed.Components(1e-6, 1e-2, 1e-7, n_items=1000, n_clinicians=3, n_cells=3000)
    assert few.df == pytest.approx(2, abs=0.05)
    assert few.quantile(0.95) == pytest.approx(stats.t.ppf(0.975, few.df))
    ratios = few.narrowing(0.95)
    assert ratios["items"] > 0.99 and ratios["clinicians"] < 0.5
    assert few.dominant() == crossed.CLINICIANS
    many = crossed.Components(1e-2, 1e-6, 1e-7, n_items=1000, n_clinicians=3, n_cells=3000)
    assert many.df > 900 and many.dominant() == crossed.ITEMS


def test_these_clinicians_only_leave_the_clinician_term_out():
    fixed = crossed.Components(4e-4, 9e-2, 1e-4, 100, 5, 300, sampled=False)
    assert fixed.variance == pytest.approx(4e-4) and fixed.clinicians == 0
    assert fixed.df == 99 and fixed.narrowing(0.95)["clinicians"] is None
