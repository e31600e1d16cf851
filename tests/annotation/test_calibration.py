"""Calibration: comparing with a reference, a round's report (ordinal alpha checked on
Krippendorff's worked example), and the adjudication queue."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.pure.calibration import (
    BOTH_NA,
    CLINICIAN_NA,
    NO_REFERENCE,
    NOT_SCORED,
    REFERENCE_NA,
    Thresholds,
    cannot_qualify,
    compare,
    dimension_alpha,
    disagreements,
    items_for_a_firm_check,
    round_report,
    stand_in_references,
)
from ratings.rating import Rating

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example with
# missing values: 4 observers × 12 units, values 1–5, None = the observer did not code it.
# Published: nominal 0.743, ordinal 0.815, interval 0.849 (DESIGN §7).
WORKED_EXAMPLE = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
DIMS = ["clinical_safety", "triage_quality", "clinical_helpfulness"]
LENIENT = Thresholds(min_exact=0.5, min_adjacent=0.8, min_alpha=0.6)


def worked_example_ratings(dimension="clinical_safety"):
    return [
        Rating(f"u{unit:02d}", observer, dimension, value)
        for observer, row in WORKED_EXAMPLE.items()
        for unit, value in enumerate(row)
    ]


# --- compare -----------------------------------------------------------------------------------


def test_compare_example():
    result = compare(
        {"clinical_safety": 4, "triage_quality": 3, "clinical_helpfulness": 5, "x": None},
        {"clinical_safety": 2, "triage_quality": 3, "clinical_helpfulness": 4, "x": 3},
    )
    assert {d: (c.diff, c.exact, c.adjacent) for d, c in result.items()} == {
        "clinical_safety": (2, False, False),
        "triage_quality": (0, True, True),
        "clinical_helpfulness": (1, False, True),
    }
    assert (result["clinical_safety"].score, result["clinical_safety"].reference) == (4, 2)
    assert result.excluded == {"x": CLINICIAN_NA}


def test_not_applicable_and_missing_are_reported_separately():
    result = compare(
        {"a": None, "b": 3, "c": None, "d": 2},
        {"a": 4, "b": None, "c": None, "e": 5},
    )
    assert dict(result) == {}
    assert result.excluded == {
        "a": CLINICIAN_NA,
        "b": REFERENCE_NA,
        "c": BOTH_NA,
        "d": NO_REFERENCE,
        "e": NOT_SCORED,
    }


@pytest.mark.parametrize("bad", [0, 6, True, 3.0, "3"])
def test_compare_refuses_what_is_not_a_score(bad):
    with pytest.raises(ValueError, match="integer from 1 to 5"):
        compare({"a": bad}, {"a": 3})
    with pytest.raises(ValueError, match="integer from 1 to 5"):
        compare({"a": None}, {"a": bad})


score_maps = st.dictionaries(
    st.sampled_from(DIMS + ["task_completion"]), st.one_of(st.none(), st.integers(1, 5))
)
SWAPPED = {CLINICIAN_NA: REFERENCE_NA, REFERENCE_NA: CLINICIAN_NA, NO_REFERENCE: NOT_SCORED}
SWAPPED |= {v: k for k, v in SWAPPED.items()} | {BOTH_NA: BOTH_NA}


@given(score_maps, score_maps)
def test_compare_is_symmetric(a, b):
    ab, ba = compare(a, b), compare(b, a)
    assert set(ab) == set(ba)
    for d in ab:
        assert ab[d].diff == -ba[d].diff
        assert (ab[d].exact, ab[d].adjacent) == (ba[d].exact, ba[d].adjacent)
        assert (ab[d].score, ab[d].reference) == (ba[d].reference, ba[d].score)
    assert {d: SWAPPED[why] for d, why in ab.excluded.items()} == ba.excluded


@given(score_maps, score_maps)
def test_compare_properties(a, b):
    result = compare(a, b)
    assert set(result) | set(result.excluded) == set(a) | set(b)
    assert not set(result) & set(result.excluded)
    for c in result.values():
        assert c.diff == c.score - c.reference
        assert c.exact == (c.diff == 0)
        assert c.adjacent == (abs(c.diff) <= 1)
        assert c.adjacent or not c.exact
    assert all(compare(a, a)[d].exact for d in compare(a, a))


# --- alpha -------------------------------------------------------------------------------------


def test_ordinal_alpha_on_krippendorffs_worked_example():
    result = dimension_alpha("clinical_safety", worked_example_ratings())
    assert round(result.alpha, 3) == 0.815
    assert result.alpha == pytest.approx(0.8153875, abs=1e-7)
    assert (result.raters, result.items, result.reason) == (4, 11, None)


def test_the_worked_example_data_gives_the_published_nominal_and_interval_values():
    """Guards the transcription of the data: the package's other levels match the paper."""
    matrix = np.array(
        [[np.nan if v is None else v for v in row] for row in WORKED_EXAMPLE.values()]
    )
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}
    for level, value in published.items():
        alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert round(alpha, 3) == value


def test_alpha_is_none_with_a_reason_when_undefined():
    one_rater = [Rating("i1", "A", "d", 3), Rating("i2", "A", "d", 4), Rating("i1", "B", "d", None)]
    assert dimension_alpha("d", one_rater).reason == "fewer than 2 clinicians gave scores"
    apart = [Rating("i1", "A", "d", 3), Rating("i2", "B", "d", 4)]
    assert dimension_alpha("d", apart).reason == "no item has scores from 2 or more clinicians"
    same = [Rating(i, c, "d", 4) for c in "AB" for i in ("i1", "i2")] + [Rating("i3", "A", "d", 1)]
    result = dimension_alpha("d", same)
    assert (result.alpha, result.reason) == (
        None,
        "no variation: every score on shared items was 4",
    )


def test_perfect_agreement_gives_alpha_one():
    ratings = [Rating(f"i{s}", c, "d", s) for c in "ABC" for s in (1, 2, 3, 4, 5)]
    assert dimension_alpha("d", ratings).alpha == 1.0


# --- round report ------------------------------------------------------------------------------


def test_round_report_on_the_worked_example():
    reference = {
        f"u{unit:02d}": {"clinical_safety": WORKED_EXAMPLE["D"][unit]} for unit in range(12)
    }
    report = round_report(worked_example_ratings(), reference, LENIENT)
    assert round(report.dimensions["clinical_safety"].alpha, 3) == 0.815
    a = report.clinicians["A"]["clinical_safety"]
    # A against D where both scored: units 0–8; A differs on u05 (1 vs 4) only; u09–u11
    # are not applicable (missing) on one side or both.
    assert (a.n, a.exact, a.adjacent, a.excluded) == (9, 8 / 9, 8 / 9, 3)
    assert a.passed and a.reason is None
    c = report.clinicians["C"]["clinical_safety"]
    # C against D: units 1–10; differs on u01 (3/2), u05 (3/4), u07 (2/1): 7 of 10 exact.
    assert (c.n, c.exact, c.adjacent) == (10, 0.7, 1.0)
    assert report.passed("C") and report.passed("C", ["clinical_safety"])
    assert not report.passed("C", ["triage_quality"])
    assert not report.passed("nobody")


def test_a_clinician_fails_on_own_rates_even_when_the_group_agrees():
    strict = Thresholds(min_exact=0.9, min_adjacent=0.95, min_alpha=0.6)
    reference = {
        f"u{unit:02d}": {"clinical_safety": WORKED_EXAMPLE["D"][unit]} for unit in range(12)
    }
    report = round_report(worked_example_ratings(), reference, strict)
    c = report.clinicians["C"]["clinical_safety"]
    assert not c.rates_passed and not c.passed
    assert c.reason == "exact agreement 0.70 is below 0.90"
    a = report.clinicians["A"]["clinical_safety"]
    assert not a.passed
    assert a.reason == ("exact agreement 0.89 is below 0.90; adjacent agreement 0.89 is below 0.95")
    assert report.clinicians["D"]["clinical_safety"].passed  # D is the reference here


def test_a_clinician_close_to_the_reference_fails_when_the_group_disagrees():
    reference = {f"i{k}": {"triage_quality": s} for k, s in enumerate([1, 2, 3, 4, 5])}
    ratings = [Rating(f"i{k}", "A", "triage_quality", s) for k, s in enumerate([1, 2, 3, 4, 5])]
    ratings += [Rating(f"i{k}", "B", "triage_quality", s) for k, s in enumerate([5, 4, 3, 2, 1])]
    report = round_report(ratings, reference, LENIENT)
    a = report.clinicians["A"]["triage_quality"]
    assert a.rates_passed and not a.passed
    assert a.reason.startswith("the round's alpha -")
    assert report.dimensions["triage_quality"].alpha < 0


def test_alpha_none_means_no_pass_and_says_why():
    reference = {"i1": {"clinical_safety": 3}, "i2": {"clinical_safety": 4}}
    ratings = [Rating("i1", "A", "clinical_safety", 3), Rating("i2", "A", "clinical_safety", 4)]
    result = round_report(ratings, reference, LENIENT).clinicians["A"]["clinical_safety"]
    assert result.rates_passed and not result.passed
    assert result.reason == (
        "the round's alpha could not be computed (fewer than 2 clinicians gave scores)"
    )


def test_not_applicable_is_excluded_from_rates_and_from_alpha():
    reference = {
        "i1": {"triage_quality": None},
        "i2": {"triage_quality": 2},
        "i3": {"triage_quality": 4},
        "i4": {"triage_quality": 5},
    }
    ratings = [
        Rating("i1", "A", "triage_quality", None),
        Rating("i2", "A", "triage_quality", 2),
        Rating("i3", "A", "triage_quality", None),
        Rating("i4", "A", "triage_quality", 5),
        Rating("i1", "B", "triage_quality", 3),
        Rating("i2", "B", "triage_quality", 2),
        Rating("i3", "B", "triage_quality", 4),
        Rating("i4", "B", "triage_quality", 5),
        Rating("extra", "B", "triage_quality", 1),  # not a reference item: alpha only
    ]
    report = round_report(ratings, reference, LENIENT)
    a, b = report.clinicians["A"]["triage_quality"], report.clinicians["B"]["triage_quality"]
    assert (a.n, a.exact, a.excluded) == (2, 1.0, 2)
    assert (b.n, b.exact, b.excluded) == (3, 1.0, 1)
    # Shared numeric items: i2 and i4 only; both agree, so alpha is 1.
    alpha = report.dimensions["triage_quality"]
    assert (alpha.alpha, alpha.items, alpha.raters) == (1.0, 2, 2)


def test_no_compared_item_is_no_pass():
    reference = {"i1": {"clinical_safety": None}}
    ratings = [Rating("i1", "A", "clinical_safety", 3), Rating("i1", "B", "clinical_safety", 3)]
    result = round_report(ratings, reference, LENIENT).clinicians["A"]["clinical_safety"]
    assert (result.n, result.exact, result.passed) == (0, None, False)
    assert result.reason.startswith("no reference item was compared on this dimension")


def test_a_repeated_rating_is_refused():
    ratings = [Rating("i1", "A", "d", 3), Rating("i1", "A", "d", 4)]
    with pytest.raises(ValueError, match="A rated item i1 on d more than once"):
        round_report(ratings, {"i1": {"d": 3}}, LENIENT)


# --- adjudication ------------------------------------------------------------------------------


def test_disagreements_example():
    item = {
        "A": {"clinical_safety": 4, "triage_quality": 3, "clinical_helpfulness": None},
        "B": {"clinical_safety": 2, "triage_quality": 4, "clinical_helpfulness": 5},
        "C": {"clinical_safety": 3, "triage_quality": None, "clinical_helpfulness": 1},
    }
    assert disagreements(item) == ["clinical_safety", "clinical_helpfulness"]
    assert disagreements(item, threshold=3) == ["clinical_helpfulness"]
    assert disagreements(item, threshold=1) == DIMS
    assert disagreements({"A": {"d": 1}}) == []
    assert disagreements({"A": {"d": 1}, "B": {"d": None}}) == []


@given(
    st.dictionaries(
        st.sampled_from("ABCD"),
        st.dictionaries(st.sampled_from(DIMS), st.one_of(st.none(), st.integers(1, 5))),
    ),
    st.integers(1, 4),
)
def test_disagreements_are_exactly_the_wide_spreads(item, threshold):
    found = set(disagreements(item, threshold))
    for d in DIMS:
        values = [s[d] for s in item.values() if s.get(d) is not None]
        assert (d in found) == (len(values) >= 2 and max(values) - min(values) >= threshold)


def test_a_firm_check_needs_enough_items_that_one_miss_cannot_decide_a_dimension():
    assert items_for_a_firm_check(0.5, 0.8) == 5  # 4 of 5 within one still meets 0.8
    assert items_for_a_firm_check(0.5, 0.9) == 10
    assert items_for_a_firm_check(0.2, 0.5) == 5  # never fewer than the floor
    assert items_for_a_firm_check(0.5, 1.0) == 5  # a target of 1 fails on any miss anyway


def test_cannot_qualify_answers_with_the_rounds_own_rule():
    two_items = stand_in_references(2, ["clinical_safety"])
    assert (
        cannot_qualify({"A": ["clinical_safety"], "B": ["clinical_safety"]}, two_items, LENIENT)
        == {}
    )
    alone = cannot_qualify({"A": ["clinical_safety"]}, two_items, LENIENT)
    assert alone == {
        "A": {
            "the round's alpha could not be computed (fewer than 2 clinicians gave scores)": [
                "clinical_safety"
            ]
        }
    }
    one_item = stand_in_references(1, ["clinical_safety"])
    both = cannot_qualify({"A": ["clinical_safety"], "B": ["clinical_safety"]}, one_item, LENIENT)
    assert set(both) == {"A", "B"} and "only 1 item" in next(iter(both["A"]))
