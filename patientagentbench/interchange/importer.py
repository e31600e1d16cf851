"""Import traces: the seed paper's release format, PatientAgentBench conversations and the
project's JSONL.

Imports are validated in full before anything is written and then written in one
transaction: an error is one line naming the record and the field, and leaves the database
untouched. Every value is checked by the formats' pydantic models against the bounds of the
columns it goes to (`interchange.schema`); files are read as strict UTF-8 JSON (no NaN or
Infinity, bounded nesting). A file is imported once: its SHA-256 is kept on the run, and the
same bytes again are refused unless asked for (`again=True`, `import_traces --again`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from patientagentbench.cases.validation import validate_case
from patientagentbench.conversation import EndReason, agent_calls
from patientagentbench.interchange.inspect_log import (
    InspectFormatError,
    inspect_lines,
    looks_like_inspect,
)
from patientagentbench.interchange.jsonl import (
    JSONL_FORMAT,
    JsonlFormatError,
    Line,
    Progress,
    no_progress,
)
from patientagentbench.interchange.jsonl import parse_jsonl as parse_jsonl_lines
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
from patientagentbench.interchange.schema import (
    RUN_LABEL_MAX,
    SUITE_NAME_MAX,
    FormatError,
    JsonTextError,
    decode,
    load,
)
from patientagentbench.interchange.zip_bounds import MB, ZipBounds
from patientagentbench.models import Run, Suite, Task, Trace
from patientagentbench.providers.types import Message, ToolCall
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.results.scoring import score_trace
from patientagentbench.runs.limits import MAX_JOBS

__all__ = [
    "FORMAT_NAMES",
    "JSONL_FORMAT",
    "AlreadyImported",
    "ImportFormatError",
    "import_bytes",
    "import_traces",
    "parse_bytes",
    "preview_import",
    "preview_records",
    "read_file",
    "refuse_second_import",
    "write_records",
]

# Zip members beyond one per trace: Inspect's header, summaries, reductions and journal.
ZIP_MEMBERS_BESIDE_SAMPLES = 1000

# What `parse_bytes` recognised, in a person's words.
FORMAT_NAMES = {
    "release": "the seed paper's release JSON",
    "patientagentbench": "PatientAgentBench conversations (LangChain message dumps)",
    "jsonl": "PatientAgentBench trace JSONL (export_traces)",
    "inspect": "an Inspect AI log",
}


class ImportFormatError(FormatError):
    """Bad input, with the record and field it concerns, in one line."""


class AlreadyImported(ImportFormatError):
    """The same bytes are already a run (import them again with `again=True`)."""


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
    warnings: list = field(default_factory=list)
    patient_rejected_attempts: list = field(default_factory=list)
    # A verdict the export carried (the project's JSONL); None means "score on import".
    correctness: dict | None = None
    correct: bool | None = None
    # Where the record is in its file ("line 3", "cell 2 (retrieve-001 / m), trace 1"), and
    # whether its format words errors "line 3, field 'x': ..." (colon) or "...: field 'x' ...".
    where: str = ""
    colon: bool = True

    def field_error(self, name: str, problem: str) -> ImportFormatError:
        if self.colon:
            return ImportFormatError(f"{self.where}, field '{name}': {problem}")
        return ImportFormatError(f"{self.where}: field '{name}' {problem}")


@dataclass
class ImportSummary:
    run: Run
    suite: Suite
    traces: int
    cells: int
    errors: int
    new_tasks: int
    kind: str = ""  # FORMAT_NAMES key
    models: list[str] = field(default_factory=list)
    tasks: int = 0
    new_suite: bool = False
    scored: int = 0  # traces with a verdict (outcome checks or the file's own)
    sha256: str = ""
    preview: bool = False  # computed and rolled back: nothing was written


# --- reading -------------------------------------------------------------------------------


def read_file(path: Path) -> tuple[str, list[ImportedTrace]]:
    return parse_bytes(path.read_bytes())


def parse_bytes(raw: bytes, progress: Progress = no_progress) -> tuple[str, list[ImportedTrace]]:
    """The format ("release", "patientagentbench", "jsonl" or "inspect") and the records of a
    file; `progress` is told (records read, records in the file) as they are read."""
    if looks_like_inspect(raw):
        try:
            lines = inspect_lines(raw, zip_bounds(), progress)
            return "inspect", [_jsonl_record(line) for line in lines]
        except (InspectFormatError, JsonlFormatError) as exc:
            raise ImportFormatError(str(exc)) from None
    try:
        text = decode(raw)
        if not text.lstrip().startswith("["):
            return "jsonl", parse_jsonl(text, progress)
        data = load(text)
    except JsonTextError as exc:
        raise ImportFormatError(str(exc)) from None
    del text  # the parsed data holds the strings: the decoded file is garbage now
    if looks_like_patientagentbench(data):
        kind, records = "patientagentbench", parse_patientagentbench(data)
    else:
        kind, records = "release", parse_release(data)
    progress(len(records), len(records))  # read whole by one json.loads: no count before
    return kind, records


def zip_bounds() -> ZipBounds:
    """What a zip may hold, the same for the web import and `import_traces`: a run's most
    traces as members, and the unpacked sizes the settings allow."""
    return ZipBounds(
        total_bytes=settings.IMPORT_MAX_UNPACKED_MB * MB,
        member_bytes=settings.IMPORT_MAX_MEMBER_MB * MB,
        members=MAX_JOBS + ZIP_MEMBERS_BESIDE_SAMPLES,
        setting_total="PAB_IMPORT_MAX_UNPACKED_MB",
        setting_member="PAB_IMPORT_MAX_MEMBER_MB",
    )


def parse_patientagentbench(data: list) -> list[ImportedTrace]:
    try:
        conversations = parse_conversations(data)
    except LangChainFormatError as exc:
        raise ImportFormatError(str(exc)) from exc
    records = []
    for index, conversation in enumerate(conversations):
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
                where=f"conversation {index} ({conversation['case_id']})",
            )
        )
    if not records:
        raise ImportFormatError("the file holds no conversations")
    return records


def parse_jsonl(text: str, progress: Progress = no_progress) -> list[ImportedTrace]:
    try:
        lines = parse_jsonl_lines(text, progress)
    except JsonlFormatError as exc:
        raise ImportFormatError(str(exc)) from None
    return [_jsonl_record(line) for line in lines]


def _jsonl_record(line: Line) -> ImportedTrace:
    record = line.record
    correctness = line.correctness
    return ImportedTrace(
        task_id=record.task_id,
        model=record.model,
        suite=record.suite or "",
        category=record.category or "",
        difficulty=record.difficulty or "",
        prompt=record.prompt or "",
        temperature=record.temperature,
        repetition=record.repetition or 0,
        status=record.status or Trace.Status.DONE,
        end_reason=record.end_reason or "",
        error=record.error or "",
        messages=line.messages,
        tool_calls=line.tool_calls,
        final_response=record.final_response or "",
        side_effects=record.side_effects or [],
        final_state=record.final_state or {},
        tokens_in=record.tokens_in or 0,
        tokens_out=record.tokens_out or 0,
        latency_ms=float(record.latency_ms or 0),
        cost=line.cost,
        attributes=record.attributes or {},
        case=record.case or None,
        suite_world=record.suite_world or "",
        warnings=record.warnings or [],
        patient_rejected_attempts=record.patient_rejected_attempts or [],
        correctness=correctness,
        correct=record.correct if correctness is not None else None,
        where=line.where,
    )


def parse_release(data) -> list[ImportedTrace]:
    """The seed paper's release: cells with their traces, through the one strict parser the
    golden tests use too."""
    try:
        cells = parse_release_cells(data)
    except ReleaseFormatError as exc:
        raise ImportFormatError(str(exc)) from exc
    records = [
        _release_trace(trace, cell, f"cell {index} ({cell.task_id} / {cell.model}), trace {number}")
        for index, cell in enumerate(cells)
        for number, trace in enumerate(cell.traces)
    ]
    if not records:
        raise ImportFormatError("the file holds no traces")
    return records


def _release_trace(trace: ReleaseTrace, cell: Cell, where: str) -> ImportedTrace:
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
        where=where,
        colon=False,
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


# --- writing -------------------------------------------------------------------------------


def import_traces(path: Path, *, again: bool = False) -> ImportSummary:
    """Import a file as one finished run, or raise `ImportFormatError` having written nothing.
    The same bytes imported before raise `AlreadyImported` unless `again`."""
    return import_bytes(path.read_bytes(), path.name, again=again)


def preview_import(raw: bytes, name: str, *, again: bool = False) -> ImportSummary:
    """What `import_bytes` would create, written nowhere."""
    kind, records = parse_bytes(raw)
    return preview_records(kind, records, digest=sha256_of(raw), name=name, again=again)


def preview_records(
    kind: str, records: list[ImportedTrace], *, digest: str, name: str, again: bool = False
) -> ImportSummary:
    """What `write_records` would create, computed by the import itself and rolled back, so a
    preview can never promise what the import then does differently."""
    try:
        with transaction.atomic():
            summary = write_records(kind, records, digest=digest, name=name, again=again)
            raise _RolledBack(summary)
    except _RolledBack as rolled_back:
        return replace(rolled_back.summary, preview=True)


def import_bytes(raw: bytes, name: str, *, again: bool = False, created_by=None) -> ImportSummary:
    """Import a file's bytes (`name` labels the run and names an imported suite)."""
    kind, records = parse_bytes(raw)
    return write_records(
        kind, records, digest=sha256_of(raw), name=name, again=again, created_by=created_by
    )


def write_records(
    kind: str,
    records: list[ImportedTrace],
    *,
    digest: str,
    name: str,
    again: bool = False,
    created_by=None,
) -> ImportSummary:
    """The parsed records of a file as one finished run, in one transaction: all or nothing."""
    with transaction.atomic():
        if not again:
            refuse_second_import(digest)
        suite_count = Suite.objects.count()
        suite, tasks, new_tasks = _resolve_tasks(records, Path(name))
        temperatures = sorted({r.temperature for r in records if r.temperature is not None})
        run = Run.objects.create(
            suite=suite,
            source=Run.Source.IMPORTED,
            label=name[:RUN_LABEL_MAX],
            status=Run.Status.FINISHED,
            repetitions=max(r.repetition for r in records) + 1,
            temperatures=temperatures,
            source_sha256=digest,
            created_by=created_by,
        )
        traces = [_trace(run, tasks[r.task_id], r, i) for i, r in enumerate(records)]
        for trace, record in zip(traces, records, strict=True):
            if record.correctness is not None:
                trace.correctness, trace.correct = record.correctness, record.correct
            elif trace.status == Trace.Status.DONE:
                _score(trace, record)
        Trace.objects.bulk_create(traces)
        cells = recompute_run_metrics(run.pk)
        new_suite = Suite.objects.count() > suite_count
    return ImportSummary(
        run=run,
        suite=suite,
        traces=len(traces),
        cells=len(cells),
        errors=sum(1 for t in traces if t.status == Trace.Status.ERROR),
        new_tasks=new_tasks,
        kind=kind,
        models=sorted({r.model for r in records}),
        tasks=len(tasks),
        new_suite=new_suite,
        scored=sum(1 for t in traces if t.correct is not None),
        sha256=digest,
    )


def sha256_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


class _RolledBack(Exception):
    def __init__(self, summary: ImportSummary):
        self.summary = summary


def refuse_second_import(digest: str) -> None:
    earlier = Run.objects.filter(source_sha256=digest).order_by("pk").first()
    if earlier is not None:
        raise AlreadyImported(
            f"the same file (SHA-256 {digest[:12]}…) is already run {earlier.pk} "
            f"({earlier.label or 'no label'}, imported {earlier.created_at:%Y-%m-%d %H:%M}); "
            "import it again only if you mean to have it twice (--again)"
        )


def _score(trace: Trace, record: ImportedTrace) -> None:
    """Score a trace the file gave no verdict for. A scenario's outcome checks read the
    clinic's final state and side effects, whose inner shape the schema leaves open; a
    record whose state those checks cannot read is refused, not stored half-scored."""
    try:
        score_trace(trace)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        raise record.field_error(
            "final_state",
            f"cannot be checked against task {record.task_id!r}: the state, side effects or "
            f"tool calls lack what the task's checks read ({type(exc).__name__}: {exc})",
        ) from None


def _resolve_tasks(records, path: Path) -> tuple[Suite, dict[str, Task], int]:
    """Use an installed suite when it holds every task. A file some of whose tasks are in an
    installed suite and some not is refused (naming the first stray record): it is most
    likely a typo or files merged by hand, and splitting it off into a suite of its own would
    hide that. Otherwise keep the traces under an imported suite: the one the records name
    (an export from another database keeps its suite's name and world), else one named after
    the file, so any published trace set can be analysed."""
    wanted = {r.task_id for r in records}
    named = {r.suite for r in records if r.suite}
    candidates = Suite.objects.exclude(kind=Suite.Kind.IMPORTED)
    if named:
        candidates = candidates.filter(name__in=named)
    best, best_tasks = None, {}
    for suite in candidates:
        tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=wanted)}
        if len(tasks) == len(wanted):
            return suite, tasks, 0
        if len(tasks) > len(best_tasks):
            best, best_tasks = suite, tasks
    if best is not None:
        stray = next(r for r in records if r.task_id not in best_tasks)
        raise stray.field_error(
            "task_id",
            f"{stray.task_id!r} is not a task of suite {best.name!r}, which holds "
            f"{len(best_tasks)} of the file's {len(wanted)} task ids",
        )
    worlds = {r.suite_world for r in records if r.suite_world}
    suite, _ = Suite.objects.get_or_create(
        name=(slugify(next(iter(named))) if len(named) == 1 else slugify(path.stem))[
            :SUITE_NAME_MAX
        ]
        or "imported",
        defaults={
            "kind": Suite.Kind.IMPORTED,
            "world": next(iter(worlds)) if len(worlds) == 1 else "",
            "source": f"Imported from {path.name}",
        },
    )
    if suite.kind != Suite.Kind.IMPORTED:
        raise records[0].field_error(
            "task_id",
            f"the file's tasks are not all in suite {suite.name!r}, whose name the file shares",
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
            case=_case(r, suite),
        )
        for task_id, r in first.items()
        if task_id not in tasks
    ]
    for task in Task.objects.bulk_create(new):
        tasks[task.task_id] = task
    if len(tasks) != len(wanted):  # bulk_create may not return pks on every backend
        tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=wanted)}
    return suite, tasks, len(new)


def _case(record: ImportedTrace, suite: Suite) -> dict | None:
    """A clinic suite's cases drive its outcome checks and review pages: they must be cases."""
    if record.case is not None and suite.has_patients:
        problems = validate_case(record.case)
        if problems:
            raise record.field_error("case", f"is not a valid case: {problems[0]}")
    return record.case


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
        warnings=record.warnings,
        patient_rejected_attempts=record.patient_rejected_attempts,
    )
