"""Import traces: the seed paper's release format, PatientAgentBench conversations and the
project's JSONL.

Imports are validated in full before anything is written and then written in one
transaction: an error names the record and the field, and leaves the database untouched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.db import transaction
from django.utils.text import slugify

from patientagentbench.conversation import EndReason, agent_calls
from patientagentbench.interchange.langchain import (
    LangChainFormatError,
    looks_like_patientagentbench,
    parse_conversations,
)
from patientagentbench.interchange.release import (
    Cell,
    ReleaseFormatError,
    ReleaseTrace,
    parse_release_cells,
)
from patientagentbench.models import Run, Suite, Task, Trace
from patientagentbench.providers.types import Message, ToolCall
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.results.scoring import score_trace

JSONL_FORMAT = "patientagentbench.trace/1"


class ImportFormatError(ValueError):
    """Bad input, with the record and field it concerns."""


@dataclass
class ImportedTrace:
    task_id: str
    model: str
    suite: str = ""
    category: str = ""
    difficulty: str = ""
    prompt: str = ""
    temperature: float | None = None
    repetition: int = 0
    status: str = Trace.Status.DONE
    end_reason: str = ""
    error: str = ""
    messages: list = field(default_factory=list)
    tool_calls: list = field(default_factory=list)
    final_response: str = ""
    side_effects: list = field(default_factory=list)
    final_state: dict = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    cost: Decimal = Decimal(0)
    attributes: dict = field(default_factory=dict)
    case: dict | None = None
    suite_world: str = ""
    # A verdict the export carried (the project's JSONL); None means "score on import".
    correctness: dict | None = None
    correct: bool | None = None


@dataclass
class ImportSummary:
    run: Run
    suite: Suite
    traces: int
    cells: int
    errors: int
    new_tasks: int


# --- reading -------------------------------------------------------------------------------


def read_file(path: Path) -> tuple[str, list[ImportedTrace]]:
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"{path.name}: not valid JSON ({exc})") from exc
        if looks_like_patientagentbench(data):
            return "patientagentbench", parse_patientagentbench(data)
        return "release", parse_release(data)
    return "jsonl", parse_jsonl(text)


def parse_patientagentbench(data: list) -> list[ImportedTrace]:
    try:
        conversations = parse_conversations(data)
    except LangChainFormatError as exc:
        raise ImportFormatError(str(exc)) from exc
    records = []
    for conversation in conversations:
        messages = conversation["messages"]
        opening = next((m.content for m in messages if m.role == "user"), "")
        agent_texts = [m.content for m in messages if m.role == "assistant" and m.content]
        tokens_in, tokens_out = conversation["tokens"]
        records.append(
            ImportedTrace(
                task_id=conversation["case_id"],
                model=conversation["model"],
                category=conversation["attributes"]["category"],
                difficulty=conversation["attributes"]["complexity"],
                prompt=opening,
                end_reason=EndReason.PATIENT_ENDED if conversation["ended_by_patient"] else "",
                messages=[m.to_dict() for m in messages],
                tool_calls=agent_calls(messages),
                final_response=agent_texts[-1] if agent_texts else "",
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                attributes=conversation["attributes"],
                case=conversation["case"],
            )
        )
    if not records:
        raise ImportFormatError("the file holds no conversations")
    return records


def parse_jsonl(text: str) -> list[ImportedTrace]:
    records = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"{where}: not valid JSON ({exc.msg})") from exc
        records.append(_jsonl_record(record, where))
    if not records:
        raise ImportFormatError("the file holds no traces")
    return records


def _jsonl_record(record, where: str) -> ImportedTrace:
    if not isinstance(record, dict):
        raise ImportFormatError(f"{where}: a record must be a JSON object")
    if record.get("format") not in (None, JSONL_FORMAT):
        raise ImportFormatError(f"{where}, field 'format': expected {JSONL_FORMAT!r}")
    get = _Getter(record, where)
    calls = [
        _call(c, f"{where}, field 'tool_calls[{i}]'") for i, c in enumerate(get.list("tool_calls"))
    ]
    messages = get.list("messages", required=False)
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message:
            raise ImportFormatError(f"{where}, field 'messages[{i}]': needs a 'role'")
    correctness = get.dict("correctness") or None
    correct = record.get("correct")
    if correct is not None and not isinstance(correct, bool):
        raise ImportFormatError(f"{where}, field 'correct': must be true, false or null")
    if correctness is not None and not isinstance(correctness.get("checks", []), list):
        raise ImportFormatError(f"{where}, field 'correctness.checks': must be a list")
    world = get.str("suite_world", required=False)
    if world and world not in Suite.World.values:
        raise ImportFormatError(
            f"{where}, field 'suite_world': one of {', '.join(Suite.World.values)}"
        )
    status = get.str("status", required=False) or Trace.Status.DONE
    if status not in Trace.Status.values:
        raise ImportFormatError(f"{where}, field 'status': one of {', '.join(Trace.Status.values)}")
    return ImportedTrace(
        task_id=get.str("task_id"),
        model=get.str("model"),
        suite=get.str("suite", required=False),
        category=get.str("category", required=False),
        difficulty=get.str("difficulty", required=False),
        prompt=get.str("prompt", required=False),
        temperature=get.number("temperature"),
        repetition=int(get.number("repetition") or 0),
        status=status,
        end_reason=get.str("end_reason", required=False),
        error=get.str("error", required=False),
        messages=messages,
        tool_calls=calls,
        final_response=get.str("final_response", required=False),
        side_effects=get.list("side_effects", required=False),
        final_state=get.dict("final_state"),
        tokens_in=int(get.number("tokens_in") or 0),
        tokens_out=int(get.number("tokens_out") or 0),
        latency_ms=float(get.number("latency_ms") or 0),
        cost=get.decimal("cost"),
        attributes=get.dict("attributes"),
        case=get.dict("case") or None,
        suite_world=world,
        correctness=correctness,
        correct=correct if correctness is not None else None,
    )


def parse_release(data) -> list[ImportedTrace]:
    """The seed paper's release: cells with their traces, through the one strict parser the
    golden tests use too."""
    try:
        cells = parse_release_cells(data)
    except ReleaseFormatError as exc:
        raise ImportFormatError(str(exc)) from exc
    records = [_release_trace(trace, cell) for cell in cells for trace in cell.traces]
    if not records:
        raise ImportFormatError("the file holds no traces")
    return records


def _release_trace(trace: ReleaseTrace, cell: Cell) -> ImportedTrace:
    calls = [
        {
            "id": f"t{index}",
            "name": call.tool_name,
            "arguments": call.arguments,
            "raw_arguments": json.dumps(call.arguments),
            "malformed": False,
            "status": "ok",
            "result": call.result if isinstance(call.result, str) else json.dumps(call.result),
        }
        for index, call in enumerate(trace.tool_calls, start=1)
    ]
    error = trace.error or ""
    provider_model = trace.provider_model if trace.provider_model != cell.model else ""
    return ImportedTrace(
        task_id=cell.task_id,
        model=cell.model,
        category=cell.category,
        difficulty=cell.difficulty,
        prompt=cell.task,
        repetition=trace.run_index,
        status=Trace.Status.ERROR if error else Trace.Status.DONE,
        end_reason=EndReason.ERROR if error else EndReason.COMPLETED,
        error=error,
        messages=_messages_from_calls(cell.task, calls, trace.final_response),
        tool_calls=calls,
        final_response=trace.final_response,
        tokens_out=trace.total_tokens or 0,
        latency_ms=trace.latency_ms or 0.0,
        attributes={"provider_model": provider_model} if provider_model else {},
    )


def _messages_from_calls(prompt: str, calls: list[dict], final: str) -> list[dict]:
    """Rebuild a readable message log from a release trace (one call per step)."""
    messages = [Message(role="user", content=prompt).to_dict()] if prompt else []
    for call in calls:
        tool_call = ToolCall(
            id=call["id"],
            name=call["name"],
            raw_arguments=call["raw_arguments"],
            arguments=call["arguments"],
        )
        messages.append(Message(role="assistant", tool_calls=[tool_call]).to_dict())
        messages.append(
            Message(
                role="tool",
                content=call["result"],
                tool_call_id=call["id"],
                tool_name=call["name"],
                status="ok",
            ).to_dict()
        )
    if final:
        messages.append(Message(role="assistant", content=final).to_dict())
    return messages


def _call(call, where: str) -> dict:
    if not isinstance(call, dict):
        raise ImportFormatError(f"{where}: must be an object")
    get = _Getter(call, where)
    name = get.str("name")
    arguments = call.get("arguments")
    malformed = bool(call.get("malformed", False))
    if arguments is None and not malformed:
        raise ImportFormatError(f"{where}.arguments: must be an object (or the call malformed)")
    if arguments is not None and not isinstance(arguments, dict):
        raise ImportFormatError(f"{where}.arguments: must be an object")
    return {
        "id": get.str("id", required=False),
        "name": name,
        "arguments": arguments,
        "raw_arguments": get.str("raw_arguments", required=False) or json.dumps(arguments),
        "malformed": malformed,
        "status": get.str("status", required=False),
        "result": get.str("result", required=False),
    }


class _Getter:
    """Typed field access whose errors name the record and the field."""

    def __init__(self, record: dict, where: str):
        self.record, self.where = record, where

    def _fail(self, key: str, expected: str):
        raise ImportFormatError(f"{self.where}, field '{key}': {expected}")

    def str(self, key: str, required: bool = True) -> str:
        value = self.record.get(key)
        if value is None:
            if required:
                self._fail(key, "is required")
            return ""
        if not isinstance(value, str):
            self._fail(key, "must be a string")
        if required and not value.strip():
            self._fail(key, "must not be empty")
        return value

    def list(self, key: str, required: bool = True) -> list:
        value = self.record.get(key)
        if value is None:
            if required:
                self._fail(key, "is required")
            return []
        if not isinstance(value, list):
            self._fail(key, "must be a list")
        return value

    def dict(self, key: str) -> dict:
        value = self.record.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self._fail(key, "must be an object")
        return value

    def number(self, key: str):
        value = self.record.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._fail(key, "must be a number")
        return value

    def decimal(self, key: str) -> Decimal:
        value = self.record.get(key)
        if value is None:
            return Decimal(0)
        try:
            return Decimal(str(value))
        except InvalidOperation:
            self._fail(key, "must be a number")


# --- writing -------------------------------------------------------------------------------


def import_traces(path: Path) -> ImportSummary:
    _kind, records = read_file(path)
    with transaction.atomic():
        suite, tasks, new_tasks = _resolve_tasks(records, path)
        temperatures = sorted({r.temperature for r in records if r.temperature is not None})
        run = Run.objects.create(
            suite=suite,
            source=Run.Source.IMPORTED,
            label=path.name,
            status=Run.Status.FINISHED,
            repetitions=max(r.repetition for r in records) + 1,
            temperatures=temperatures,
        )
        traces = [_trace(run, tasks[r.task_id], r, i) for i, r in enumerate(records)]
        for trace, record in zip(traces, records, strict=True):
            if record.correctness is not None:
                trace.correctness, trace.correct = record.correctness, record.correct
            elif trace.status == Trace.Status.DONE:
                score_trace(trace)
        Trace.objects.bulk_create(traces)
        cells = recompute_run_metrics(run.pk)
    return ImportSummary(
        run=run,
        suite=suite,
        traces=len(traces),
        cells=len(cells),
        errors=sum(1 for t in traces if t.status == Trace.Status.ERROR),
        new_tasks=new_tasks,
    )


def _resolve_tasks(records, path: Path) -> tuple[Suite, dict[str, Task], int]:
    """Use an installed suite when it holds every task; otherwise keep the traces under an
    imported suite: the one the records name (an export from another database keeps its
    suite's name and world), else one named after the file, so any published trace set can
    be analysed."""
    wanted = {r.task_id for r in records}
    named = {r.suite for r in records if r.suite}
    candidates = Suite.objects.exclude(kind=Suite.Kind.IMPORTED)
    if named:
        candidates = candidates.filter(name__in=named)
    for suite in candidates:
        tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=wanted)}
        if len(tasks) == len(wanted):
            return suite, tasks, 0
    worlds = {r.suite_world for r in records if r.suite_world}
    suite, _ = Suite.objects.get_or_create(
        name=(slugify(next(iter(named))) if len(named) == 1 else slugify(path.stem))[:120]
        or "imported",
        defaults={
            "kind": Suite.Kind.IMPORTED,
            "world": next(iter(worlds)) if len(worlds) == 1 else "",
            "source": f"Imported from {path.name}",
        },
    )
    if suite.kind != Suite.Kind.IMPORTED:
        raise ImportFormatError(
            f"the file's tasks are not all in suite {suite.name!r}, whose name the file shares"
        )
    tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=wanted)}
    first = {}
    for record in records:
        first.setdefault(record.task_id, record)
    new = [
        Task(
            suite=suite,
            task_id=task_id,
            category=r.category,
            difficulty=r.difficulty,
            prompt=r.prompt,
            attributes=r.attributes,
            case=r.case,
        )
        for task_id, r in first.items()
        if task_id not in tasks
    ]
    for task in Task.objects.bulk_create(new):
        tasks[task.task_id] = task
    if len(tasks) != len(wanted):  # bulk_create may not return pks on every backend
        tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=wanted)}
    return suite, tasks, len(new)


def _trace(run: Run, task: Task, record: ImportedTrace, index: int) -> Trace:
    return Trace(
        run=run,
        task=task,
        model_name=record.model,
        temperature=record.temperature,
        repetition=record.repetition,
        key=f"import{run.pk}:{index}",
        status=record.status,
        messages=record.messages,
        tool_calls=record.tool_calls,
        final_response=record.final_response,
        end_reason=record.end_reason,
        error=record.error,
        side_effects=record.side_effects,
        final_state=record.final_state,
        tokens_in=record.tokens_in,
        tokens_out=record.tokens_out,
        latency_ms=record.latency_ms,
        cost=record.cost,
    )
