"""Agreement figures: Krippendorff's worked example, kappa and correlations against their
libraries and published answers, the four jury modes by hand, half-up rounding, exclusions,
the vectorised bootstrap equal to the libraries, property tests and the command's summary (the
verdict: test_envelope.py; the planner: test_planning.py)."""

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotation.dashboards.tables import table
from annotation.pure import agreement as ag
from annotation.pure.agreement import (
    Rating,
    agreement,
    clinician_matrix,
    half_up,
    pairwise,
)
from annotation.pure.envelope import MIN_INTERVAL_ITEMS
from ratings import reliability

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers × 12 units,
# values 1–5, None = not coded. Published: nominal 0.743, ordinal 0.815, interval 0.849.
WORKED_EXAMPLE = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
# Fleiss (1971) as on Wikipedia's "Fleiss' kappa": 10 subjects, 14 raters, 5 categories.
FLEISS_EXAMPLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]
QUICK = {"n_resamples": 0}


def worked_example(dimension="safety"):
    return [
        Rating(f"u{unit:02d}", observer, dimension, value)
        for observer, row in WORKED_EXAMPLE.items()
        for unit, value in enumerate(row)
    ]


def simulated(items=40, clinicians="ABC", seed=0, dimensions=("safety",), jury_noise=1):
    """Clinicians and a jury scoring around each item's true score."""
    rng = np.random.default_rng(seed)
    ratings = []
    for dimension in dimensions:
        for item in range(items):
            truth = int(rng.integers(1, 6))

            def near(noise, truth=truth):
                return int(np.clip(truth + rng.integers(-noise, noise + 1), 1, 5))

            ratings += [Rating(f"i{item:03d}", c, dimension, near(1)) for c in clinicians]
            ratings.append(
                Rating(f"i{item:03d}", "panel", dimension, near(jury_noise), kind="jury")
            )
    return ratings


# --- Krippendorff's worked example ---------------------------------------------------------------


def test_the_worked_example_gives_the_published_alphas():
    result = agreement(worked_example())["safety"]
    assert round(result.alpha.ordinal.value, 3) == 0.815
    assert round(result.alpha.interval.value, 3) == 0.849
    assert round(result.alpha.nominal.value, 3) == 0.743
    assert result.alpha.ordinal.value == pytest.approx(0.8153875, abs=1e-7)
    assert (result.alpha.n_items, result.alpha.n_raters, result.n_items, result.n_raters) == (
        11,
        4,
        12,
        4,
    )
    assert result.alpha.ordinal.ci_low < result.alpha.ordinal.value < result.alpha.ordinal.ci_high
    assert result.excluded == {"clinician": {"not_applicable": 7}}


def test_pass_fail_alpha_is_nominal_alpha_on_scores_of_3_or_more():
    matrix = np.array(
        [[np.nan if v is None else v >= 3 for v in r] for r in WORKED_EXAMPLE.values()]
    )
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert agreement(worked_example(), **QUICK)["safety"].alpha.pass_fail.value == pytest.approx(
        expected
    )


@pytest.mark.parametrize("pass_mark", [2, 4])
def test_pass_fail_alpha_splits_at_the_rubrics_pass_mark(pass_mark):
    matrix = np.array(
        [[np.nan if v is None else v >= pass_mark for v in r] for r in WORKED_EXAMPLE.values()]
    )
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    at_three = agreement(worked_example(), **QUICK)["safety"].alpha.pass_fail.value
    moved = agreement(worked_example(), threshold=pass_mark, **QUICK)["safety"].alpha.pass_fail
    assert moved.value == pytest.approx(expected)
    assert moved.value != pytest.approx(at_three)


# --- kappa and correlations against known answers ------------------------------------------------


def test_quadratic_kappa_reproduces_scikit_learns_published_example():
    # Artstein & Poesio's table 4 as in scikit-learn's tests (labels 0–2 here 1–3):
    # unweighted 0.9315, linear 0.9412, quadratic 0.9541.
    a = [1] * 46 + [2] * 44 + [3] * 10
    b = [1] * 50 + [2] * 40 + [3] * 10
    assert round(pairwise(a, b, **QUICK).weighted_kappa.value, 4) == 0.9541


def test_kappa_of_a_complete_reversal_is_minus_one_and_of_identity_one():
    reversal = pairwise([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], **QUICK)
    assert reversal.weighted_kappa.value == pytest.approx(-1)
    assert reversal.weighted_kappa.reason is None  # no interval asked for, none missing
    assert pairwise([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], **QUICK).weighted_kappa.value == 1


def test_correlations_match_scipy():
    rng = np.random.default_rng(3)
    a = rng.integers(1, 6, 60).tolist()
    b = np.clip(np.array(a) + rng.integers(-2, 3, 60), 1, 5).tolist()
    result = pairwise(a, b, **QUICK)
    assert result.pearson.value == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    assert result.spearman.value == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    diff = np.array(a) - np.array(b)
    assert result.mae.value == pytest.approx(np.abs(diff).mean())
    assert result.bias.value == pytest.approx(diff.mean())
    assert result.exact.value == pytest.approx(np.mean(diff == 0))
    assert result.adjacent.value == pytest.approx(np.mean(np.abs(diff) <= 1))


def test_pairwise_leaves_out_missing_positions_and_says_when_undefined():
    result = pairwise([1, None, 3, 4], [2, 5, None, 4], **QUICK)
    assert (result.n_pairs, result.exact.value) == (2, 0.5)
    constant = pairwise([3, 3, 3], [3, 3, 3], **QUICK)
    assert (
        constant.weighted_kappa.value is None and "no variation" in constant.weighted_kappa.reason
    )
    assert constant.pearson.value is None and constant.exact.value == 1
    assert pairwise([None], [3], **QUICK).adjacent.reason == "no item has scores on both sides"
    with pytest.raises(ValueError, match="differ in length"):
        pairwise([1, 2], [1])


def test_fleiss_kappa_reproduces_the_published_example():
    ratings = []
    for subject, counts in enumerate(FLEISS_EXAMPLE):
        scores = [category + 1 for category, n in enumerate(counts) for _ in range(n)]
        ratings += [Rating(f"s{subject}", f"r{i:02d}", "d", s) for i, s in enumerate(scores)]
    result = agreement(ratings, n_resamples=500)["d"]
    assert round(result.fleiss_kappa.value, 3) == 0.210
    assert result.fleiss_raters_per_item == 14
    assert result.fleiss_kappa.ci_low < 0.210 < result.fleiss_kappa.ci_high


# --- the four modes, by hand ---------------------------------------------------------------------

# i1: mean 10/3 (rounds to 3); clinician B (1.67 away) is out beyond 1, C (2.33) beyond 1 and 2.
# i2: mean 2.5, which rounds HALF UP to 3 (Python's round would give 2).
# i3: mean 3 with both clinicians 2 away: no one left within 1; both kept within 2.
HAND = {
    "i1": (4, {"A": 4, "B": 5, "C": 1}),
    "i2": (2, {"A": 2, "B": 3}),
    "i3": (5, {"A": 1, "B": 5}),
}


def hand_ratings():
    ratings = []
    for item, (jury, clinicians) in HAND.items():
        ratings.append(Rating(item, "panel", "d", jury, kind="jury"))
        ratings += [Rating(item, c, "d", s) for c, s in clinicians.items()]
    return ratings


def test_the_four_modes_on_a_hand_made_example():
    modes = agreement(hand_ratings(), **QUICK)["d"].modes

    def figures(mode):
        m = modes[mode]
        values = (m.exact.value, m.adjacent.value, m.mae.value, m.bias.value)
        return (m.n_items, m.n_pairs, *(pytest.approx(v) for v in values))

    assert figures("every_pair") == (3, 7, 3 / 7, 5 / 7, 9 / 7, 5 / 7)
    # jury 4, 2, 5 against means 10/3, 2.5, 3 (rounded 3, 3, 3)
    mae, bias = (2 / 3 + 0.5 + 2) / 3, (2 / 3 - 0.5 + 2) / 3
    assert figures("clinician_mean") == (3, 3, 0, 2 / 3, mae, bias)
    # i1 keeps A alone (mean 4); i2 keeps both (2.5 → 3); i3 keeps no one
    assert figures("mean_within_1") == (2, 2, 1 / 2, 1, 0.25, -0.25)
    assert (modes["mean_within_1"].left_out, modes["mean_within_1"].items_without_mean) == (4, 1)
    # i1 keeps A and B (mean 4.5 → 5); i2 and i3 keep both
    assert figures("mean_within_2") == (3, 3, 0, 2 / 3, 1, 1 / 3)
    assert (modes["mean_within_2"].left_out, modes["mean_within_2"].items_without_mean) == (1, 0)


@pytest.mark.parametrize(
    ("value", "expected"), [(2.5, 3), (3.5, 4), (1.5, 2), (4.5, 5), (2.4999, 2), (10 / 3, 3)]
)
def test_half_up(value, expected):
    assert half_up(value) == expected


def test_means_round_half_up_not_to_even():
    ratings = [
        Rating("i", "panel", "d", 2, kind="jury"),
        Rating("i", "A", "d", 2),
        Rating("i", "B", "d", 3),
    ]
    mean = agreement(ratings, **QUICK)["d"].modes["clinician_mean"]
    assert mean.exact.value == 0  # 2.5 → 3, not 2


# --- exclusions and bad input --------------------------------------------------------------------


def test_not_applicable_unparseable_and_errors_are_left_out_and_counted():
    ratings = [
        *hand_ratings(),
        Rating("i4", "A", "d", None),
        Rating("i4", "B", "d", 4, status="unparseable"),
        Rating("i1", "D", "d", None, status="not_applicable"),
        Rating("i4", "panel", "d", None, status="error", kind="jury"),
        Rating("i5", "panel", "d", None, status="unparseable", kind="jury"),
    ]
    result = agreement(ratings, **QUICK)["d"]
    assert result.excluded == {
        "clinician": {"not_applicable": 2, "unparseable": 1},
        "jury": {"error": 1, "unparseable": 1},
    }
    assert (result.n_items, result.n_raters) == (3, 3)
    assert result.modes["every_pair"].n_pairs == 7


@pytest.mark.parametrize("bad", [0, 6, True, 3.0, "3"])
def test_what_is_not_a_score_is_refused(bad):
    with pytest.raises(ValueError, match="integer from 1 to 5"):
        agreement([Rating("i", "A", "d", bad)])


def test_bad_kind_status_and_duplicates_are_refused():
    with pytest.raises(ValueError, match="rater kind"):
        agreement([Rating("i", "A", "d", 3, kind="judge")])
    with pytest.raises(ValueError, match="unknown status"):
        agreement([Rating("i", "A", "d", 3, status="maybe")])
    with pytest.raises(ValueError, match="more than once"):
        agreement([Rating("i", "A", "d", 3), Rating("i", "A", "d", 4)])
    two_panels = [Rating("i", p, "d", 3, kind="jury") for p in ("p1", "p2")]
    with pytest.raises(ValueError, match="one panel at a time"):
        agreement(two_panels)


def test_without_a_jury_only_clinician_figures_and_undefined_alpha_has_a_reason():
    result = agreement(worked_example(), **QUICK)["safety"]
    assert (result.has_jury, result.modes, result.envelope, result.alpha_with_jury) == (
        False,
        {},
        None,
        None,
    )
    assert "envelope_jury_adjacent_agreement" not in result.summary()
    alone = agreement([Rating("i", "A", "d", 3), Rating("j", "A", "d", 4)], **QUICK)["d"]
    assert alone.alpha.ordinal.reason == "fewer than 2 raters gave scores"
    same = agreement([Rating(i, c, "d", 4) for i in "xy" for c in "AB"], **QUICK)["d"]
    assert same.alpha.ordinal.value is None and "no variation" in same.alpha.ordinal.reason
    assert same.fleiss_kappa.value is None


# --- the vectorised bootstrap equals the libraries -----------------------------------------------

score_or_gap = st.one_of(st.none(), st.integers(1, 5))
reliability_columns = st.integers(2, 5).flatmap(
    lambda raters: st.lists(
        st.lists(score_or_gap, min_size=raters, max_size=raters), min_size=2, max_size=25
    )
)


@settings(max_examples=60, deadline=None)
@given(reliability_columns, st.integers(2, 5))
def test_vectorised_alpha_equals_krippendorff(columns, pass_mark):
    pairable = [c for c in columns if sum(v is not None for v in c) >= 2]
    assume(pairable)
    matrix = np.array([[np.nan if v is None else v for v in c] for c in pairable]).T
    points = (1, 2, 3, 4, 5)
    vectorised = reliability.alpha_levels(
        reliability.coincidences(matrix, points).sum(axis=0), points, pass_mark
    )
    for level, value in zip(ag.ALPHA_LEVELS, vectorised, strict=True):
        expected, _ = reliability.library_alpha(matrix, level, points, pass_mark)
        if expected is None or not np.isfinite(expected):
            continue
        assert value == pytest.approx(expected, abs=1e-9), level


pairs_strategy = st.lists(
    st.tuples(st.integers(1, 5), st.lists(st.integers(1, 5), min_size=1, max_size=4)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(pairs_strategy)
def test_vectorised_pair_figures_equal_the_libraries(items):
    # jury vs the clinicians' mean: y holds fractions, so rounding and ranks are exercised
    rows = [(f"i{n}", jury, sum(c) / len(c)) for n, (jury, c) in enumerate(items)]
    pairs = ag._pairs(rows)
    table, x_values, y_values = ag._pair_table(pairs)
    shares = (ag.score_shares(x_values), ag.score_shares(y_values))
    total = table.sum(axis=0)
    vectorised = ag._pair_figures(total, x_values, y_values, shares, ag.DEFAULT_SCALE)
    for name, (point, _), value in zip(
        ag.FIGURES,
        ag._pair_points(pairs, total, shares, ag.DEFAULT_SCALE),
        vectorised,
        strict=True,
    ):
        if point is None:
            assert not np.isfinite(value) or name in ("pearson", "spearman"), name
        else:
            assert value == pytest.approx(point, abs=1e-9), name


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(1, 5), min_size=k, max_size=k), min_size=2, max_size=20
        )
    )
)
def test_vectorised_fleiss_equals_statsmodels(rows):
    counts, _ = aggregate_raters(np.array(rows) - 1, n_cat=5)
    with np.errstate(all="ignore"):
        expected = fleiss_kappa(counts)
    sums = np.column_stack([counts, (counts**2).sum(axis=1), np.ones(len(rows))]).sum(axis=0)
    value = ag._fleiss_vectorised(sums, len(rows[0]), counts.shape[1])[0]
    if np.isfinite(expected):
        assert value == pytest.approx(expected, abs=1e-9)


# --- properties ----------------------------------------------------------------------------------

score_lists = st.lists(st.tuples(st.integers(1, 5), st.integers(1, 5)), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(score_lists)
def test_pairwise_bounds_and_symmetry(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    ab, ba = pairwise(a, b, **QUICK), pairwise(b, a, **QUICK)
    assert 0 <= ab.exact.value <= ab.adjacent.value <= 1
    assert ab.mae.value >= 0
    for name in ("weighted_kappa", "pearson", "spearman"):
        value = getattr(ab, name).value
        assert value is None or -1 - 1e-9 <= value <= 1 + 1e-9
        assert value == pytest.approx(getattr(ba, name).value) if value is not None else True
    for name in ("adjacent", "exact", "mae"):
        assert getattr(ab, name).value == getattr(ba, name).value
    assert ab.bias.value == pytest.approx(-ba.bias.value)


study = st.lists(
    st.tuples(st.integers(0, 7), st.sampled_from("ABCD"), st.integers(1, 5)),
    min_size=2,
    max_size=40,
    unique_by=lambda r: (r[0], r[1]),
)
juries = st.dictionaries(st.integers(0, 7), st.integers(1, 5), max_size=8)


def study_ratings(clinicians, jury):
    ratings = [Rating(f"i{i}", c, "d", s) for i, c, s in clinicians]
    return ratings + [Rating(f"i{i}", "panel", "d", s, kind="jury") for i, s in jury.items()]


def comparable(value):
    """A result as plain data, floats to 9 decimals: summing pairs in another order may move
    the last bits."""
    if hasattr(value, "as_dict"):
        return comparable(value.as_dict())
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [comparable(item) for item in value]
    return round(value, 9) if isinstance(value, float) else value


@settings(max_examples=40, deadline=None)
@given(study, juries, st.randoms(use_true_random=False))
def test_results_do_not_depend_on_the_order_of_ratings(clinicians, jury, rng):
    ratings = study_ratings(clinicians, jury)
    shuffled = ratings[:]
    rng.shuffle(shuffled)
    first = agreement(ratings, n_resamples=50)["d"]
    assert comparable(first) == comparable(agreement(shuffled, n_resamples=50)["d"])


@settings(max_examples=40, deadline=None)
@given(study, juries, st.permutations("ABCD"))
def test_point_figures_do_not_depend_on_which_clinician_is_which(clinicians, jury, names):
    rename = dict(zip("ABCD", names, strict=True))
    renamed = [(i, rename[c], s) for i, c, s in clinicians]
    first = agreement(study_ratings(clinicians, jury), **QUICK)["d"]
    second = agreement(study_ratings(renamed, jury), **QUICK)["d"]
    assert anonymous(comparable(first)) == anonymous(comparable(second))


def anonymous(value):
    """A result without the clinicians' names, which the alt-test lists per clinician (its
    own tests hold the figures invariant to renaming: tests/annotation/test_alt_test.py)."""
    if isinstance(value, dict):
        return {k: anonymous(v) for k, v in value.items() if k not in _NAMED}
    if isinstance(value, list):
        return [anonymous(v) for v in value]
    return value


_NAMED = {"comparisons", "too_few_items"}


@settings(max_examples=40, deadline=None)
@given(study, juries)
def test_bounds_of_every_figure(clinicians, jury):
    result = agreement(study_ratings(clinicians, jury), n_resamples=50)["d"]
    groups = [result.clinicians, *result.modes.values()]
    for group in groups:
        for name in ("adjacent", "exact"):
            estimate = getattr(group, name)
            assert estimate.value is None or 0 <= estimate.value <= 1
            assert estimate.ci is None or 0 <= estimate.ci[0] <= estimate.ci[1] <= 1
        kappa = group.weighted_kappa.value
        assert kappa is None or kappa <= 1 + 1e-9
    alphas = [result.alpha] + ([result.alpha_with_jury] if result.alpha_with_jury else [])
    for alphas_ in alphas:
        for level in ag.ALPHA_LEVELS:
            value = getattr(alphas_, level).value
            assert value is None or value <= 1 + 1e-9


def test_four_items_in_perfect_agreement_give_alpha_but_no_interval():
    """Seen on the demo's inter-rater page: "α ordinal 1.00 [1.00, 1.00]" from 4 items and 2
    clinicians. Every resample gives 1, so the interval says nothing but reads as certainty."""
    ratings = [
        Rating(f"i{item}", clinician, "safety", score)
        for item, score in enumerate([1, 3, 4, 5])
        for clinician in ("A", "B")
    ]
    ordinal = agreement(ratings, n_resamples=500)["safety"].alpha.ordinal
    assert ordinal.value == pytest.approx(1.0)
    assert ordinal.ci is None and ordinal.method is None
    assert ordinal.reason.startswith("not enough evidence for an interval")
    assert "4 items" in ordinal.reason


def test_a_bootstrap_interval_on_fewer_than_six_items_is_withheld():
    """Seen on the demo: "α ordinal −0.42 [−0.50, −0.42]" from 2 items. On so few items a
    bootstrap interval covers the truth far less often than its 95% (41% on 2 items, 83% on
    4: benchmarks/alpha_small_n.py), so the figure stands alone, saying why."""
    scores = {"A": [1, 3, 4, 5, 2, 4], "B": [2, 3, 5, 5, 1, 3]}

    def ordinal(items: int):
        ratings = [
            Rating(f"i{item}", clinician, "safety", row[item])
            for clinician, row in scores.items()
            for item in range(items)
        ]
        return agreement(ratings, n_resamples=500)["safety"].alpha.ordinal

    few, enough = ordinal(MIN_INTERVAL_ITEMS - 1), ordinal(MIN_INTERVAL_ITEMS)
    assert few.value is not None and few.ci is None and few.method is None
    assert few.reason.startswith("not enough evidence for an interval: 5 items")
    assert enough.ci is not None and enough.ci[0] < enough.value < enough.ci[1]


@settings(max_examples=30, deadline=None)
@given(study, juries)
def test_every_interval_given_has_width(clinicians, jury):
    """A bootstrap interval that collapses to a point is withheld, with its reason."""
    result = agreement(study_ratings(clinicians, jury), n_resamples=50)["d"]
    alphas = [result.alpha] + ([result.alpha_with_jury] if result.alpha_with_jury else [])
    estimates = [getattr(a, level) for a in alphas for level in ag.ALPHA_LEVELS]
    for group in [result.clinicians, *result.modes.values()]:
        estimates += [getattr(group, name) for name in ag.FIGURES]
    for estimate in estimates:
        if estimate.ci is not None:
            assert estimate.ci[1] > estimate.ci[0]
            # A bootstrap needs items to draw; a Wilson interval (a share at 0 or 1) does not.
            assert estimate.n >= MIN_INTERVAL_ITEMS or estimate.method.startswith("Wilson")
        elif estimate.value is not None:
            assert estimate.reason


# --- the command's summary ----------------------------------------------------------------------


def test_the_summary_holds_the_commands_keys_with_intervals():
    summary = agreement(simulated(items=20), n_resamples=200, verdict_resamples=1000)[
        "safety"
    ].summary()
    for key in (
        "krippendorff_alpha_ordinal",
        "krippendorff_alpha_pass_fail",
        "krippendorff_alpha_nominal",
        "envelope_jury_adjacent_agreement",
        "envelope_clinician_adjacent_agreement",
        "envelope_jury_kappa",
        "envelope_kappa_difference",
        "every_pair_exact_agreement",
        "every_pair_weighted_kappa",
        "clinician_weighted_kappa",
    ):
        low, high = summary[f"{key}_ci"]
        assert low <= summary[key] <= high
        assert summary[f"{key}_n_items"] == 20 and summary[f"{key}_method"], key
    assert (summary["n_items"], summary["n_raters"]) == (20, 3)
    assert summary["verdict"] == "not enough evidence"  # 20 items; 30 needed
    assert summary["fleiss_kappa_items"].startswith("the 20 items scored by exactly 3")


def test_clinician_matrix_compares_each_pair_on_shared_items():
    matrix = clinician_matrix(hand_ratings(), "d", **QUICK)
    assert set(matrix) == {("A", "B"), ("A", "C"), ("B", "C")}
    assert (matrix[("A", "B")].n_pairs, matrix[("A", "C")].n_pairs) == (3, 1)
    # A − B on i1, i2, i3: 4−5, 2−3, 1−5
    assert matrix[("A", "B")].bias.value == pytest.approx((-1 - 1 - 4) / 3)
    assert clinician_matrix(hand_ratings(), "other") == {}


def test_intervals_repeat_with_their_seed():
    ratings = simulated(items=25)
    first = agreement(ratings, seed=7, n_resamples=300)["safety"].as_dict()
    assert first == agreement(ratings, seed=7, n_resamples=300)["safety"].as_dict()
    assert first != agreement(ratings, seed=8, n_resamples=300)["safety"].as_dict()


def test_a_figure_without_an_interval_says_so_in_its_cell():
    ordinal = agreement(
        [Rating(f"i{i}", c, "safety", s) for i, s in enumerate([1, 3, 4, 5]) for c in "AB"],
        n_resamples=200,
    )["safety"].alpha.ordinal.as_dict()
    measured = agreement(worked_example(), n_resamples=200)["safety"].alpha.ordinal.as_dict()
    shown = table("t", [("alpha", "α", "est")], [{"alpha": ordinal}, {"alpha": measured}])
    (few,), (many,) = (row["cells"] for row in shown["display"])
    assert (few["text"], few["ci"]) == ("1.00", "not enough evidence for an interval")
    assert "4 items" in few["title"]
    assert many["text"] == "0.82" and many["ci"].startswith("[")


def test_two_steady_clinicians_one_apart_get_no_correlation():
    """Seen on the demo: pooled over both orders, clinicians who always give 3 and 4 read as a
    Pearson of −1.00, though nothing about the items is correlated; it is withheld with why."""
    ratings = [
        Rating(f"i{item}", clinician, "safety", score)
        for item in range(12)
        for clinician, score in (("A", 3), ("B", 4))
    ]
    clinicians = agreement(ratings, n_resamples=100)["safety"].clinicians
    for name in ("pearson", "spearman"):
        estimate = getattr(clinicians, name)
        assert estimate.value is None and estimate.ci is None
        assert estimate.reason.startswith("not enough evidence") and estimate.n == 12
    assert clinicians.exact.value == 0 and clinicians.adjacent.value == 1  # still said


@settings(max_examples=40, deadline=None)
@given(study, juries)
def test_a_clinician_correlation_is_given_only_when_the_items_differ(clinicians, jury):
    clinician_pairs = agreement(study_ratings(clinicians, jury), **QUICK)["d"].clinicians
    by_item: dict[str, list[int]] = {}
    for item, _, score in clinicians:
        by_item.setdefault(item, []).append(score)
    means = {sum(s) / len(s) for s in by_item.values() if len(s) >= 2}
    if len(means) <= 1:
        assert clinician_pairs.pearson.value is None
        assert clinician_pairs.spearman.value is None
