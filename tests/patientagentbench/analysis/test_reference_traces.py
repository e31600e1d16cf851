"""The reference-trace monitor's computation: the medoid, a trace's deviation, the risk ratio
and the share of early departures."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import Table2x2

from patientagentbench.analysis.metrics import levenshtein, tss
from patientagentbench.analysis.reference_traces import (
    MIN_DEPARTURES,
    MIN_FAILURES,
    MIN_TRACES_PER_GROUP,
    NOT_ENOUGH,
    choose_reference,
    deviation,
    early_share,
    risk_ratio,
)

names = st.sampled_from(["get_contact", "send_email", "search", "calculate"])
sequences = st.lists(names, max_size=5).map(tuple)
repetitions = st.lists(sequences, min_size=1, max_size=8)


def summed_tss(sequence, cell):
    """Literal: the sequence's TSS to every repetition but one copy of itself."""
    others = list(cell)
    others.remove(sequence)
    return sum(tss([sequence, other]) for other in others)


@given(repetitions)
def test_the_reference_is_a_repetition_with_the_highest_summed_tss(cell):
    chosen = choose_reference(cell)
    assert chosen.sequence in cell
    best = max(summed_tss(seq, cell) for seq in cell)
    assert summed_tss(chosen.sequence, cell) == pytest.approx(best, abs=1e-9)
    assert chosen.count == cell.count(chosen.sequence)
    assert chosen.n == len(cell)


@given(repetitions, st.randoms(use_true_random=False))
def test_the_reference_does_not_depend_on_the_order_of_repetitions(cell, random):
    shuffled = list(cell)
    random.shuffle(shuffled)
    assert choose_reference(shuffled) == choose_reference(cell)


@given(repetitions)
def test_among_tied_medoids_the_most_frequent_wins(cell):
    chosen = choose_reference(cell)
    best = max(summed_tss(seq, cell) for seq in cell)
    tied = {seq for seq in cell if best - summed_tss(seq, cell) <= 1e-9}
    assert chosen.tied == len(tied)
    assert chosen.count == max(cell.count(seq) for seq in tied)


def test_a_tie_in_summed_tss_goes_to_the_mode():
    # a and b each score 1 against each other and 0 against c; a appears twice so wins.
    a, b, c = ("x",), ("y",), ("z", "z", "z")
    assert tss([a, b]) == 0.0
    chosen = choose_reference([b, c, a, a])
    assert chosen.sequence == a and chosen.count == 2


def test_an_even_tie_falls_to_the_shorter_then_alphabetical_sequence():
    assert choose_reference([("b",), ("a",)]).sequence == ("a",)
    assert choose_reference([("a", "a"), ("b",)]).tied == 2
    assert choose_reference([("a", "a"), ("b",)]).sequence == ("b",)


def test_identical_repetitions_are_their_own_reference_with_tss_one():
    chosen = choose_reference([("a", "b")] * 4)
    assert chosen.sequence == ("a", "b") and chosen.mean_tss == 1.0 and chosen.tied == 1


def test_no_repetition_is_refused():
    with pytest.raises(ValueError):
        choose_reference([])


@given(sequences)
def test_a_trace_equal_to_its_reference_does_not_deviate(seq):
    found = deviation(seq, seq)
    assert not found.deviates and found.first_two_match and found.tss == 1.0


@given(sequences, sequences)
def test_the_departure_step_is_where_the_names_first_differ(seq, ref):
    found = deviation(seq, ref)
    assert found.deviates == (seq != ref)
    if found.deviates:
        step = found.departure_step
        assert seq[: step - 1] == ref[: step - 1]
        assert seq[step - 1 : step] != ref[step - 1 : step]
    assert found.first_two_match == (not found.deviates or found.departure_step > 2)
    assert found.tss == pytest.approx(1 - levenshtein(seq, ref) / max(len(seq), len(ref), 1))
    assert deviation(ref, seq) == found


def test_risk_ratio_matches_statsmodels_log_interval():
    found = risk_ratio(20, 40, 10, 60)
    table = Table2x2([[20, 20], [10, 50]])
    low, high = table.riskratio_confint()
    assert found["ratio"] == pytest.approx(table.riskratio)
    assert (found["low"], found["high"]) == (pytest.approx(low), pytest.approx(high))
    assert "Katz" in found["method"] and "deviating" in found["direction"]


counts = st.integers(MIN_TRACES_PER_GROUP, 200).flatmap(
    lambda n: st.tuples(st.integers(1, n), st.just(n))
)


@given(counts, counts)
def test_the_interval_holds_the_ratio_and_swapping_the_groups_inverts_it(deviating, matching):
    (a, n1), (c, n0) = deviating, matching
    if a + c < MIN_FAILURES:
        return
    forward, backward = risk_ratio(a, n1, c, n0), risk_ratio(c, n0, a, n1)
    assert forward["low"] <= forward["ratio"] <= forward["high"]
    assert forward["ratio"] == pytest.approx(1 / backward["ratio"])
    assert forward["low"] == pytest.approx(1 / backward["high"])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((5, MIN_TRACES_PER_GROUP - 1, 5, 50), "10 needed in each"),
        ((2, 20, 2, 20), f"{MIN_FAILURES} needed"),
        ((0, 20, 9, 20), "no failure among the deviating"),
        ((9, 20, 0, 20), "no failure among the matching"),
        ((1, 20, 0, 20), "1 failure in all"),
    ],
)
def test_risk_ratio_refuses_under_its_minimums(args, says):
    found = risk_ratio(*args)
    assert found["ratio"] is None and found["low"] is None
    assert found["reason"].startswith(NOT_ENOUGH) and says in found["reason"]


def test_the_early_share_has_a_wilson_interval_around_it():
    steps = [1, 2, 1, 3, 5, 2, 1, 4, 1, 2, 6, 1]
    found = early_share(steps)
    assert found["share"] == pytest.approx(8 / 12) and found["n"] == 12
    assert found["low"] < found["share"] < found["high"]
    assert "Wilson" in found["method"]


def test_the_early_share_refuses_under_its_minimum():
    found = early_share([1] * (MIN_DEPARTURES - 1))
    assert found["share"] is None and found["reason"].startswith(NOT_ENOUGH)
