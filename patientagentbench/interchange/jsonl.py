"""The project's trace JSONL (what `export_traces` writes), read and validated (pure).

One JSON object per line, checked by the pydantic models below with the bounds of the columns
its values go to (`interchange.schema`). `parse_jsonl` returns the validated records with
their line; the first bad value raises `JsonlFormatError` naming the line and the field
("line 3, field 'cost': must be ..."). Messages, side effects and verdicts are kept as they
came (validated, not rewritten), so an export imports back unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from patientagentbench.interchange.schema import (
    CATEGORY_MAX,
    COUNT_MAX,
    DIFFICULTY_MAX,
    END_REASON_MAX,
    FINISHED_STATUSES,
    MODEL_NAME_MAX,
    MONEY,
    REPETITION_MAX,
    ROLES,
    SUITE_NAME_MAX,
    TASK_ID_MAX,
    TEMPERATURE_MAX,
    WORLDS,
    Count,
    Duration,
    FormatError,
    JsonTextError,
    Money,
    Place,
    Repetition,
    Strict,
    Temperature,
    first_problem,
    generic_records,
    load,
    name_of,
    rule,
    scan,
    text_of,
)

JSONL_FORMAT = "patientagentbench.trace/1"


class JsonlFormatError(FormatError):
    """A bad line; the message names the line and the field."""


# --- the schema ------------------------------------------------------------------------------


class MessageCall(Strict):
    """A tool call inside a message (`providers.types.ToolCall`)."""

    id: str | None = Field(None, description="a string or null")
    name: name_of(None) = Field(description="a non-empty string")
    raw_arguments: str | None = Field(None, description="a string or null")
    arguments: dict[str, Any] | None = Field(None, description="an object or null")
    provider_id: str | None = Field(None, description="a string or null")
    malformed: bool | None = Field(None, description="true, false or null")


class MessageRecord(Strict):
    """One message of the provider-neutral log (`providers.types.Message`)."""

    role: Literal[ROLES] = Field(description=f"one of {', '.join(ROLES)}")
    content: str | None = Field(None, description="a string or null")
    tool_calls: list[MessageCall] | None = Field(None, description="an array or null")
    tool_call_id: str | None = Field(None, description="a string or null")
    tool_name: str | None = Field(None, description="a string or null")
    status: str | None = Field(None, description="a string or null")
    thinking: str | None = Field(None, description="a string or null")
    raw: dict[str, Any] | None = Field(None, description="an object or null")


class CallRecord(Strict):
    """One of the trace's tool calls, as `conversation.agent_calls` lists them."""

    id: str | None = Field(None, description="a string or null")
    name: name_of(None) = Field(description="a non-empty string")
    malformed: bool | None = Field(None, description="true, false or null")
    arguments: dict[str, Any] | None = Field(None, description="an object or null")
    raw_arguments: str | None = Field(None, description="a string or null")
    status: str | None = Field(None, description="a string or null")
    result: str | None = Field(None, description="a string or null")

    @model_validator(mode="after")
    def _arguments_unless_malformed(self) -> CallRecord:
        if self.arguments is None and not self.malformed:
            raise rule("arguments", "must be an object unless the call is marked malformed")
        return self


class CheckRecord(Strict):
    name: name_of(None) = Field(description="a non-empty string")
    passed: bool = Field(description="true or false")
    detail: str | None = Field(None, description="a string or null")


class CorrectnessRecord(Strict):
    """A stored verdict (`analysis.correctness.Verdict.as_dict` or a scenario's)."""

    passed: bool | None = Field(None, description="true, false or null")
    checks: list[CheckRecord] | None = Field(None, description="an array of checks or null")


_OPTIONAL = " or null"


class TraceRecord(Strict):
    format: Literal[JSONL_FORMAT] | None = Field(
        None, description=f"{JSONL_FORMAT!r}, null or missing"
    )
    task_id: name_of(TASK_ID_MAX) = Field(
        description=f"a string (non-empty, at most {TASK_ID_MAX} characters)"
    )
    model: name_of(MODEL_NAME_MAX) = Field(
        description=f"a string (non-empty, at most {MODEL_NAME_MAX} characters)"
    )
    suite: text_of(SUITE_NAME_MAX) | None = Field(
        None, description=f"a string of at most {SUITE_NAME_MAX} characters{_OPTIONAL}"
    )
    suite_world: Literal["", *WORLDS] | None = Field(
        None, description=f"one of {', '.join(WORLDS)}, empty{_OPTIONAL}"
    )
    category: text_of(CATEGORY_MAX) | None = Field(
        None, description=f"a string of at most {CATEGORY_MAX} characters{_OPTIONAL}"
    )
    difficulty: text_of(DIFFICULTY_MAX) | None = Field(
        None, description=f"a string of at most {DIFFICULTY_MAX} characters{_OPTIONAL}"
    )
    prompt: str | None = Field(None, description=f"a string{_OPTIONAL}")
    temperature: Temperature | None = Field(
        None, description=f"a number from 0 to {TEMPERATURE_MAX}{_OPTIONAL}"
    )
    repetition: Repetition | None = Field(
        None, description=f"an integer from 0 to {REPETITION_MAX}{_OPTIONAL}"
    )
    status: Literal[FINISHED_STATUSES] | None = Field(
        None,
        description=f"one of {', '.join(FINISHED_STATUSES)} (a finished trace){_OPTIONAL}",
    )
    end_reason: text_of(END_REASON_MAX) | None = Field(
        None, description=f"a string of at most {END_REASON_MAX} characters{_OPTIONAL}"
    )
    error: str | None = Field(None, description=f"a string{_OPTIONAL}")
    messages: list[MessageRecord] | None = Field(
        None, description=f"an array of messages{_OPTIONAL}"
    )
    tool_calls: list[CallRecord] = Field(description="an array of tool calls")
    final_response: str | None = Field(None, description=f"a string{_OPTIONAL}")
    side_effects: list[dict[str, Any]] | None = Field(
        None, description=f"an array of objects{_OPTIONAL}"
    )
    final_state: dict[str, Any] | None = Field(None, description=f"an object{_OPTIONAL}")
    tokens_in: Count | None = Field(None, description=f"an integer from 0 to {COUNT_MAX}")
    tokens_out: Count | None = Field(None, description=f"an integer from 0 to {COUNT_MAX}")
    latency_ms: Duration | None = Field(None, description=f"a number >= 0{_OPTIONAL}")
    cost: Money | None = Field(None, description=MONEY)
    correct: bool | None = Field(None, description=f"true, false{_OPTIONAL}")
    correctness: CorrectnessRecord | None = Field(None, description=f"an object{_OPTIONAL}")
    attributes: dict[str, Any] | None = Field(None, description=f"an object{_OPTIONAL}")
    case: dict[str, Any] | None = Field(None, description=f"an object{_OPTIONAL}")
    # What the researcher's trace page shows beside the conversation (never clinicians).
    warnings: list[dict[str, Any]] | None = Field(
        None, description=f"an array of objects{_OPTIONAL}"
    )
    patient_rejected_attempts: list[dict[str, Any]] | None = Field(
        None, description=f"an array of objects{_OPTIONAL}"
    )


# --- parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    where: str  # "line 3"
    record: TraceRecord  # the validated values
    data: dict[str, Any]  # the same record as read, for what is stored as it came

    @property
    def messages(self) -> list[dict]:
        """The messages as they came (key order too); a message without content gets an
        empty one, which every reader of a stored message may rely on."""
        return [
            message if "content" in message else {**message, "content": ""}
            for message in self.data.get("messages") or ()
        ]

    @property
    def tool_calls(self) -> list[dict]:
        return [_call(call) for call in self.record.tool_calls]

    @property
    def correctness(self) -> dict | None:
        """The verdict the export carried, or None (then the importer scores the trace)."""
        return self.data.get("correctness") or None

    @property
    def cost(self) -> Decimal:
        return self.record.cost if self.record.cost is not None else Decimal(0)


def _call(call: CallRecord) -> dict:
    return {
        "id": call.id or "",
        "name": call.name,
        "arguments": call.arguments,
        "raw_arguments": call.raw_arguments or json.dumps(call.arguments),
        "malformed": bool(call.malformed),
        "status": call.status or "",
        "result": call.result or "",
    }


# Told (records read, records in the file) as a file is read: a background import's progress.
Progress = Callable[[int, int], None]


def no_progress(read: int, total: int) -> None:
    pass


def parse_jsonl(text: str, progress: Progress = no_progress) -> list[Line]:
    """Every record, or a `JsonlFormatError` for the first bad line. Lines are split at "\\n"
    only: a JSON string may hold U+2028 or U+0085 unescaped (the export writes them so)."""
    lines = []
    split = text.split("\n")
    total = sum(1 for line in split if line.strip())
    for line_no, line in enumerate(split, start=1):
        if not line.strip():
            continue
        try:
            data = load(line, single_line=True)
        except JsonTextError as exc:
            raise JsonlFormatError(f"line {line_no}: {exc}") from None
        lines.append(validate_record(data, f"line {line_no}"))
        progress(len(lines), total)
    if not lines:
        raise JsonlFormatError("the file holds no traces")
    return lines


def validate_record(data: Any, where: str) -> Line:
    """One record against the schema; `where` ("line 3", "sample s1, epoch 2") begins the
    error. Other formats that map onto this one (Inspect logs) check through it too."""
    place = Place(generic_records, prefix=where)
    if problem := scan(data):
        raise JsonlFormatError(place.line(problem))
    try:
        record = TraceRecord.model_validate(data)
    except ValidationError as exc:
        raise JsonlFormatError(place.line(first_problem(exc, TraceRecord))) from None
    return Line(where, record, data)
