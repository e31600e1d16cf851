"""Properties of the metrics on random cells, and agreement with the literal definitions."""

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patientagentbench.analysis import alignment
from patientagentbench.analysis.alignment import align, align_all_pairs
from patientagentbench.analysis.metrics import (
    TraceData,
    ac_aligned,
    argument_consistency,
    cell_metrics,
    divergence_point,
    levenshtein,
    output_agreement,
    pass_hat_k,
    tss,
)

from . import reference

# Few names and values, so that random traces often agree and often differ.
names = st.sampled_from(["get_contact", "send_email", "search_emails", "calculate"])
values = st.one_of(
    st.sampled_from(["alice", "bob", "3pm"]),
    st.integers(0, 2),
    # Values Python calls equal (1 == 1.0 == True) or not ("1"): the divergence point's cases.
    st.sampled_from([1.0, True, "1", 2.0]),
    st.lists(st.sampled_from(["x", "y", "z"]), max_size=3),
    st.dictionaries(st.sampled_from(["u", "v"]), st.integers(0, 1), max_size=2),
)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(["to", "query", "n"]), values, max_size=3),
    st.none(),  # a malformed call
)
calls = st.lists(st.tuples(names, arguments), max_size=6)
cells = st.lists(calls, min_size=2, max_size=7)
name_sequences = st.lists(names, max_size=7)
responses = st.lists(st.sampled_from(["Done.", " Done.", "Sent.", "", "  "]), max_size=8)

DEFINED_PAIRWISE = ("tss", "ac", "ac_aligned", "divergence_point", "output_exact_match")


def names_of(cell):
    return [[name for name, _ in trace] for trace in cell]


def approx_or_none(value):
    return None if value is None else pytest.approx(value, abs=1e-12)


@given(cells)
def test_scores_lie_between_zero_and_one(cell):
    for value in (tss(names_of(cell)), argument_consistency(cell), ac_aligned(cell)):
        assert 0.0 <= value <= 1.0


@given(responses)
def test_output_agreement_lies_between_zero_and_one(texts):
    value = output_agreement(texts)
    assert value is None or 0.0 <= value <= 1.0


@given(cells)
def test_tss_is_one_exactly_when_all_name_sequences_are_equal(cell):
    sequences = names_of(cell)
    all_equal = all(s == sequences[0] for s in sequences)
    assert (tss(sequences) == pytest.approx(1.0, abs=1e-12)) == all_equal


@given(cells, st.randoms(use_true_random=False))
def test_metrics_do_not_depend_on_trace_order(cell, random):
    traces = [TraceData(calls, final_response=str(len(calls))) for calls in cell]
    shuffled = traces[:]
    random.shuffle(shuffled)
    before, after = cell_metrics(traces), cell_metrics(shuffled)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert after[key] == (approx_or_none(value) if isinstance(value, float) else value), key


@given(
    name_sequences, st.lists(st.lists(arguments, min_size=7, max_size=7), min_size=2, max_size=6)
)
def test_ac_aligned_equals_ac_when_all_name_sequences_are_equal(sequence, argument_rows):
    cell = [list(zip(sequence, row, strict=False)) for row in argument_rows]
    assert ac_aligned(cell) == pytest.approx(argument_consistency(cell), abs=1e-12)


@given(cells)
@settings(max_examples=200)
def test_fast_metrics_equal_the_literal_definitions(cell):
    assert tss(names_of(cell)) == pytest.approx(reference.tss(names_of(cell)), abs=1e-12)
    assert argument_consistency(cell) == pytest.approx(
        reference.argument_consistency(cell), abs=1e-12
    )
    assert ac_aligned(cell) == pytest.approx(reference.ac_aligned(cell), abs=1e-12)
    assert divergence_point(cell) == approx_or_none(reference.divergence_point(cell))


@given(responses)
def test_output_agreement_equals_the_literal_definition(texts):
    assert output_agreement(texts) == approx_or_none(reference.output_agreement(texts))


@given(cells)
def test_errored_traces_do_not_change_the_metrics(cell):
    valid = [TraceData(calls, "ok") for calls in cell]
    errored = [TraceData(calls, "", error="429") for calls in cell[:2]]
    with_errors, without = cell_metrics(valid + errored), cell_metrics(valid)
    assert with_errors["n_error"] == 2
    for key in DEFINED_PAIRWISE:
        assert with_errors[key] == approx_or_none(without[key]), key


@given(st.lists(name_sequences, min_size=2, max_size=12))
@settings(max_examples=150)
def test_batched_alignment_equals_one_pair_at_a_time(sequences):
    batch = align_all_pairs(sequences)
    for pair, (u, v) in enumerate(zip(batch.left.tolist(), batch.right.tolist(), strict=True)):
        edits, matches = reference.align(sequences[u], sequences[v])
        in_batch = batch.match_pair == pair
        got = list(
            zip(
                batch.match_left[in_batch].tolist(),
                batch.match_right[in_batch].tolist(),
                strict=True,
            )
        )
        assert (int(batch.edits[pair]), got) == (edits, matches)


@given(name_sequences, name_sequences)
def test_alignment_pairs_same_tools_in_order_with_minimum_edits(a, b):
    edits, matches = align(a, b)
    assert edits == levenshtein(a, b)
    assert all(a[i] == b[j] for i, j in matches)
    assert all(
        i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(matches, matches[1:], strict=False)
    )
    assert align(b, a) == (edits, sorted((j, i) for i, j in matches))


@given(name_sequences, name_sequences, name_sequences)
def test_levenshtein_is_a_metric(a, b, c):
    assert levenshtein(a, b) == levenshtein(b, a)
    assert (levenshtein(a, b) == 0) == (a == b)
    assert levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c)
    assert abs(len(a) - len(b)) <= levenshtein(a, b) <= max(len(a), len(b))


@given(st.lists(st.booleans(), min_size=1, max_size=20))
def test_pass_hat_k_starts_at_the_success_rate_and_never_rises(successes):
    values = pass_hat_k(successes)
    assert len(values) == len(successes)
    assert values[0] == pytest.approx(sum(successes) / len(successes))
    assert all(later <= earlier + 1e-15 for earlier, later in zip(values, values[1:], strict=False))
    assert values[-1] == (1.0 if all(successes) else 0.0)


def test_alignment_in_small_batches_equals_one_batch(monkeypatch):
    rng = Random(7)
    sequences = [[rng.choice("abcd") for _ in range(rng.randint(0, 6))] for _ in range(30)]
    whole = align_all_pairs(sequences)
    monkeypatch.setattr(alignment, "_MAX_BATCH_CELLS", 100)  # 2 pairs per batch
    batched = align_all_pairs(sequences)
    for field in ("edits", "match_pair", "match_left", "match_right"):
        assert getattr(batched, field).tolist() == getattr(whole, field).tolist(), field
