"""Published jury scores in: PatientAgentBench's `evaluations.json` beside its
`conversations.json`, stored as the verdicts of an imported panel (DESIGN §8).

The conversations come in through the pipeline's importer (`import_traces`) unless an
earlier import of the same file already holds every case; the verdicts are then matched to
those traces by case id. Everything happens in one transaction: a format error names the
record and the field, and nothing at all is written.

An imported panel is a row like any other, marked `imported` so it is never asked to score.
Its judges are `<panel>/evaluation_<i>` (the file names no judge model) on one disabled
model config, `IMPORTED_MODEL`, that stands for "a judge we did not run". Their verdicts
carry `verdicts.IMPORTED_VERSION` as rubric and prompt version, since the text they were
given is not ours; the panel aggregates them with our rubric's weights and its own
aggregation, as it does native verdicts. Importing the same file again changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils.text import slugify

from jury.evaluations_import import EvaluationsFormatError, ImportedVerdict, read_evaluations
from jury.models import Judge, Panel, Verdict
from jury.verdicts import IMPORTED_VERSION
from patientagentbench.interchange.importer import ImportFormatError, import_traces
from patientagentbench.models import ModelConfig, Run, Trace

IMPORTED_MODEL = "imported-judges"


class EvaluationsImportError(ValueError):
    """A file that cannot be imported; the message names the record and the field."""


@dataclass(frozen=True)
class EvaluationsImport:
    panel: Panel
    run: Run
    conversations_imported: bool  # False when an earlier import already held them
    verdicts: int  # in the file
    judges: int
    added: int = 0  # verdicts new to the database
    changed: int = 0  # verdicts already there with another score, status or text


def import_evaluations(
    evaluations: Path, conversations: Path, panel_name: str = ""
) -> EvaluationsImport:
    try:
        records = read_evaluations(evaluations, conversations)
    except EvaluationsFormatError as exc:
        raise EvaluationsImportError(str(exc)) from exc
    case_ids = {r.conversation for r in records}
    name = panel_name or f"imported-{slugify(evaluations.stem)}"[:120]
    with transaction.atomic():
        panel = _panel(name)
        run, fresh = _conversations_run(conversations, case_ids)
        traces = _traces_by_case(run, case_ids, conversations.name)
        judges = _judges(panel, sorted({r.judge for r in records}))
        outcomes = [
            _store(panel, judges[record.judge], traces[record.conversation], record)
            for record in records
        ]
    return EvaluationsImport(
        panel,
        run,
        fresh,
        len(records),
        len(judges),
        added=outcomes.count("added"),
        changed=outcomes.count("changed"),
    )


def _panel(name: str) -> Panel:
    panel, _ = Panel.objects.get_or_create(name=name, defaults={"imported": True})
    if not panel.imported:
        raise EvaluationsImportError(
            f"panel {name!r} exists and scores conversations; name another"
        )
    return panel


def _conversations_run(path: Path, case_ids: set[str]) -> tuple[Run, bool]:
    """The latest import of this conversations file that holds every case, else a new one."""
    for run in Run.objects.filter(source=Run.Source.IMPORTED, label=path.name):
        held = set(run.traces.values_list("task__task_id", flat=True))
        if case_ids <= held:
            return run, False
    try:
        return import_traces(path).run, True
    except ImportFormatError as exc:
        raise EvaluationsImportError(f"{path.name}: {exc}") from exc


def _traces_by_case(run: Run, case_ids: set[str], filename: str) -> dict[str, Trace]:
    traces: dict[str, Trace] = {}
    for trace in run.traces.select_related("task").filter(task__task_id__in=case_ids):
        if trace.task.task_id in traces:
            raise EvaluationsImportError(
                f"{filename}: case_id {trace.task.task_id} names two conversations, so its "
                "verdicts could not be matched to one"
            )
        traces[trace.task.task_id] = trace
    missing = sorted(case_ids - set(traces))
    if missing:
        raise EvaluationsImportError(
            f"{filename}: no conversation for case_id {', '.join(missing[:5])}"
        )
    return traces


def _judges(panel: Panel, names: list[str]) -> dict[str, Judge]:
    model, _ = ModelConfig.objects.get_or_create(
        name=IMPORTED_MODEL,
        defaults={
            "provider": ModelConfig.Provider.OPENAI_COMPATIBLE,
            "model_id": "not run here (published scores)",
            "enabled": False,
        },
    )
    judges = {}
    for name in names:
        judge, _ = Judge.objects.get_or_create(
            name=f"{panel.name}/{name}",
            defaults={"model": model, "prompt_version": IMPORTED_VERSION, "temperature": 0},
        )
        panel.judges.add(judge)
        judges[name] = judge
    return judges


def _store(panel: Panel, judge: Judge, trace: Trace, record: ImportedVerdict) -> str:
    """ "added", "changed" or "same": a repeat of the same file writes nothing."""
    values = {
        "status": record.status,
        "score": record.score,
        "rationale": record.rationale,
        "raw": record.raw,
        "attempts": 1,
    }
    verdict, created = Verdict.objects.get_or_create(
        panel=panel,
        judge=judge,
        trace=trace,
        dimension=record.dimension,
        repetition=0,
        rubric_version=IMPORTED_VERSION,
        prompt_version=IMPORTED_VERSION,
        defaults=values,
    )
    if created:
        return "added"
    if all(getattr(verdict, field) == value for field, value in values.items()):
        return "same"
    Verdict.objects.filter(pk=verdict.pk).update(**values)
    return "changed"
