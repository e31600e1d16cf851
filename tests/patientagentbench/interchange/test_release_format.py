import copy
import json

import pytest

from patientagentbench.interchange.release import (
    Cell,
    ReleaseFormatError,
    parse_release_cells,
)
from tests.patientagentbench.analysis.paths import GOLDEN as GOLDEN_DIR


def release():
    return [
        {
            "task_id": "retrieve-001",
            "task": "Email Alice",
            "category": "retrieval",
            "difficulty": "easy",
            "model": "model-a",
            "metrics": {"tss": 1.0},
            "traces": [
                {
                    "task_id": "retrieve-001",
                    "model": "model-a",
                    "run_index": run,
                    "tool_calls": [
                        {
                            "step": 1,
                            "tool_name": "get_contact",
                            "arguments": {"name": "alice"},
                            "result": "{}",
                            "timestamp": 0.5,
                        },
                        {
                            "step": 2,
                            "tool_name": "send_email",
                            "arguments": {"to": "alice@example.com"},
                            "result": "{}",
                            "timestamp": 1.0,
                        },
                    ],
                    "final_response": "Sent.",
                    "total_tokens": 120,
                    "latency_ms": 800.0,
                    "error": None,
                }
                for run in range(2)
            ],
        }
    ]


def error_for(mutate) -> str:
    data = release()
    mutate(data)
    with pytest.raises(ReleaseFormatError) as raised:
        parse_release_cells(data)
    return str(raised.value)


def test_parses_cells_traces_and_calls():
    [cell] = parse_release_cells(release())
    assert isinstance(cell, Cell)
    assert (cell.task_id, cell.model, cell.category, cell.difficulty) == (
        "retrieve-001",
        "model-a",
        "retrieval",
        "easy",
    )
    assert [t.run_index for t in cell.traces] == [0, 1]
    call = cell.traces[0].tool_calls[1]
    assert (call.step, call.tool_name, call.arguments) == (
        2,
        "send_email",
        {"to": "alice@example.com"},
    )
    data = cell.trace_data()[0]
    assert data.calls == [
        ("get_contact", {"name": "alice"}),
        ("send_email", {"to": "alice@example.com"}),
    ]
    assert (data.final_response, data.error, data.correct) == ("Sent.", None, None)


def test_parses_the_golden_file():
    cells = parse_release_cells(json.loads((GOLDEN_DIR / "consistency-cases.json").read_text()))
    assert len(cells) == 40
    assert sum(len(c.traces) for c in cells) == 385


def test_optional_fields_may_be_missing_or_null():
    data = release()
    for key in ("task", "category", "difficulty", "metrics"):
        del data[0][key]
    trace = data[0]["traces"][0]
    for key in ("total_tokens", "latency_ms", "error", "task_id", "model"):
        del trace[key]
    trace["final_response"] = None
    [cell] = parse_release_cells(data)
    assert cell.task == "" and cell.metrics is None
    assert cell.traces[0].final_response == "" and cell.traces[0].error is None


def test_an_empty_error_string_means_no_error():
    data = release()
    data[0]["traces"][0]["error"] = ""
    assert parse_release_cells(data)[0].traces[0].error is None


def test_top_level_must_be_an_array():
    with pytest.raises(ReleaseFormatError, match="release: expected a JSON array"):
        parse_release_cells({"cells": []})


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.__setitem__(0, "cell"), "cell 0: expected an object, got a string"),
        (lambda d: d[0].pop("task_id"), "cell 0: field 'task_id' is missing"),
        (
            lambda d: d[0].__setitem__("model", ""),
            "cell 0: field 'model' must be a string (non-empty, at most 200 characters), got an empty string",
        ),
        (
            lambda d: d[0].pop("traces"),
            "cell 0 (retrieve-001 / model-a): field 'traces' is missing",
        ),
        (
            lambda d: d[0].__setitem__("traces", {}),
            "cell 0 (retrieve-001 / model-a): field 'traces' must be an array, got an object",
        ),
        (
            lambda d: d[0].__setitem__("metrics", [1]),
            "cell 0 (retrieve-001 / model-a): field 'metrics' must be an object or null",
        ),
        (
            lambda d: d[0]["traces"].__setitem__(1, None),
            "cell 0 (retrieve-001 / model-a), trace 1: expected an object, got null",
        ),
        (
            lambda d: d[0]["traces"][1].__setitem__("tool_calls", "get_contact"),
            "cell 0 (retrieve-001 / model-a), trace 1: field 'tool_calls' must be an array, got a string",
        ),
        (
            lambda d: d[0]["traces"][1].pop("run_index"),
            "trace 1: field 'run_index' is missing",
        ),
        (
            lambda d: d[0]["traces"][1].__setitem__("run_index", True),
            "trace 1: field 'run_index' must be an integer from 0 to 100000, got True",
        ),
        (
            lambda d: d[0]["traces"][1].__setitem__("run_index", 0),
            "trace 1: field 'run_index' 0 is also trace 0's",
        ),
        (
            lambda d: d[0]["traces"][1].__setitem__("task_id", "other-001"),
            "trace 1: field 'task_id' is 'other-001' but the cell's is 'retrieve-001'",
        ),
        (
            lambda d: d[0]["traces"][0].__setitem__("final_response", ["Sent."]),
            "trace 0: field 'final_response' must be a string or null, got an array",
        ),
        (
            lambda d: d[0]["traces"][0].__setitem__("latency_ms", "fast"),
            "trace 0: field 'latency_ms' must be a number >= 0 or null, got 'fast'",
        ),
        (
            lambda d: d[0]["traces"][0].__setitem__("total_tokens", 1.5),
            "trace 0: field 'total_tokens' must be an integer from 0 to 2147483647 or null, got 1.5",
        ),
        (
            lambda d: d[0]["traces"][0]["tool_calls"].__setitem__(0, ["get_contact"]),
            "trace 0, tool_calls[0]: expected an object, got an array",
        ),
        (
            lambda d: d[0]["traces"][0]["tool_calls"][1].__setitem__("arguments", '{"to": "x"}'),
            "cell 0 (retrieve-001 / model-a), trace 0, tool_calls[1]: field 'arguments' must be an object, got a string",
        ),
        (
            lambda d: d[0]["traces"][0]["tool_calls"][1].__setitem__("arguments", None),
            "trace 0, tool_calls[1]: field 'arguments' must be an object, got null",
        ),
        (
            lambda d: d[0]["traces"][0]["tool_calls"][1].pop("tool_name"),
            "trace 0, tool_calls[1]: field 'tool_name' is missing",
        ),
        (
            lambda d: d[0]["traces"][0]["tool_calls"][1].__setitem__("step", 1),
            "trace 0, tool_calls[1]: field 'step' 1 does not follow the previous step 1",
        ),
        (
            lambda d: d.append(copy.deepcopy(d[0])),
            "cell 1 (retrieve-001 / model-a): same task_id and model as cell 0",
        ),
    ],
)
def test_errors_name_the_record_and_field(mutate, expected):
    assert expected in error_for(mutate)


def test_error_is_a_value_error():
    assert issubclass(ReleaseFormatError, ValueError)


def test_a_traces_provider_id_is_kept_beside_the_cells_model_key():
    """The paper's runner writes the provider id into traces, the model key into the cell."""
    data = release()
    data[0]["traces"][1]["model"] = "model-a-20250514"
    [cell] = parse_release_cells(data)
    assert cell.model == "model-a"
    assert cell.traces[1].provider_model == "model-a-20250514"
