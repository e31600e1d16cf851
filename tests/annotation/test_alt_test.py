"""The alt-test (annotation/pure/alt_test.py): against a plain loop written from the paper's
procedure, against statsmodels' Benjamini–Yekutieli and scipy's t-test, its minimums, and
properties of every result (issue 35, item 1; the family across dimensions: item 6)."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from annotation.pure import alt_test as at


def population(items, *, clinicians=4, jury="clinician", noise=0.6, seed=0, spread=1.2):
    """Every clinician scores every item around its latent quality; the jury as asked."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(3, spread, items)

    def score(value):
        return int(np.clip(np.rint(value), 1, 5))

    scored, panel = {}, {}
    for i in range(items):
        scored[f"i{i}"] = {
            f"c{k}": score(truth[i] + rng.normal(0, noise)) for k in range(clinicians)
        }
        panel[f"i{i}"] = {
            "clinician": lambda t=truth[i]: score(t + rng.normal(0, noise)),
            "constant": lambda t=truth[i]: 3,
            "random": lambda t=truth[i]: int(rng.integers(1, 6)),
            "noise_free": lambda t=truth[i]: score(t),
        }[jury]()
    return scored, panel


def by_the_paper(clinicians, jury, *, scale="ordinal", epsilon=0.2, q=0.05, min_items=30):
    """The procedure as the paper states it, one item at a time (no arrays): ω and ρ."""

    def align(x, others):
        if scale == "ordinal":
            return -math.sqrt(sum((x - o) ** 2 for o in others) / len(others))
        return sum((x >= 3) == (o >= 3) for o in others) / len(others)

    names = sorted({c for scores in clinicians.values() for c in scores})
    p_values, advantages = [], []
    for left_out in names:
        jury_wins, own_wins = [], []
        for item, scores in sorted(clinicians.items()):
            others = [s for c, s in scores.items() if c != left_out]
            if left_out not in scores or not others or item not in jury:
                continue
            f, h = align(jury[item], others), align(scores[left_out], others)
            jury_wins.append(f >= h)
            own_wins.append(h >= f)
        if len(jury_wins) < min_items:
            continue
        d = np.array(own_wins, float) - np.array(jury_wins, float)
        p = stats.ttest_1samp(d, epsilon, alternative="less").pvalue
        p_values.append(p if np.isfinite(p) else (0.0 if d.mean() < epsilon else 1.0))
        advantages.append(float(np.mean(jury_wins)))
    if not p_values:
        return None, None
    rejected = multipletests(p_values, alpha=q, method="fdr_by")[0]
    return rejected.sum() / len(p_values), float(np.mean(advantages))


# --- the procedure -------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10_000),
    st.integers(3, 6),
    st.sampled_from(["clinician", "random", "noise_free"]),
    st.sampled_from(at.SCALES),
)
def test_omega_and_rho_equal_the_papers_procedure_item_by_item(seed, raters, jury, scale):
    rng = np.random.default_rng(seed)
    clinicians, panel = population(60, clinicians=raters, jury=jury, seed=seed)
    # Partial overlap: drop some ratings, so clinicians have different items.
    for scores in clinicians.values():
        for name in list(scores):
            if len(scores) > 2 and rng.random() < 0.3:
                del scores[name]
    omega, rho = by_the_paper(clinicians, panel, scale=scale, min_items=20)
    result = at.alt_test(clinicians, panel, scale=scale, min_items=20, min_clinicians=1)
    assert result.winning_rate == pytest.approx(omega)
    assert result.advantage == pytest.approx(rho)


def test_the_paired_test_is_scipys_one_sided_t_test():
    d = np.array([1, 0, -1, 0, 0, 1, -1, -1, 0, 1, 0, 0, -1, 0], dtype=float)
    t, p = at.paired_test(d, 0.2)
    expected = stats.ttest_1samp(d, 0.2, alternative="less")
    assert t == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)


def test_differences_that_never_vary_are_decided_by_their_mean():
    assert at.paired_test(np.zeros(40), 0.2) == (None, 0.0)
    assert at.paired_test(np.ones(40), 0.2) == (None, 1.0)


def test_a_tie_counts_for_both_sides():
    # Others 2 and 4: a jury of 3 and a left-out clinician of 3 align equally (−RMSE −1).
    clinicians = {f"i{i}": {"a": 3, "b": 2, "c": 4} for i in range(30)}
    jury = {f"i{i}": 3.0 for i in range(30)}
    result = at.alt_test(clinicians, jury, min_clinicians=1)
    mine = next(c for c in result.comparisons if c.clinician == "a")
    assert mine.jury_advantage == mine.clinician_advantage == 1.0


def test_pass_fail_uses_accuracy_and_a_panels_half_by_the_tie_rule():
    # Others pass on 1 of 2 items' raters: a jury at 2.5 passes by half up, half by half credit.
    clinicians = {"i0": {"a": 3, "b": 2, "c": 4}}
    x = np.array([[3, 2, 4]], float)
    up = at.indicator_differences(x, np.array([2.5]), at.PASS_FAIL, 3, "half_up")
    credit = at.indicator_differences(x, np.array([2.5]), at.PASS_FAIL, 3, "half_credit")
    # Left out a (pass): others b fail, c pass → a's accuracy 0.5; the jury's 0.5 either way.
    assert (up[0][0][0], up[0][1][0]) == (1.0, 1.0)
    assert (credit[0][0][0], credit[0][1][0]) == (1.0, 1.0)
    # Left out b (fail): others a, c pass → b's accuracy 0; jury 1 (half up), ½ (half credit).
    assert (up[1][0][0], up[1][1][0]) == (1.0, 0.0)
    assert (credit[1][0][0], credit[1][1][0]) == (1.0, 0.0)
    assert clinicians  # the mapping the arrays stand for


# --- the verdict and its minimums ----------------------------------------------------------------


def test_a_noise_free_jury_stands_in_and_a_random_one_does_not():
    clinicians, jury = population(150, jury="noise_free", seed=3)
    assert at.alt_test(clinicians, jury).verdict == at.STANDS_IN
    clinicians, jury = population(150, jury="random", seed=3)
    result = at.alt_test(clinicians, jury)
    assert result.verdict == at.NOT_SHOWN and result.winning_rate == 0


def test_two_clinicians_are_not_enough_evidence_however_many_items():
    clinicians, jury = population(500, clinicians=2, jury="noise_free")
    result = at.alt_test(clinicians, jury)
    assert result.verdict == at.NOT_ENOUGH
    assert "needs 3" in result.reason and "more clinicians" in result.reason


def test_clinicians_with_fewer_than_30_items_are_left_out_and_listed():
    clinicians, jury = population(29, clinicians=5, jury="noise_free")
    result = at.alt_test(clinicians, jury)
    assert result.verdict == at.NOT_ENOUGH and result.n_clinicians == 0
    assert sorted(result.too_few) == [(f"c{k}", 29) for k in range(5)]
    assert "0 of 5 clinicians have the 30 items" in result.reason
    assert "needs, the others 29, 29, 29, 29, 29;" in result.reason
    clinicians, jury = population(40, clinicians=4, jury="noise_free")
    for i in range(15):  # c3 keeps 25 items
        del clinicians[f"i{i}"]["c3"]
    result = at.alt_test(clinicians, jury)
    assert result.too_few == (("c3", 25),) and result.n_clinicians == 3
    assert result.verdict != at.NOT_ENOUGH
    assert "(1 more, with fewer than 30 items, left out: 25)" in result.reason


# --- properties ----------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 6), st.sampled_from(at.SCALES))
def test_a_jury_that_copies_a_clinician_ties_that_clinician_on_every_item(seed, raters, scale):
    clinicians, _ = population(40, clinicians=raters, seed=seed)
    copy = {item: scores["c0"] for item, scores in clinicians.items()}
    result = at.alt_test(clinicians, copy, scale=scale)
    mine = next(c for c in result.comparisons if c.clinician == "c0")
    assert mine.jury_advantage == mine.clinician_advantage == 1.0
    assert mine.p_value == 0.0 and mine.wins


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10_000),
    st.integers(3, 6),
    st.integers(1, 5),
    st.floats(0.3, 1.5),
    st.sampled_from(at.SCALES),
)
def test_a_constant_jury_never_stands_in(seed, raters, constant, noise, scale):
    clinicians, _ = population(60, clinicians=raters, noise=noise, seed=seed)
    jury = dict.fromkeys(clinicians, constant)
    result = at.alt_test(clinicians, jury, scale=scale)
    assert result.verdict != at.STANDS_IN
    assert not result.jury_varies


def test_without_the_guard_a_constant_jury_would_stand_in_among_noisy_clinicians():
    """Why the guard exists: alignment alone lets a constant 3 through (see CONSTANT_JURY)."""
    clinicians, _ = population(2000, clinicians=3, noise=0.8, spread=1.0, seed=1)
    result = at.alt_test(clinicians, dict.fromkeys(clinicians, 3))
    assert result.winning_rate >= at.WINNING_RATE  # the paper's rule alone would pass it
    assert result.verdict == at.NOT_SHOWN and result.reason == at.CONSTANT_JURY


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 10_000), st.permutations(["c0", "c1", "c2", "c3"]), st.sampled_from(at.SCALES)
)
def test_renaming_the_clinicians_changes_nothing(seed, names, scale):
    clinicians, jury = population(50, jury="clinician", seed=seed)
    rename = dict(zip(["c0", "c1", "c2", "c3"], names, strict=True))
    renamed = {i: {rename[c]: s for c, s in scores.items()} for i, scores in clinicians.items()}
    first = at.alt_test(clinicians, jury, scale=scale)
    second = at.alt_test(renamed, jury, scale=scale)
    assert (first.verdict, first.winning_rate) == (second.verdict, second.winning_rate)
    assert first.advantage == pytest.approx(second.advantage)
    by_name = {rename[c.clinician]: c for c in first.comparisons}
    for comparison in second.comparisons:
        before = by_name[comparison.clinician]
        assert (before.p_value, before.wins) == (comparison.p_value, comparison.wins)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.floats(0.001, 0.3))
# A p-value exactly on Benjamini–Hochberg's line (k / m · q with k = m): statsmodels rejects
# it; computing k q / m in another order put it a hair above the line.
@example(p=[0.0, 0.0, 0.0, 0.0, 0.24681753016658592], q=0.24681753016658592)
def test_benjamini_yekutieli_rejects_a_subset_of_what_benjamini_hochberg_rejects(p, q):
    by, bh = at.benjamini_yekutieli(p, q), at.benjamini_hochberg(p, q)
    assert all(b <= h for b, h in zip(by, bh, strict=True))
    assert by == list(multipletests(p, alpha=q, method="fdr_by")[0])
    assert bh == list(multipletests(p, alpha=q, method="fdr_bh")[0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=6, max_size=6), min_size=1, max_size=5))
def test_by_rejection_counts_counts_what_benjamini_yekutieli_rejects_in_each_family(families):
    expected = [sum(at.benjamini_yekutieli(p, at.Q)) for p in families]
    assert list(at.by_rejection_counts(np.array(families), at.Q)) == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["clinician", "random", "noise_free"]))
def test_bounds(seed, jury):
    clinicians, panel = population(40, jury=jury, seed=seed)
    result = at.alt_test(clinicians, panel)
    assert 0 <= result.winning_rate <= 1 and 0 <= result.advantage <= 1
    for c in result.comparisons:
        # A tie counts for both, so the two advantages sum to 1 or more.
        assert c.jury_advantage + c.clinician_advantage >= 1 - 1e-12
        assert 0 <= c.p_value <= 1


# --- the family across dimensions ---------------------------------------------------------------


def test_a_family_of_one_dimension_is_that_dimension():
    clinicians, jury = population(80, jury="noise_free", seed=5)
    alone = at.alt_test(clinicians, jury)
    assert at.family({"d": alone}).tests["d"] == alone


def test_the_family_can_take_back_a_win_that_one_dimension_alone_would_claim():
    """Six dimensions each with p-values just under their own BY cut: alone each stands in,
    in the family of 18 comparisons none does (finding 8: "k of 6" needs the family)."""

    def test_with(p_values):
        comparisons = [
            at.Comparison(f"c{k}", 40, 0.8, 0.8, -2.0, p) for k, p in enumerate(p_values)
        ]
        return at.decide(comparisons, (), 40, at.ORDINAL, 0.2, 0.05, 30, 3)

    # Alone: 3 p-values, BY cut for k = 2 is 2/3 · 0.05 / (1 + 1/2 + 1/3) = 0.018.
    dims = {f"d{k}": test_with([0.017, 0.017, 0.9]) for k in range(6)}
    assert all(t.verdict == at.STANDS_IN for t in dims.values())
    together = at.family(dims)
    assert together.n_comparisons == 18
    assert together.standing_in == []
    assert all(t.verdict == at.NOT_SHOWN for t in together.tests.values())


def test_dimensions_without_enough_clinicians_stay_out_of_the_family():
    enough, jury = population(60, jury="noise_free", seed=2)
    few, few_jury = population(60, clinicians=2, jury="noise_free", seed=2)
    together = at.family({"a": at.alt_test(enough, jury), "b": at.alt_test(few, few_jury)})
    assert together.n_comparisons == 4
    assert together.tests["b"].verdict == at.NOT_ENOUGH
