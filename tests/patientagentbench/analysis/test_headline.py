"""Headline figures as printed: n and CI beside the value, "not enough evidence" below the
stated minimum, and then no word comparing this study with the paper."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.analysis import statistics as s
from patientagentbench.analysis.headline import (
    COMPARISON_WORDS,
    MIN_CELLS_FOR_A_CORRELATION,
    MIN_CELLS_FOR_A_MEAN,
    MIN_PAIRS_FOR_AN_EFFECT_SIZE,
    NOT_ENOUGH_HERE,
    Interval,
    Minimum,
    headline,
)
from patientagentbench.results import findings
from tests.patientagentbench.analysis.test_statistics import study_frame

PAPER_D_Z = 0.75


def printed(shown) -> str:
    return " ".join((shown.value, shown.beside, shown.comparison)).lower()


# -- the helper ----------------------------------------------------------------------------


def test_below_the_minimum_it_says_not_enough_evidence_and_hides_the_value():
    shown = headline(
        0.756,
        Interval(-0.63, 2.02, "noncentral t"),
        3,
        MIN_PAIRS_FOR_AN_EFFECT_SIZE,
        published=PAPER_D_Z,
    )
    assert shown.text == "not enough evidence (n = 3; 10 needed)"
    assert shown.comparison == NOT_ENOUGH_HERE
    assert "0.756" not in printed(shown) and not shown.shown


def test_with_enough_data_n_and_ci_stand_beside_the_value():
    shown = headline(0.756, Interval(0.12, 1.4, "noncentral t"), 38, MIN_PAIRS_FOR_AN_EFFECT_SIZE)
    assert shown.text == "0.756, n = 38, 95% CI [0.120, 1.400] (noncentral t)"
    assert shown.comparison == ""  # no published value, nothing to compare


def test_the_papers_value_is_placed_against_the_interval_only_with_enough_data():
    interval = Interval(0.12, 1.4, "noncentral t")
    inside = headline(0.756, interval, 38, MIN_PAIRS_FOR_AN_EFFECT_SIZE, published=0.75)
    outside = headline(0.756, interval, 38, MIN_PAIRS_FOR_AN_EFFECT_SIZE, published=1.9)
    assert inside.comparison == "the paper's 0.75 lies inside this study's 95% CI"
    assert outside.comparison == "the paper's 1.9 lies outside this study's 95% CI"


def test_a_test_statistic_says_why_it_has_no_interval():
    shown = headline(3.52, None, 114, MIN_CELLS_FOR_A_CORRELATION, no_interval="F is a test")
    assert shown.text == "3.520, n = 114; no CI: F is a test"


def test_unvarying_data_get_no_interval_and_no_comparison():
    shown = headline(100.0, Interval(100.0, 100.0, "t"), 22, MIN_CELLS_FOR_A_MEAN, published=90.2)
    assert shown.beside == "n = 22; no CI: every value is the same"
    assert shown.comparison == NOT_ENOUGH_HERE


def test_a_figure_that_could_not_be_computed_keeps_its_n_and_reason():
    shown = headline(None, None, 12, MIN_CELLS_FOR_A_CORRELATION, missing="a variable is constant")
    assert shown.text == "not computed (n = 12: a variable is constant)"
    assert not any(word in printed(shown) for word in COMPARISON_WORDS)


points = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))
intervals = st.one_of(
    st.none(),
    st.builds(Interval, st.floats(-10, 10), st.floats(-10, 10), st.sampled_from(["t", "Wilson"])),
)
minimums = st.builds(Minimum, st.integers(1, 50), st.just("why"))


@given(points, intervals, st.integers(0, 10_000), minimums, st.floats(-10, 10))
def test_below_the_minimum_no_comparison_word_is_printed(point, interval, n, minimum, paper):
    shown = headline(point, interval, min(n, minimum.n - 1), minimum, published=paper)
    text = printed(shown)
    assert not any(word in text for word in COMPARISON_WORDS), text
    assert shown.value == "not enough evidence" and shown.comparison == NOT_ENOUGH_HERE


@given(points, intervals, st.one_of(st.none(), st.integers(0, 10**6)), minimums)
def test_n_is_always_printed(point, interval, n, minimum):
    shown = headline(point, interval, n, minimum, published=0.5)
    assert f"n = {n or 0:,}" in shown.text


def test_the_stated_minimum_for_d_z_is_where_the_papers_effect_leaves_zero():
    """The why of MIN_PAIRS_FOR_AN_EFFECT_SIZE, held to the noncentral-t interval."""

    def low(n):
        return s._d_interval(PAPER_D_Z * math.sqrt(n), n - 1, math.sqrt(n), 0.95)[0]

    assert low(MIN_PAIRS_FOR_AN_EFFECT_SIZE.n - 1) < 0 < low(MIN_PAIRS_FOR_AN_EFFECT_SIZE.n)
    assert low(3) == pytest.approx(-0.63, abs=0.01)


# -- the report's headline rows ------------------------------------------------------------


def headline_of(frame, published):
    report = s.full_report(
        frame, include_mixed_model=False, bootstrap_resamples=200, published_headline=published
    )
    rows = findings.headline_rows(report, has_published=True)
    return report, {row["figure"]: row for row in rows}


def test_three_cells_say_not_enough_evidence_beside_the_papers_d_z():
    published = {"tss_vs_ac_cohens_d": {"value": PAPER_D_Z}}
    report, rows = headline_of(study_frame(models=1, tasks=3, runs=4), published)
    d_z = report["paper"]["tss_vs_ac_paired"]["cohens_d_z"]
    row = rows["tss_vs_ac_cohens_d"]
    assert row["estimate"] == "not enough evidence" and row["beside"] == "(n = 3; 10 needed)"
    assert row["published"] == "0.75" and row["comparison"] == NOT_ENOUGH_HERE
    shown = " ".join(str(value) for value in row.values())
    assert f"{d_z:.3f}" not in shown
    # The project's pooled rate counts traces nested in those 3 cells: it stays out too.
    assert "variant" not in rows["overall_correctness_pct"]
    assert not any(word in shown.lower() for word in COMPARISON_WORDS)


def test_a_full_study_prints_n_and_ci_beside_every_headline():
    published = {"tss_vs_ac_cohens_d": {"value": PAPER_D_Z}, "mean_tss": {"value": 0.87}}
    report, rows = headline_of(study_frame(), published)
    d_z = rows["tss_vs_ac_cohens_d"]
    assert d_z["estimate"] == f"{report['paper']['tss_vs_ac_paired']['cohens_d_z']:.3f}"
    assert d_z["beside"].startswith("n = 114, 95% CI [") and d_z["beside"].endswith(
        "(noncentral t)"
    )
    assert "lies inside" in d_z["comparison"] or "lies outside" in d_z["comparison"]
    assert "bootstrap over cells" in rows["mean_tss"]["beside"]
    assert "no CI: F is a test statistic; F(5, 108)" in rows["anova_tss_F"]["beside"]
    for figure, row in rows.items():
        if row["shown"]:
            assert row["beside"].startswith("n = "), figure
            assert "95% CI [" in row["beside"] or "no CI: " in row["beside"], figure
    variant = rows["overall_correctness_pct"]["variant"]
    assert "graded traces, 95% CI [" in variant and "(Wilson)" in variant
