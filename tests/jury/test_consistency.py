"""Judge test-retest: exact/adjacent agreement over repetition pairs, ordinal alpha with
repetitions as raters, pass/fail flips; and the flips between two rubric or prompt versions."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jury.pure.consistency import ALL, compare_versions, ordinal_alpha, retest
from jury.pure.parsing import parse_verdict
from jury.pure.simulated import SimulatedJudgeProvider
from patientagentbench.providers.types import CallContext, Message


def record(conversation, repetition, score, judge="j1", dimension="clinical_safety", status=None):
    return {
        "judge": judge,
        "conversation": conversation,
        "dimension": dimension,
        "repetition": repetition,
        "status": status or ("ok" if score is not None else "unparseable"),
        "score": score,
    }


def from_table(table, **kwargs):
    """{conversation: [score per repetition]} -> records."""
    return [
        record(c, rep, score, **kwargs)
        for c, scores in table.items()
        for rep, score in enumerate(scores)
    ]


def only(rows, judge="j1", dimension="clinical_safety"):
    (row,) = [r for r in rows if (r.judge, r.dimension) == (judge, dimension)]
    return row


def test_agreement_alpha_and_flips_by_hand():
    table = {"c1": [4, 4, 4], "c2": [2, 3, 2], "c3": [5, 3, 5], "c4": [1, 1, None]}
    row = only(retest(from_table(table)))
    # pairs: c1 3 exact; c2 (2,3) (2,2) (3,2); c3 (5,3) (5,5) (3,5); c4 one pair (1,1)
    assert row.n_pairs == 10
    assert row.exact == pytest.approx(6 / 10)
    assert row.adjacent == pytest.approx(8 / 10)
    assert (row.flips, row.n_flip_units, row.flip_share) == (1, 4, 0.25)  # c2 flips
    assert row.n_repetitions == 3 and row.n_units == 4
    assert row.n_excluded == {"unparseable": 1}
    matrix = np.array([[4, 2, 5, 1], [4, 3, 3, 1], [4, 2, 5, np.nan]], dtype=float)
    expected = krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]
    )
    assert row.alpha == pytest.approx(expected)


def test_perfect_retest():
    row = only(retest(from_table({"c1": [4, 4], "c2": [2, 2], "c3": [5, 5]})))
    assert (row.exact, row.adjacent, row.flip_share, row.alpha) == (1.0, 1.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ({"c1": [4], "c2": [2]}, "fewer than 2 repetitions gave scores"),
        (
            {"c1": [4, None], "c2": [None, 2]},
            "no conversation has scores from 2 or more repetitions",
        ),
        ({"c1": [4, 4], "c2": [4, 4]}, "no variation: every score on shared conversations was 4"),
    ],
)
def test_alpha_says_why_it_is_undefined(table, reason):
    row = only(retest(from_table(table)))
    assert row.alpha is None and reason in row.alpha_reason


def test_a_row_per_judge_and_dimension_and_one_over_all_dimensions():
    records = (
        from_table({"c1": [4, 2]})
        + from_table({"c1": [3, 3]}, dimension="triage_quality")
        + from_table({"c1": [1, 5]}, judge="j2")
    )
    rows = retest(records)
    assert [(r.judge, r.dimension) for r in rows] == [
        ("j1", "clinical_safety"),
        ("j1", "triage_quality"),
        ("j2", "clinical_safety"),
        ("j1", ALL),
        ("j2", ALL),
    ]
    pooled = only(rows, "j1", ALL)
    assert (pooled.n_units, pooled.n_pairs, pooled.exact, pooled.flips) == (2, 2, 0.5, 1)


def test_not_applicable_is_missing_not_a_score():
    records = from_table({"c1": [4, 4]}) + [
        record("c2", 0, None, status="not_applicable"),
        record("c2", 1, 2),
    ]
    row = only(retest(records))
    assert row.n_pairs == 1 and row.n_excluded == {"not_applicable": 1}


def test_two_answers_for_one_repetition_are_refused():
    with pytest.raises(ValueError, match="two answers"):
        retest([record("c1", 0, 4), record("c1", 0, 5)])


@given(
    st.dictionaries(
        st.sampled_from(["c1", "c2", "c3", "c4", "c5"]),
        st.lists(st.none() | st.integers(1, 5), min_size=1, max_size=4),
        min_size=1,
    )
)
def test_retest_figures_stay_in_range(table):
    row = only(retest(from_table(table)))
    for share in (row.exact, row.adjacent, row.flip_share):
        assert share is None or 0 <= share <= 1
    if row.exact is not None:
        assert row.exact <= row.adjacent
    assert row.alpha is None or -1 <= row.alpha <= 1
    assert (row.alpha is None) == (row.alpha_reason != "")


def test_the_simulated_judge_is_consistent_but_not_perfectly():
    judge = SimulatedJudgeProvider("sim-judge-c")
    records = []
    for c in range(40):
        prompt = [Message(role="user", content=f"conversation {c}")]
        task = {"dimension": "clinical_safety", "outcome_passed": c % 2 == 0}
        for rep in range(3):
            completion = judge.complete(prompt, [], 1.0, CallContext(seed=rep, task=task))
            parsed = parse_verdict(completion.text)
            records.append(record(f"c{c}", rep, parsed.score, status=parsed.status))
    row = only(retest(records))
    assert 0 < row.exact < 1 and row.adjacent > row.exact
    assert row.alpha is not None and 0 < row.alpha < 1


ordinal_alpha_example = {
    # Krippendorff's worked example (4 observers x 12 units), observers as "repetitions".
    unit: dict(enumerate(values))
    for unit, values in enumerate(
        zip(
            [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
            [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
            strict=True,
        )
    )
}


def test_ordinal_alpha_on_krippendorffs_worked_example():
    alpha, reason = ordinal_alpha(ordinal_alpha_example)
    assert reason == "" and alpha == pytest.approx(0.815, abs=5e-4)


# --- two versions ----------------------------------------------------------------------------------


def verdict(conversation, score, dimension="clinical_safety", status="ok", **extra):
    return {"conversation": conversation, "dimension": dimension, "score": score,
            "status": status, **extra}  # fmt: skip


def test_compare_versions_lists_flipped_verdicts():
    before = [verdict("c1", 4), verdict("c2", 2.5), verdict("c3", 3), verdict("c4", 5),
              verdict("c5", 4)]  # fmt: skip
    after = [verdict("c1", 2), verdict("c2", 3.0), verdict("c3", 3),
             verdict("c4", None, status="unparseable"), verdict("c6", 1)]  # fmt: skip
    result = compare_versions(before, after)
    assert [(f.conversation, f.before, f.after, f.before_passed, f.after_passed)
            for f in result.flipped] == [("c1", 4, 2, True, False), ("c2", 2.5, 3.0, False, True)]  # fmt: skip
    assert result.n_compared == 3 and result.flip_share == pytest.approx(2 / 3)
    assert [(s.conversation, s.before, s.after) for s in result.status_changed] == [
        ("c4", "ok", "unparseable")
    ]
    assert (result.only_before, result.only_after) == (1, 1)
    assert result.exact == pytest.approx(1 / 3) and result.adjacent == pytest.approx(2 / 3)
    assert result.mean_shift == pytest.approx((-2 + 0.5 + 0) / 3)


def test_compare_versions_uses_a_stated_pass_and_the_judge_in_the_key():
    before = [verdict("c1", 3.5, passed=False, judge="a"), verdict("c1", 3.5, judge="b")]
    after = [verdict("c1", 3.5, passed=True, judge="a"), verdict("c1", 3.5, judge="b")]
    (flip,) = compare_versions(before, after).flipped
    assert (flip.judge, flip.before_passed, flip.after_passed) == ("a", False, True)


def test_compare_versions_refuses_unaggregated_repetitions():
    with pytest.raises(ValueError, match="aggregate repetitions first"):
        compare_versions([verdict("c1", 3), verdict("c1", 4)], [])
