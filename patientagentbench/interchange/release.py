"""The seed paper's release format (DESIGN §8), parsed and validated into plain data.

A release is a JSON array of cells:

    {task_id, task, category, difficulty, model, metrics, traces: [
        {task_id, model, run_index, tool_calls: [{step, tool_name, arguments, result,
         timestamp}], final_response, total_tokens, latency_ms, error}]}

(the golden file adds `expected`). Parsing is all or nothing: the first bad value raises a
`ReleaseFormatError` naming the cell, trace, call and field, so an import never keeps half a
file. Keys the format does not name are ignored; `task`, `metrics`, `expected` and the per-run
numbers are optional because published files omit them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from patientagentbench.analysis.metrics import TraceData


class ReleaseFormatError(ValueError):
    """A release file that cannot be imported; the message says where and why."""


@dataclass(frozen=True, slots=True)
class ReleaseToolCall:
    step: int
    tool_name: str
    arguments: dict[str, Any]
    result: Any = None
    timestamp: float | None = None


@dataclass(slots=True)
class ReleaseTrace:
    run_index: int
    tool_calls: list[ReleaseToolCall]
    final_response: str = ""
    total_tokens: int | None = None
    latency_ms: float | None = None
    error: str | None = None
    provider_model: str = ""

    def to_trace_data(self, correct: bool | None = None) -> TraceData:
        return TraceData(
            calls=[(call.tool_name, call.arguments) for call in self.tool_calls],
            final_response=self.final_response,
            error=self.error,
            correct=correct,
        )


@dataclass(slots=True)
class Cell:
    task_id: str
    model: str
    traces: list[ReleaseTrace]
    task: str = ""
    category: str = ""
    difficulty: str = ""
    metrics: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None

    def trace_data(self) -> list[TraceData]:
        return [trace.to_trace_data() for trace in self.traces]


def parse_release_cells(data: Any) -> list[Cell]:
    """Every cell of a release, or a `ReleaseFormatError` for the first bad value."""
    if not isinstance(data, list):
        raise ReleaseFormatError(f"release: expected a JSON array of cells, got {_kind(data)}")
    cells = [_parse_cell(record, f"cell {index}") for index, record in enumerate(data)]
    _reject_duplicate_cells(cells)
    return cells


def _parse_cell(record: Any, where: str) -> Cell:
    _require_object(record, where)
    task_id = _text(record, "task_id", where)
    model = _text(record, "model", where)
    where = f"{where} ({task_id} / {model})"
    traces = _list(record, "traces", where)
    cell = Cell(
        task_id=task_id,
        model=model,
        traces=[
            _parse_trace(trace, f"{where}, trace {index}", task_id)
            for index, trace in enumerate(traces)
        ],
        task=_optional_text(record, "task", where),
        category=_optional_text(record, "category", where),
        difficulty=_optional_text(record, "difficulty", where),
        metrics=_optional_object(record, "metrics", where),
        expected=_optional_object(record, "expected", where),
    )
    _reject_duplicate_runs(cell.traces, where)
    return cell


def _parse_trace(record: Any, where: str, task_id: str) -> ReleaseTrace:
    _require_object(record, where)
    # A trace that names its cell's task must name this one: catches files merged by hand.
    if "task_id" in record and record["task_id"] != task_id:
        raise _error(where, "task_id", f"is {record['task_id']!r} but the cell's is {task_id!r}")
    calls = _list(record, "tool_calls", where)
    trace = ReleaseTrace(
        run_index=_integer(record, "run_index", where, minimum=0),
        tool_calls=[
            _parse_call(call, f"{where}, tool_calls[{index}]") for index, call in enumerate(calls)
        ],
        final_response=_optional_text(record, "final_response", where),
        total_tokens=_optional_number(record, "total_tokens", where, integer=True),
        latency_ms=_optional_number(record, "latency_ms", where),
        # An empty error string is the same as no error.
        error=_optional_text(record, "error", where) or None,
        # The paper's runner writes the provider id into traces but the model key into failed
        # runs; the cell's model is the key, the provider id is kept beside it.
        provider_model=_optional_text(record, "model", where),
    )
    _reject_unordered_steps(trace.tool_calls, where)
    return trace


def _parse_call(record: Any, where: str) -> ReleaseToolCall:
    _require_object(record, where)
    return ReleaseToolCall(
        step=_integer(record, "step", where, minimum=0),
        tool_name=_text(record, "tool_name", where),
        arguments=_object(record, "arguments", where),
        result=record.get("result"),
        timestamp=_optional_number(record, "timestamp", where),
    )


def _reject_duplicate_cells(cells: list[Cell]) -> None:
    seen: dict[tuple[str, str], int] = {}
    for index, cell in enumerate(cells):
        key = (cell.task_id, cell.model)
        if key in seen:
            raise ReleaseFormatError(
                f"cell {index} ({cell.task_id} / {cell.model}): same task_id and model as "
                f"cell {seen[key]}"
            )
        seen[key] = index


def _reject_duplicate_runs(traces: list[ReleaseTrace], where: str) -> None:
    seen: dict[int, int] = {}
    for index, trace in enumerate(traces):
        if trace.run_index in seen:
            raise _error(
                f"{where}, trace {index}",
                "run_index",
                f"{trace.run_index} is also trace {seen[trace.run_index]}'s",
            )
        seen[trace.run_index] = index


def _reject_unordered_steps(calls: list[ReleaseToolCall], where: str) -> None:
    # Metrics read calls in list order; a step out of order means the list was reshuffled.
    for index in range(1, len(calls)):
        if calls[index].step <= calls[index - 1].step:
            raise _error(
                f"{where}, tool_calls[{index}]",
                "step",
                f"{calls[index].step} does not follow the previous step {calls[index - 1].step}",
            )


def _error(where: str, field: str, problem: str) -> ReleaseFormatError:
    return ReleaseFormatError(f"{where}: field '{field}' {problem}")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else f"a {type(value).__name__}"
    )


def _require_object(record: Any, where: str) -> None:
    if not isinstance(record, dict):
        raise ReleaseFormatError(f"{where}: expected an object, got {_kind(record)}")


def _required(record: dict, field: str, where: str) -> Any:
    if field not in record:
        raise _error(where, field, "is missing")
    return record[field]


def _text(record: dict, field: str, where: str) -> str:
    value = _required(record, field, where)
    if not isinstance(value, str) or not value.strip():
        raise _error(where, field, f"must be a non-empty string, got {_kind(value)}")
    return value


def _optional_text(record: dict, field: str, where: str) -> str:
    value = record.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _error(where, field, f"must be a string or null, got {_kind(value)}")
    return value


def _list(record: dict, field: str, where: str) -> list:
    value = _required(record, field, where)
    if not isinstance(value, list):
        raise _error(where, field, f"must be an array, got {_kind(value)}")
    return value


def _object(record: dict, field: str, where: str) -> dict:
    value = _required(record, field, where)
    if not isinstance(value, dict):
        raise _error(where, field, f"must be an object, got {_kind(value)}")
    return value


def _optional_object(record: dict, field: str, where: str) -> dict | None:
    value = record.get(field)
    if value is not None and not isinstance(value, dict):
        raise _error(where, field, f"must be an object or null, got {_kind(value)}")
    return value


def _integer(record: dict, field: str, where: str, *, minimum: int) -> int:
    value = _required(record, field, where)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _error(where, field, f"must be an integer >= {minimum}, got {value!r}")
    return value


def _optional_number(record: dict, field: str, where: str, *, integer: bool = False):
    value = record.get(field)
    if value is None:
        return None
    allowed = int if integer else int | float
    if isinstance(value, bool) or not isinstance(value, allowed) or value < 0:
        kind = "an integer" if integer else "a number"
        raise _error(where, field, f"must be {kind} >= 0 or null, got {value!r}")
    return value
