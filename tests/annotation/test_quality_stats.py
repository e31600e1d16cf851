"""Consistency vs clinician quality at the right unit (annotation.pure.quality_stats, issue 19):
cells sharing a task are resampled together, so a null correlation is called significant about
5% of the time, not the naive test's 20%; a cell weighs as many as its scored conversations;
too few cells or tasks give "not enough evidence"; Holm's adjustment never lowers a p-value,
stays within 1 and keeps the order. All on data built here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from annotation.pure import quality_stats as q


def null_cells(rng: np.random.Generator, tasks: int = 8, models: int = 4, icc: float = 0.7):
    """Cells whose consistency and quality are independent, but each shares its task's effect
    on both sides (a hard task is both inconsistent and badly done, by chance of the draw)."""
    task = np.repeat(np.arange(tasks), models)
    x = np.sqrt(icc) * rng.normal(size=tasks)[task] + np.sqrt(1 - icc) * rng.normal(size=task.size)
    y = np.sqrt(icc) * rng.normal(size=tasks)[task] + np.sqrt(1 - icc) * rng.normal(size=task.size)
    weights = rng.integers(1, 6, size=task.size)
    return x, y, weights, task


def test_cells_sharing_a_task_keep_the_false_positive_rate_near_5_percent():
    rng = np.random.default_rng(19)
    simulations = 300
    naive = cluster = 0
    for seed in range(simulations):
        x, y, w, task = null_cells(rng)
        naive += q.naive_pearson_p(x, y) < 0.05
        cluster += (
            q.cluster_correlation(x, y, w, task, n_resamples=300, seed=seed)["pearson"]["p"] < 0.05
        )
    # Naive p-values treat 32 cells as independent when there are 8 tasks: about 20% here.
    assert naive / simulations > 0.12
    assert cluster / simulations < 0.09  # 5% ± 1.3% (binomial se of 300 simulations)


def test_a_real_association_is_still_found():
    rng = np.random.default_rng(3)
    task = np.repeat(np.arange(12), 3)
    x = rng.normal(size=task.size)
    y = 0.8 * x + 0.4 * rng.normal(size=task.size)
    found = q.cluster_correlation(x, y, np.ones(task.size), task, n_resamples=500)
    assert found["pearson"]["p"] < 0.001 and found["pearson"]["ci"][0] > 0.5
    assert found["spearman"]["p"] < 0.001


def test_three_cells_are_not_enough_evidence():
    found = q.cluster_correlation([0.1, 0.5, 0.9], [1, 3, 5], [2, 2, 2], ["a", "b", "c"])
    for name in ("pearson", "spearman"):
        assert found[name]["value"] is None and found[name]["p"] is None
        assert found[name]["reason"] == "not enough evidence (3 cells, 3 tasks; 10 needed)"


def test_many_cells_in_few_tasks_are_not_enough_evidence():
    x = np.linspace(0, 1, 12)
    found = q.cluster_correlation(x, x * 4 + 1, np.ones(12), np.arange(12) % 3)
    assert found["pearson"]["reason"] == ("not enough evidence (12 cells, 3 tasks; 5 tasks needed)")
    flat = q.cluster_correlation(np.full(12, 0.5), x, np.ones(12), np.arange(12) % 6)
    assert flat["pearson"]["value"] is None and "no variation" in flat["pearson"]["reason"]


def test_every_estimate_states_its_n_and_method():
    rng = np.random.default_rng(5)
    x, y, w, task = null_cells(rng, tasks=6, models=3)
    found = q.cluster_correlation(x, y, w, task, n_resamples=400)
    for name in ("pearson", "spearman"):
        estimate = found[name]
        assert (estimate["n"], estimate["tasks"], estimate["conversations"]) == (18, 6, w.sum())
        assert estimate["method"] == q.method_text(400)
        assert "task-cluster bootstrap" in estimate["method"]


def test_equal_weights_give_scipys_pearson_and_spearman():
    rng = np.random.default_rng(1)
    x = rng.normal(size=15)
    y = np.round(x + rng.normal(size=15))  # ties on one side
    ones = np.ones(15)
    assert float(q.weighted_pearson(x, y, ones)) == pytest.approx(stats.pearsonr(x, y)[0])
    assert float(q.weighted_spearman(x, y, ones)) == pytest.approx(stats.spearmanr(x, y)[0])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 8), st.integers(1, 5), st.integers(1, 4)),  # x, y, conversations
        min_size=3,
        max_size=12,
    )
)
def test_a_cell_weighs_as_much_as_its_conversations_repeated(cells):
    """A cell of weight w counts as w copies of itself, for Pearson and Spearman alike."""
    x, y, w = (np.array([c[i] for c in cells], dtype=float) for i in range(3))
    copies = np.repeat(np.arange(len(cells)), w.astype(int))
    xr, yr, ones = x[copies], y[copies], np.ones(len(copies))
    for statistic in (q.weighted_pearson, q.weighted_spearman):
        weighted, repeated = float(statistic(x, y, w)), float(statistic(xr, yr, ones))
        assert np.isnan(weighted) == np.isnan(repeated)
        if not np.isnan(weighted):
            assert weighted == pytest.approx(repeated, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_the_interval_excludes_zero_exactly_when_p_is_below_5_percent(seed):
    rng = np.random.default_rng(seed)
    x, y, w, task = null_cells(rng, tasks=6, models=2)
    y = y + rng.uniform(0, 1.5) * x  # from no association to a clear one
    estimate = q.cluster_correlation(x, y, w, task, n_resamples=200, seed=seed)["pearson"]
    low, high = estimate["ci"]
    assert low <= estimate["value"] <= high
    assert (low > 0 or high < 0) == (estimate["p"] < 0.05)


def test_a_cells_quality_is_the_mean_of_its_conversations_means():
    scores = {1: [2, 4], 2: [5], 3: [1, 1, 1], 4: [], 5: [3]}
    cell_of = {1: "a", 2: "a", 3: "b", 4: "b"}  # 5 belongs to no cell with metrics
    assert q.cell_quality(scores, cell_of) == {"a": (4.0, 2), "b": (1.0, 1)}


def test_holm_on_a_worked_example_and_as_statsmodels_has_it():
    raw = [0.01, 0.04, 0.03, None, 0.005]
    # sorted: 0.005×4, 0.01×3, 0.03×2, 0.04×1, each at least the one before
    assert q.holm(raw) == pytest.approx([0.03, 0.06, 0.06, None, 0.02])
    rng = np.random.default_rng(2)
    many = list(rng.uniform(0, 0.2, size=40))
    assert q.holm(many) == pytest.approx(list(multipletests(many, method="holm")[1]))


@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=30))
def test_holm_never_lowers_a_p_value_stays_within_1_and_keeps_the_order(raw):
    adjusted = q.holm(raw)
    assert [a is None for a in adjusted] == [p is None for p in raw]
    pairs = [(p, a) for p, a in zip(raw, adjusted, strict=True) if p is not None]
    for p, a in pairs:
        assert p <= a <= 1
    for p1, a1 in pairs:
        for p2, a2 in pairs:
            if p1 < p2:
                assert a1 <= a2
