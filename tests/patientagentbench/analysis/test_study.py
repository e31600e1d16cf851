"""The study frame: per-pair divergence steps, split halves and `cells_frame`."""

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.analysis.metrics import CELL_METRICS, TraceData, cell_metrics
from patientagentbench.analysis.study import (
    attribute_columns,
    cell_record,
    cells_frame,
    per_pair_divergence_steps,
    split_half_metrics,
)
from patientagentbench.interchange.release import parse_release_cells
from tests.patientagentbench.analysis.paths import GOLDEN as GOLDEN_DIR

GOLDEN_CELLS = parse_release_cells(json.loads((GOLDEN_DIR / "consistency-cases.json").read_text()))

names = st.sampled_from(["get_contact", "send_email", "search_emails"])
arguments = st.one_of(
    st.dictionaries(st.sampled_from(["to", "n"]), st.sampled_from(["a", "b", 1]), max_size=2),
    st.none(),
)
traces = st.builds(
    TraceData,
    calls=st.lists(st.tuples(names, arguments), max_size=5),
    error=st.sampled_from([None, None, None, "timeout"]),
)


def trace(*calls, error=None, correct=None):
    return TraceData(calls=list(calls), error=error, correct=correct)


def test_each_diverging_pair_gives_its_first_differing_step():
    a = trace(("get_contact", {"name": "alice"}), ("send_email", {"to": "alice"}))
    b = trace(("get_contact", {"name": "alice"}), ("send_email", {"to": "bob"}))
    c = trace(("search_emails", {}))
    same_as_a = trace(("get_contact", {"name": "alice"}), ("send_email", {"to": "alice"}))
    # Pairs in order: ab (arguments at 2), ac (1), a-a' (equal: left out), bc (1), b-a' (2),
    # c-a' (1).
    assert per_pair_divergence_steps([a, b, c, same_as_a]) == [2, 1, 1, 2, 1]


def test_a_missing_step_is_a_divergence_and_errored_traces_are_left_out():
    short = trace(("get_contact", {}))
    longer = trace(("get_contact", {}), ("send_email", {}))
    failed = trace(error="rate limited")
    assert per_pair_divergence_steps([short, longer, failed]) == [2]


@pytest.mark.parametrize("cell", GOLDEN_CELLS, ids=lambda c: f"{c.task_id}-{c.model}")
def test_mean_of_pair_steps_is_the_cells_divergence_point_on_the_golden_cells(cell):
    steps = per_pair_divergence_steps(cell.trace_data())
    expected = cell_metrics(cell.trace_data())["divergence_point"]
    if expected is None:
        assert steps == []
    else:
        assert sum(steps) / len(steps) == pytest.approx(expected, abs=1e-12)


@given(st.lists(traces, max_size=8))
def test_mean_of_pair_steps_is_the_cells_divergence_point(cell):
    steps = per_pair_divergence_steps(cell)
    expected = cell_metrics(cell)["divergence_point"]
    assert (sum(steps) / len(steps) if steps else None) == (
        None if expected is None else pytest.approx(expected, abs=1e-12)
    )
    assert all(step >= 1 for step in steps)


def test_split_halves_follow_repetition_order():
    steady = trace(("get_contact", {"name": "alice"}))
    other = trace(("search_emails", {"q": "alice"}))
    # Odd repetitions (1st, 3rd, 5th) agree; even ones (2nd, 4th) do not.
    halves = split_half_metrics([steady, steady, steady, other, steady])
    assert halves["tss_odd"] == 1.0
    assert halves["ac_odd"] == 1.0
    assert halves["tss_even"] == 0.0
    assert halves["ac_even"] == 0.0
    assert set(halves) == {f"{m}_{h}" for m in ("tss", "ac", "ac_aligned") for h in ("odd", "even")}


def test_a_half_with_one_valid_trace_has_no_pairwise_metric():
    halves = split_half_metrics([trace(), trace(), trace(error="x"), trace()])
    assert halves["tss_odd"] is None
    assert halves["tss_even"] == 1.0


def test_cell_record_carries_metrics_steps_halves_and_verdict_counts():
    traces_ = [
        trace(("get_contact", {}), correct=True),
        trace(("send_email", {}), correct=False),
        trace(("get_contact", {}), correct=None),
        trace(error="timeout"),
    ]
    record = cell_record(
        model="m", task_id="t1", traces=traces_, category="retrieval", attributes={"x": 1}
    )
    assert record["n_valid"] == 3 and record["n_error"] == 1
    assert record["n_graded"] == 2
    assert record["correct_rate"] == 0.5
    assert record["divergence_steps"] == [1, 1]
    assert record["tss_odd"] == 1.0
    assert record["attributes"] == {"x": 1}


def test_cells_frame_has_numeric_metrics_lists_and_attribute_columns():
    frame = cells_frame(
        [
            {
                "model": "a",
                "task_id": "t1",
                "category": None,
                "difficulty": "easy",
                "temperature": None,
                "attributes": {"severity": "mild", "category": "medication", "tss": "x"},
                "tss": 0.5,
                "correct_rate": 0.5,
                "n_valid": 4,
                "divergence_steps": [1, 2],
            },
            {
                "model": "b",
                "task_id": "t1",
                "category": "ambiguous",
                "difficulty": "hard",
                "temperature": 0.7,
                "attributes": {"personality": "anxious", "category": "ignored"},
                "tss": None,
            },
        ]
    )
    assert frame["tss"].dtype == float
    assert frame.loc[0, "tss"] == 0.5 and math.isnan(frame.loc[1, "tss"])
    assert math.isnan(frame.loc[0, "ac"])  # a metric the cell did not give
    assert math.isnan(frame.loc[0, "temperature"]) and frame.loc[1, "temperature"] == 0.7
    # An attribute fills an empty identity column but never overrides a given one.
    assert frame["category"].tolist() == ["medication", "ambiguous"]
    assert attribute_columns(frame) == ["severity", "attribute_tss", "personality"]
    assert frame["attribute_tss"].tolist()[0] == "x"
    assert frame["divergence_steps"].tolist() == [[1, 2], []]
    # Without a verdict count, the correct rate was over the valid traces.
    assert frame.loc[0, "n_graded"] == 4


def test_cells_frame_of_no_cells_has_every_column():
    frame = cells_frame([])
    assert len(frame) == 0
    for column in ("model", "task_id", "tss", "ac", "divergence_steps", "tss_odd"):
        assert column in frame
    assert attribute_columns(frame) == []


def test_every_cell_metric_is_a_frame_column():
    record = cell_record(model="m", task_id="t", traces=[trace(("a", {})), trace(("a", {}))])
    frame = cells_frame([record])
    assert set(CELL_METRICS) <= set(frame.columns)
    # n_scored, the one cell metric the frame does not declare, stays an extra column at the end.
    assert list(frame.columns)[-1] == "n_scored"
