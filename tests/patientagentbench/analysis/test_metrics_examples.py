"""Small cells whose metrics are worked out by hand."""

import json

import pytest

from patientagentbench.analysis.alignment import align
from patientagentbench.analysis.metrics import (
    TraceData,
    ac_aligned,
    argument_consistency,
    calls_per_trace,
    cell_metrics,
    divergence_point,
    error_rate,
    flatten_arguments,
    jaccard,
    levenshtein,
    malformed_rate,
    output_agreement,
    output_agreement_counts,
    pass_hat_k,
    tss,
    unique_sequences,
)

CONTACT = ("get_contact", {"name": "alice"})
SEARCH = ("search_contacts", {"query": "alice"})
EMAIL_ALICE = ("send_email", {"to": "alice@example.com", "body": "3pm"})
EMAIL_BOB = ("send_email", {"to": "bob@example.com", "body": "3pm"})


def test_levenshtein():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein(["a", "b", "c"], ["a", "c"]) == 1
    assert levenshtein([], ["a", "b"]) == 2
    assert levenshtein(("x",), ("x",)) == 0


def test_tss():
    # 1 - 1/3 for the deleted middle step.
    assert tss([["a", "b", "c"], ["a", "c"]]) == pytest.approx(2 / 3)
    # Pairs: (abc, abc) 1, (abc, ab) 2/3, (abc, ab) 2/3 -> 7/9.
    assert tss([["a", "b", "c"], ["a", "b", "c"], ["a", "b"]]) == pytest.approx(7 / 9)
    assert tss([[], []]) == 1.0
    assert tss([[], ["a"]]) == 0.0
    assert tss([["a"]]) is None


def test_flatten_arguments():
    flat = flatten_arguments({"to": "x", "attendees": ["bob", "alice"], "n": 3, "ok": True})
    assert flat == {("to", "x"), ("attendees", ("alice", "bob")), ("n", "3"), ("ok", "True")}
    assert flatten_arguments(None) == frozenset()
    assert flatten_arguments({"n": 3}) == flatten_arguments({"n": "3"})


def test_jaccard():
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(frozenset({1}), frozenset()) == 0.0
    assert jaccard(frozenset({1, 2}), frozenset({2, 3})) == pytest.approx(1 / 3)


def test_ac_zips_to_the_shorter_trace():
    # Only step 1 is aligned, and it agrees; the extra step is not scored.
    assert argument_consistency([[CONTACT], [CONTACT, EMAIL_ALICE]]) == 1.0
    # Step 1: 1; step 2: {to alice, body} vs {to bob, body}: 1/3.
    assert argument_consistency([[CONTACT, EMAIL_ALICE], [CONTACT, EMAIL_BOB]]) == pytest.approx(
        2 / 3
    )


def test_ac_without_any_aligned_step_is_one():
    assert argument_consistency([[], []]) == 1.0
    assert argument_consistency([[], [CONTACT]]) == 1.0
    assert argument_consistency([[CONTACT]]) is None


def test_ac_pools_steps_across_pairs():
    # Pairs (A, B): steps 1, 2 -> 1, 1/3; (A, C) and (B, C): step 1 -> 1 each. Mean of 4.
    a, b, c = [CONTACT, EMAIL_ALICE], [CONTACT, EMAIL_BOB], [CONTACT]
    assert argument_consistency([a, b, c]) == pytest.approx((1 + 1 / 3 + 1 + 1) / 4)


def test_malformed_arguments_count_as_empty():
    assert argument_consistency([[("a", None)], [("a", {})]]) == 1.0
    assert argument_consistency([[("a", None)], [("a", {"x": 1})]]) == 0.0


def test_alignment_skips_an_inserted_step():
    edits, matches = align(
        ["get_contact", "send_email"], ["search_contacts", "get_contact", "send_email"]
    )
    assert edits == 1
    assert matches == [(0, 1), (1, 2)]


def test_ac_aligned_compares_matching_tools_only():
    a = [CONTACT, EMAIL_ALICE]
    b = [SEARCH, CONTACT, EMAIL_BOB]
    # Step-aligned AC compares get_contact with search_contacts: nothing agrees.
    assert argument_consistency([a, b]) == 0.0
    # Aligned: get_contact <-> get_contact 1, send_email <-> send_email 1/3.
    assert ac_aligned([a, b]) == pytest.approx((1 + 1 / 3) / 2)


def test_ac_aligned_pair_without_matched_steps():
    assert ac_aligned([[CONTACT], [SEARCH]]) == 0.0
    assert ac_aligned([[], [CONTACT]]) == 0.0
    assert ac_aligned([[], []]) == 1.0
    assert ac_aligned([[CONTACT]]) is None


def test_ac_aligned_prefers_the_alignment_with_most_matches():
    # ab vs ba: two substitutions and delete-match-insert both cost 2 edits; the latter pairs
    # one step (the tie-break picks a <-> a, whichever trace comes first).
    assert align("ab", "ba") == (2, [(0, 1)])
    assert align("ba", "ab") == (2, [(1, 0)])
    a = [("a", {"k": 1}), ("b", {"k": 1})]
    b = [("b", {"k": 2}), ("a", {"k": 1})]
    assert ac_aligned([a, b]) == 1.0
    assert ac_aligned([b, a]) == 1.0


def test_unique_sequences():
    assert unique_sequences([["a", "b"], ["a", "b"], ["a"], []]) == 3
    assert unique_sequences([["a"]]) == 1
    assert unique_sequences([]) is None


def test_divergence_point():
    assert divergence_point([[CONTACT, EMAIL_ALICE], [CONTACT, SEARCH]]) == 2.0
    # A missing step differs: the shorter trace diverges where it stops.
    assert divergence_point([[CONTACT], [CONTACT, EMAIL_ALICE]]) == 2.0
    assert divergence_point([[], [CONTACT]]) == 1.0
    # Equal names: the first step whose arguments differ.
    assert divergence_point([[CONTACT, EMAIL_ALICE], [CONTACT, EMAIL_BOB]]) == 2.0
    # Pairs equal in both are left out: (A, A) out, (A, B) 2, (A, B) 2.
    assert divergence_point([[CONTACT, EMAIL_ALICE]] * 2 + [[CONTACT, EMAIL_BOB]]) == 2.0
    assert divergence_point([[CONTACT], [CONTACT]]) is None
    assert divergence_point([[], []]) is None


def test_divergence_compares_arguments_by_python_equality():
    # The paper's `!=` on argument dicts: key order and 1 == 1.0 == True do not count ...
    equal = [
        [("a", {"to": ["x", "y"], "n": 1, "o": {"u": "c", "v": 2}})],
        [("a", {"o": {"v": 2.0, "u": "c"}, "n": True, "to": ["x", "y"]})],
    ]
    assert divergence_point(equal) is None
    # ... list order and 1 vs "1" do, although AC's flattened sets call them equal.
    for other in ({"to": ["y", "x"], "n": 1}, {"to": ["x", "y"], "n": "1"}):
        calls = [[("a", {"to": ["x", "y"], "n": 1})], [("a", other)]]
        assert divergence_point(calls) == 1.0
        assert argument_consistency(calls) == 1.0


def test_output_agreement():
    # Truthy responses are kept, then stripped: "Done." twice, "Other" and "" (the
    # whitespace one): 1 match in 6 pairs; the empty one is left out.
    assert output_agreement(["Done.", " Done. ", "", "Other", "   "]) == pytest.approx(1 / 6)
    assert output_agreement_counts(["Done.", " Done. ", "", "Other", "   "])[1] == 3
    # Fewer than two kept responses: the paper's 1.0 and one unique response.
    assert output_agreement_counts(["Done.", ""]) == (1.0, 1)
    assert output_agreement_counts(["", ""]) == (1.0, 1)
    assert output_agreement(["a", "a"]) == 1.0
    assert output_agreement(["  ", "\n"]) == 1.0  # both strip to ""


def test_pass_hat_k():
    assert pass_hat_k([True, True, False]) == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert pass_hat_k([True, True]) == [1.0, 1.0]
    assert pass_hat_k([]) == []


def test_malformed_and_error_rates():
    assert malformed_rate([[("a", None), ("b", {})], [("c", {})], []]) == pytest.approx(1 / 3)
    assert malformed_rate([[], []]) is None
    traces = [TraceData([], error="429"), TraceData([]), TraceData([]), TraceData([])]
    assert error_rate(traces) == 0.25
    assert error_rate([]) is None


def test_calls_per_trace():
    stats = calls_per_trace([[CONTACT, CONTACT], [CONTACT] * 4])
    assert stats.mean == 3.0
    assert stats.sd == 1.0  # population sd, as the paper's np.std
    assert stats.cv == pytest.approx(1 / 3)
    assert (stats.min, stats.max) == (2, 4)
    single = calls_per_trace([[CONTACT]])
    assert (single.mean, single.sd, single.cv) == (1.0, 0.0, 0.0)
    assert calls_per_trace([[], []]).cv == 0.0  # the paper's cv when the mean is 0
    assert calls_per_trace([]).mean is None


def test_cell_metrics_excludes_and_counts_errors():
    traces = [
        TraceData([CONTACT, EMAIL_ALICE], "Sent.", correct=True),
        TraceData([CONTACT, EMAIL_BOB], "Sent.", correct=False),
        TraceData([("get_contact", None)], "", correct=True),
        TraceData([SEARCH] * 5, "", error="RateLimitError: 429", correct=False),
    ]
    metrics = cell_metrics(traces)
    assert metrics["n_valid"] == 3 and metrics["n_error"] == 1
    assert metrics["unique_sequences"] == 2
    assert metrics["output_exact_match"] == 1.0  # "Sent." twice; the empty one is dropped
    assert metrics["correct_rate"] == pytest.approx(2 / 3)
    assert metrics["pass_hat_k"] == pytest.approx([2 / 3, 1 / 3, 0.0])
    assert metrics["malformed_rate"] == pytest.approx(1 / 5)
    assert metrics["calls_mean"] == pytest.approx(5 / 3)
    json.dumps(metrics)  # stored as JSON


def test_cell_with_one_valid_trace_is_insufficient():
    metrics = cell_metrics([TraceData([CONTACT], "Hi", correct=True), TraceData([], error="x")])
    assert metrics["excluded_reason"] == "insufficient valid traces (1 of 2 valid)"
    assert (metrics["n_runs"], metrics["n_valid"], metrics["n_error"]) == (2, 1, 1)
    for key in ("tss", "ac", "unique_sequences", "output_exact_match", "calls_mean"):
        assert metrics[key] is None, key
    assert metrics["correct_rate"] is None and metrics["pass_hat_k"] is None
    assert cell_metrics([TraceData([CONTACT]), TraceData([])])["excluded_reason"] is None


def test_cell_metrics_of_an_empty_cell():
    metrics = cell_metrics([])
    assert metrics["n_valid"] == 0 and metrics["n_error"] == 0
    assert metrics["excluded_reason"] == "insufficient valid traces (0 of 0 valid)"
    metric_values = {k: v for k, v in metrics.items() if not k.startswith("n_")}
    assert all(v is None for k, v in metric_values.items() if k != "excluded_reason")
