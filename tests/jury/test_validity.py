"""Judge validity: the AUC of a judge's score between conversations that passed and failed their
outcome checks, its interval and verdict; agreement with reference scores."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jury.pure import validity

scores = st.lists(st.integers(1, 5), min_size=1, max_size=30)


def test_auc_by_hand_ties_count_half():
    # pairs: (3,1) win, (3,3) tie, (5,1) win, (5,3) win -> (3 + 0.5) / 4
    assert validity.auc([3, 5], [1, 3]) == pytest.approx(3.5 / 4)
    assert validity.auc([], [1]) is None


@given(scores, scores)
def test_auc_lies_in_the_unit_interval_and_flipping_labels_gives_its_complement(x, y):
    a = validity.auc(x, y)
    assert 0 <= a <= 1
    assert validity.auc(y, x) == pytest.approx(1 - a)


@given(scores, scores)
def test_auc_is_invariant_to_monotone_transforms(x, y):
    transform = {1: -7.0, 2: 0.1, 3: 0.2, 4: 30.0, 5: 31.0}
    assert validity.auc([transform[s] for s in x], [transform[s] for s in y]) == pytest.approx(
        validity.auc(x, y)
    )


@given(scores, scores)
def test_interval_contains_the_estimate_and_stays_in_the_unit_interval(x, y):
    low, high, method = validity.auc_interval(x, y)
    assert 0 <= low <= validity.auc(x, y) <= high <= 1
    assert method == validity.NEWCOMBE


def test_newcombe_interval_at_the_edges_is_not_a_point():
    low, high = validity.newcombe_interval(1.0, 5, 5)
    assert high == 1.0 and 0.5 < low < 0.8
    low, high = validity.newcombe_interval(0.0, 5, 5)
    assert low == 0.0 and 0.2 < high < 0.5


def test_verdicts():
    good = validity.separation("j", "d", [4, 5, 4, 5, 4, 5], [1, 2, 1, 2, 2, 1])
    assert good.verdict == validity.SEPARATES and good.auc == 1.0
    inverted = validity.separation("j", "d", [1, 2, 1, 2, 2, 1], [4, 5, 4, 5, 4, 5])
    assert inverted.verdict == validity.INVERTS and inverted.high < 0.5
    assert inverted.mean_pass < inverted.mean_fail
    unclear = validity.separation("j", "d", [1, 5, 3, 2, 4], [2, 4, 3, 1, 5])
    assert unclear.verdict == validity.NOT_ENOUGH and "includes 0.5" in unclear.reason
    few = validity.separation("j", "d", [5, 5, 5, 5], [1, 1, 1, 1, 1])
    assert few.verdict == validity.NOT_ENOUGH and "fewer than 5" in few.reason
    flat = validity.separation("j", "d", [3] * 6, [3] * 6)
    assert flat.verdict == validity.NOT_ENOUGH and "no variation" in flat.reason


def test_separations_average_repetitions_and_skip_unchecked_and_unscored():
    records = [
        {"judge": "j", "conversation": c, "dimension": "d", "status": "ok", "score": s}
        for c, s in [(1, 5), (1, 3), (2, 1), (3, 2)]
    ] + [{"judge": "j", "conversation": 4, "dimension": "d", "status": "unparseable"}]
    (row,) = validity.separations(records, {1: True, 2: False, 3: None, 4: False})
    assert (row.n_pass, row.n_fail, row.mean_pass, row.mean_fail) == (1, 1, 4.0, 1.0)


def test_warning_for_consistent_but_inverted_or_not_separating():
    inverted = validity.separation("j", "d", [1, 2, 1, 2, 2, 1], [4, 5, 4, 5, 4, 5])
    assert "Consistent (test–retest exact 96%) but inverted" in validity.warning(inverted, 0.96)
    assert validity.warning(inverted, None).startswith("Inverted")
    flat = validity.separation("j", "d", [1, 5, 3, 2, 4], [2, 4, 3, 1, 5])
    assert "does not separate" in validity.warning(flat, 0.9)
    assert validity.warning(flat, 0.5) == ""
    good = validity.separation("j", "d", [4, 5, 4, 5, 4, 5], [1, 2, 1, 2, 2, 1])
    assert validity.warning(good, 1.0) == ""
