"""The seed paper's release format (DESIGN §8), parsed and validated into plain data.

A release is a JSON array of cells:

    {task_id, task, category, difficulty, model, metrics, traces: [
        {task_id, model, run_index, tool_calls: [{step, tool_name, arguments, result,
         timestamp}], final_response, total_tokens, latency_ms, error}]}

(the golden file adds `expected`). Parsing is all or nothing: the first bad value raises a
`ReleaseFormatError` naming the cell, trace, call and field, so an import never keeps half a
file. Each cell is checked by the pydantic models below, with the bounds of the columns its
values go to (`interchange.schema`); then the checks across records: a trace names its own
cell's task, run indexes are unique within a cell, steps increase within a trace, a (task_id,
model) pair appears once. Keys the format does not name are ignored; `task`, `metrics`,
`expected` and the per-run numbers are optional because published files omit them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field, TypeAdapter, ValidationError

from patientagentbench.analysis.metrics import TraceData
from patientagentbench.interchange.schema import (
    CATEGORY_MAX,
    COUNT_MAX,
    DIFFICULTY_MAX,
    MODEL_NAME_MAX,
    REPETITION_MAX,
    TASK_ID_MAX,
    Count,
    Duration,
    FormatError,
    Place,
    Repetition,
    Strict,
    first_problem,
    name_of,
    nested_place,
    scan,
    text_of,
)


class ReleaseFormatError(FormatError):
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


# --- the schema ------------------------------------------------------------------------------


class _CallIn(Strict):
    step: int = Field(ge=0, description="an integer >= 0")
    tool_name: name_of(None) = Field(description="a non-empty string")
    arguments: dict[str, Any] = Field(description="an object")
    result: Any = None
    timestamp: Duration | None = Field(None, description="a number >= 0 or null")


class _TraceIn(Strict):
    # A trace that names its cell's task must name this one (checked below).
    task_id: str | None = Field(None, description="a string or null")
    # The paper's runner writes the provider id into traces but the model key into failed
    # runs; the cell's model is the key, the provider id is kept beside it.
    model: str | None = Field(None, description="a string or null")
    run_index: Repetition = Field(description=f"an integer from 0 to {REPETITION_MAX}")
    tool_calls: list[_CallIn] = Field(description="an array")
    final_response: str | None = Field(None, description="a string or null")
    total_tokens: Count | None = Field(
        None, description=f"an integer from 0 to {COUNT_MAX} or null"
    )
    latency_ms: Duration | None = Field(None, description="a number >= 0 or null")
    error: str | None = Field(None, description="a string or null")


class _CellIn(Strict):
    task_id: name_of(TASK_ID_MAX) = Field(
        description=f"a string (non-empty, at most {TASK_ID_MAX} characters)"
    )
    model: name_of(MODEL_NAME_MAX) = Field(
        description=f"a string (non-empty, at most {MODEL_NAME_MAX} characters)"
    )
    traces: list[_TraceIn] = Field(description="an array")
    task: str | None = Field(None, description="a string or null")
    category: text_of(CATEGORY_MAX) | None = Field(
        None, description=f"a string of at most {CATEGORY_MAX} characters or null"
    )
    difficulty: text_of(DIFFICULTY_MAX) | None = Field(
        None, description=f"a string of at most {DIFFICULTY_MAX} characters or null"
    )
    metrics: dict[str, Any] | None = Field(None, description="an object or null")
    expected: dict[str, Any] | None = Field(None, description="an object or null")


_RELEASE = list[_CellIn]
_ADAPTER = TypeAdapter(_RELEASE)


# --- parsing ---------------------------------------------------------------------------------


def parse_release_cells(data: Any) -> list[Cell]:
    """Every cell of a release, or a `ReleaseFormatError` for the first bad value."""
    if not isinstance(data, list):
        raise ReleaseFormatError(f"release: expected a JSON array of cells, got {_kind(data)}")
    place = _place(data)
    if problem := scan(data):
        raise ReleaseFormatError(place.line(problem))
    try:
        validated = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ReleaseFormatError(place.line(first_problem(exc, _RELEASE))) from None
    cells = [_cell(record, f"cell {index}") for index, record in enumerate(validated)]
    _reject_duplicate_cells(cells)
    return cells


def _cell(record: _CellIn, where: str) -> Cell:
    where = f"{where} ({record.task_id} / {record.model})"
    traces = [
        _trace(trace, f"{where}, trace {index}", record.task_id)
        for index, trace in enumerate(record.traces)
    ]
    _reject_duplicate_runs(traces, where)
    return Cell(
        task_id=record.task_id,
        model=record.model,
        traces=traces,
        task=record.task or "",
        category=record.category or "",
        difficulty=record.difficulty or "",
        metrics=record.metrics,
        expected=record.expected,
    )


def _trace(record: _TraceIn, where: str, task_id: str) -> ReleaseTrace:
    # A trace that names its cell's task must name this one: catches files merged by hand.
    if record.task_id is not None and record.task_id != task_id:
        raise _error(where, "task_id", f"is {record.task_id!r} but the cell's is {task_id!r}")
    trace = ReleaseTrace(
        run_index=record.run_index,
        tool_calls=[
            ReleaseToolCall(
                step=call.step,
                tool_name=call.tool_name,
                arguments=call.arguments,
                result=call.result,
                timestamp=call.timestamp,
            )
            for call in record.tool_calls
        ],
        final_response=record.final_response or "",
        total_tokens=record.total_tokens,
        latency_ms=record.latency_ms,
        # An empty error string is the same as no error.
        error=record.error or None,
        provider_model=record.model or "",
    )
    _reject_unordered_steps(trace.tool_calls, where)
    return trace


def _place(data: list) -> Place:
    """Problems inside a cell are placed "cell 2 (retrieve-001 / m), trace 1, tool_calls[0]"."""
    return nested_place(
        data,
        outer="cell",
        label=_label,
        inner_key="traces",
        inner="trace",
        nothing="release",
        colon=False,
    )


def _label(cell: Any) -> str:
    """ " (task / model)" once both are sound, so a message never quotes a bad value."""
    if not isinstance(cell, dict):
        return ""
    task_id, model = cell.get("task_id"), cell.get("model")
    sound = all(
        isinstance(value, str) and value.strip() and len(value) <= limit
        for value, limit in ((task_id, TASK_ID_MAX), (model, MODEL_NAME_MAX))
    )
    return f" ({task_id} / {model})" if sound else ""


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
