"""Panel verdicts, the weighted aggregate and the leaderboard: only ok answers are numbers,
everything left out is counted, and intervals are Wilson (pass rates) and bootstrap (means)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from jury.pure.aggregate import (
    EXCLUDED_STATUSES,
    breakdown,
    leaderboard,
    panel_score,
    weighted_aggregate,
    weighted_detail,
)
from jury.pure.parsing import ParsedVerdict
from ratings.rubric import load_rubric

WEIGHTS = load_rubric().weights


def ok(score):
    return {"status": "ok", "score": score}


def left_out(status):
    return {"status": status, "score": None}


# --- panel_score ---------------------------------------------------------------------------------


def test_mean_median_and_majority():
    judges = [ok(2), ok(4), ok(5)]
    mean = panel_score(judges, "mean")
    assert (mean.score, mean.passed, mean.spread, mean.n_used) == (
        pytest.approx(11 / 3),
        True,
        3,
        3,
    )
    assert mean.agree_share == pytest.approx(2 / 3)
    assert panel_score(judges, "median").score == 4
    majority = panel_score([ok(5), ok(5), ok(2), ok(2)], "majority")
    assert majority.passed is False  # two of four is not more than half
    assert majority.score == 3.5 and majority.agree_share == 0.5
    assert panel_score([ok(3), ok(3), ok(1)], "majority").passed is True


def test_failures_are_left_out_and_counted_never_scored():
    failures = ["unparseable", "error", "not_applicable", "truncated", "na_not_allowed"]
    panel = panel_score([ok(4), *(left_out(status) for status in failures)])
    assert (panel.score, panel.passed, panel.n_used) == (4.0, True, 1)
    assert panel.n_excluded == dict.fromkeys(failures, 1)


def test_a_panel_with_no_usable_judge_has_no_verdict():
    panel = panel_score([left_out("unparseable"), left_out("unparseable")], "majority")
    assert (panel.score, panel.passed, panel.spread, panel.agree_share) == (None,) * 4
    assert panel.n_used == 0 and panel.n_excluded["unparseable"] == 2


def test_parsed_verdicts_work_as_they_are():
    parsed = [ParsedVerdict("ok", 2, "", ""), ParsedVerdict("unparseable", None, "", "x", "bad")]
    panel = panel_score(parsed)
    assert (panel.score, panel.passed, panel.n_excluded["unparseable"]) == (2.0, False, 1)


@pytest.mark.parametrize(
    "bad", [{"status": "ok", "score": None}, {"status": "ok", "score": 6}, {"status": "maybe"}]
)
def test_an_impossible_answer_is_a_bug_not_a_number(bad):
    with pytest.raises(ValueError):
        panel_score([ok(3), bad])


answers = st.lists(
    st.one_of(
        st.integers(1, 5).map(ok),
        st.sampled_from(EXCLUDED_STATUSES).map(left_out),
    ),
    max_size=9,
)


@given(answers, st.sampled_from(["mean", "median", "majority"]))
def test_panel_properties(judges, method):
    panel = panel_score(judges, method)
    usable = [j["score"] for j in judges if j["status"] == "ok"]
    assert panel.n_used == len(usable)
    assert sum(panel.n_excluded.values()) == len(judges) - len(usable)
    for status in EXCLUDED_STATUSES:
        assert panel.n_excluded[status] == sum(j["status"] == status for j in judges)
    if not usable:
        assert panel.score is None and panel.passed is None
        return
    assert min(usable) <= panel.score <= max(usable)
    assert panel.spread == max(usable) - min(usable)
    if method != "majority":
        assert panel.passed == (panel.score >= 3)
    else:
        assert panel.passed == (sum(s >= 3 for s in usable) > len(usable) / 2)
    assert 0 < panel.agree_share <= 1  # someone always sides with the verdict


# --- weighted aggregate -------------------------------------------------------------------------


def test_weighted_aggregate_renormalises_over_present_dimensions():
    scores = {"clinical_safety": 5, "workflow_accuracy": 3, "triage_quality": None}
    detail = weighted_detail(scores, WEIGHTS)
    assert detail.score == pytest.approx((2.0 * 5 + 1.6 * 3) / 3.6)
    assert set(detail.left_out) == set(WEIGHTS) - {"clinical_safety", "workflow_accuracy"}
    assert weighted_aggregate(scores, WEIGHTS) == detail.score
    assert weighted_aggregate({"conversation_realism": 5}, WEIGHTS) is None


@given(st.dictionaries(st.sampled_from(sorted(WEIGHTS)), st.none() | st.floats(1, 5)))
def test_weighted_aggregate_lies_within_the_scores(scores):
    value = weighted_aggregate(scores, WEIGHTS)
    present = [v for v in scores.values() if v is not None]
    if not present:
        assert value is None
    else:
        assert min(present) - 1e-9 <= value <= max(present) + 1e-9


# --- leaderboard ---------------------------------------------------------------------------------


def rows_for(model, per_conversation, dimension="clinical_safety", **extra):
    return [
        {
            "model": model,
            "conversation": f"{model}-c{i}",
            "dimension": dimension,
            "score": score,
            "passed": None if score is None else score >= 3,
            **extra,
        }
        for i, score in enumerate(per_conversation)
    ]


def test_leaderboard_orders_models_and_reports_intervals():
    rows = rows_for("good", [5, 4, 4, 5, 3, 4]) + rows_for("weak", [2, 3, 1, 2, None, 4])
    board = leaderboard(rows, WEIGHTS, seed=1, n_resamples=500)
    assert [r.model for r in board] == ["good", "weak"]
    weak = board[1]
    assert weak.n == 6 and weak.aggregate.n == 5 and weak.aggregate.n_missing == 1
    cell = weak.dimensions["clinical_safety"]
    assert cell.mean.mean == pytest.approx(12 / 5)
    assert (cell.passed, cell.n_verdicts, cell.pass_rate) == (2, 5, 0.4)
    low, high = proportion_confint(2, 5, alpha=0.05, method="wilson")
    assert (cell.pass_ci_low, cell.pass_ci_high) == (pytest.approx(low), pytest.approx(high))
    assert cell.mean.ci_low <= cell.mean.mean <= cell.mean.ci_high
    assert cell.label == "2.40 [40%]"


def test_a_mean_every_resample_agrees_on_has_no_interval_and_says_why():
    rows = rows_for("same", [4, 4, 4]) + rows_for("varied", [1, 5, 3])
    same, varied = (r.dimensions["clinical_safety"].mean for r in leaderboard(rows, WEIGHTS))
    assert (same.mean, same.ci_low, same.ci_high) == (4.0, None, None)
    assert same.withheld == "not enough evidence for an interval: all 3 values are the same"
    assert varied.ci_low < varied.ci_high and varied.withheld == ""


@given(st.lists(st.integers(1, 5), min_size=1, max_size=12), st.integers(0, 3))
def test_a_leaderboard_interval_is_never_a_single_point(scores, seed):
    (row,) = leaderboard(rows_for("m", scores), WEIGHTS, seed=seed, n_resamples=200)
    for figure in (row.aggregate, row.dimensions["clinical_safety"].mean):
        if figure.ci_low is None:
            assert figure.withheld or figure.n < 2
        else:
            assert figure.ci_high - figure.ci_low > 1e-12 and not figure.withheld
    if len(set(scores)) == 1 and len(scores) >= 2:
        assert row.aggregate.ci_low is None and "the same" in row.aggregate.withheld


def test_leaderboard_is_seeded():
    rows = rows_for("m", [1, 2, 3, 4, 5, 5, 4, 2])
    first = leaderboard(rows, WEIGHTS, seed=7, n_resamples=300)
    assert first == leaderboard(rows, WEIGHTS, seed=7, n_resamples=300)


def test_the_aggregate_weighs_dimensions_per_conversation():
    rows = rows_for("m", [5, 5]) + rows_for("m", [1, 1], dimension="conversational_quality")
    (row,) = leaderboard(rows, WEIGHTS, n_resamples=200)
    assert row.aggregate.mean == pytest.approx((2.0 * 5 + 0.9 * 1) / 2.9)
    assert list(row.dimensions) == ["clinical_safety", "conversational_quality"]


def test_repetitions_are_averaged_within_a_conversation():
    rows = rows_for("m", [2, 4]) + [
        {"model": "m", "conversation": "m-c0", "dimension": "clinical_safety", "score": 4,
         "passed": True},
    ]  # fmt: skip
    cell = leaderboard(rows, WEIGHTS, n_resamples=200)[0].dimensions["clinical_safety"]
    assert cell.mean.mean == pytest.approx(3.5) and cell.mean.n == 2


def test_breakdown_by_a_case_attribute():
    rows = rows_for("m", [5, 4], attributes={"category": "medication"}) + rows_for(
        "n", [1, 2], category="health_concern"
    )
    groups = breakdown(rows, "category", WEIGHTS, n_resamples=200)
    assert list(groups) == ["health_concern", "medication"]
    assert [r.model for r in groups["medication"]] == ["m"]
    assert breakdown(rows, "severity", WEIGHTS, n_resamples=200).keys() == {"(none)"}
